"""One read of an image's repository for every task sharing it (`inspect_histories`) says, per
gold patch, exactly what one read per task (`inspect_history`) says."""

from __future__ import annotations

import subprocess

import docker
import pytest

from evaluator.errors import BadInputError
from evaluator.images import inspect_histories, inspect_history
from tests.repos import LEAK_MARK, LEAKY_FIX, build_leaky_image

pytestmark = pytest.mark.docker

# Each patch is one way a task's gold patch can stand against the leaky image: its result is a
# later commit's (LEAKY_FIX), a new file the future also adds (LATER), a file nobody has, a
# patch that does not apply, and none at all.
PATCHES = {
    "fix": LEAKY_FIX.encode(),
    "later": ("diff --git a/LATER b/LATER\nnew file mode 100644\n--- /dev/null\n+++ b/LATER\n"
              f"@@ -0,0 +1 @@\n+{LEAK_MARK}\n").encode(),
    "fresh": (b"diff --git a/NEW b/NEW\nnew file mode 100644\n--- /dev/null\n+++ b/NEW\n"
              b"@@ -0,0 +1 @@\n+nobody has this\n"),
    "broken": b"diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1 +1 @@\n-x\n+y\n",
    "none": b"",
}


@pytest.fixture(scope="module")
def leaky(base_image: str) -> tuple[str, str]:
    image = build_leaky_image("evaluator-test/leaky-inspect:1", base_image)
    base = subprocess.run(["docker", "run", "--rm", "--network", "none", image, "git",
                           "rev-parse", "main"], check=True, capture_output=True,
                          text=True).stdout.strip()
    return image, base


def test_one_read_answers_as_one_read_per_patch(docker_client: docker.DockerClient,
                                                leaky: tuple[str, str]) -> None:
    image, base = leaky
    together = inspect_histories(docker_client, image, "/testbed", base, PATCHES)
    assert list(together) == list(PATCHES)
    for name, patch in PATCHES.items():
        alone = inspect_history(docker_client, image, "/testbed", base, patch or None)
        assert together[name] == alone, name
    # The cases really differ, so the comparison above says something.
    assert together["fix"].gold_leaked and together["later"].gold_leaked
    assert together["fresh"].gold and not together["fresh"].gold_leaked
    assert together["broken"].gold_error and not together["none"].gold
    assert together["fix"].findings and together["fix"].stats["objects"] > 0


def test_a_clean_image_and_one_patch(docker_client: docker.DockerClient, task_image: str) -> None:
    base = subprocess.run(["docker", "run", "--rm", "--network", "none", task_image, "git",
                           "-C", "/testbed", "rev-parse", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()
    patch = (b"diff --git a/calc/ops.py b/calc/ops.py\n--- a/calc/ops.py\n+++ b/calc/ops.py\n"
             b"@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n")
    got = inspect_histories(docker_client, task_image, "/testbed", base, {"t": patch})["t"]
    assert got == inspect_history(docker_client, task_image, "/testbed", base, patch)
    assert not got.leaks and len(got.gold) == 1


def test_a_commit_the_image_lacks_is_bad_input(docker_client: docker.DockerClient,
                                               leaky: tuple[str, str]) -> None:
    with pytest.raises(BadInputError, match="is not a commit"):
        inspect_histories(docker_client, leaky[0], "/testbed", "0" * 40, {"t": b""})
