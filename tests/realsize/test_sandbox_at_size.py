"""A 100 MB, 20,000-file workdir in a sandbox, on each backend: all of it there and capped; and
(on Docker) the agent's patch is the difference from the image's own tree."""

from __future__ import annotations

import pytest

from evaluator.attempts import extract_patch
from evaluator.attempts._run import start_tree
from evaluator.errors import SandboxError
from evaluator.lock import DockerPinResolver
from evaluator.sandbox import DockerSandboxes, SandboxLimits

pytestmark = pytest.mark.docker

_ROOMY = SandboxLimits(disk_mb=400, memory_mb=2048, exec_timeout_s=300)


def test_twenty_gigabytes_of_dd_stop_at_the_cap(backend_sandboxes: DockerSandboxes,
                                                big_image: str) -> None:
    # EVAL_SANDBOX_DISK=tmpfs copies the 215 MB checkout into the capped workdir: room for it.
    with backend_sandboxes.open(big_image, _ROOMY, purpose="test") as sb:
        r = sb.exec("dd if=/dev/zero of=/testbed/huge bs=1M count=20480", timeout_s=300)
        assert r.exit_code != 0 and not r.timed_out, r.output
        assert any(m in r.output for m in (
            "Disk quota exceeded", "No space left on device", "File size limit exceeded")), r.output
        size = int(sb.exec("stat -c %s /testbed/huge").output)  # du would count its metadata
        assert size <= _ROOMY.disk_mb << 20, size


def test_many_files_past_the_cap_fail_or_end_the_sandbox(
    backend_sandboxes: DockerSandboxes, big_image: str
) -> None:
    with backend_sandboxes.open(big_image, _ROOMY, purpose="test") as sb:
        r = sb.exec("for i in $(seq 1 8); do dd if=/dev/zero of=/testbed/p$i bs=1M count=100 "
                    "|| exit 1; done", timeout_s=120)
        assert r.exit_code != 0, r.output
        try:
            written = int(sb.exec("du -scm /testbed/p* | tail -1 | cut -f1").output)
        except SandboxError as e:  # watch mode: killed once its layer passed the cap
            assert "wrote more than its disk_mb" in str(e)
            return
    assert written <= _ROOMY.disk_mb


def test_every_file_of_the_image_is_in_the_workdir(backend_sandboxes: DockerSandboxes,
                                                   big_image: str) -> None:
    with backend_sandboxes.open(big_image, _ROOMY, purpose="test") as sb:
        out = sb.exec("find bigpkg -name '*.py' | wc -l; cat NOTES.local; ls build/lib; "
                      "git log --oneline | wc -l").output.split("\n")
    assert int(out[0]) > 20_000
    assert "scratch" in out[1] and out[2] == "artifact.so" and out[3] == "3"


# The patch is read by git exec'd in the sandbox, the same on every backend; 45 s a run at this
# size, so on Docker only (the eval tests on the other backends extract their attempts' patches).
def test_patch_leaves_out_what_the_image_already_had(
    sandboxes: DockerSandboxes, big_image: str, docker_client
) -> None:
    sha = DockerPinResolver(docker_client).commit(big_image, "/testbed", "main")
    with sandboxes.open(big_image, _ROOMY, purpose="test") as sb:
        tree = start_tree(sb, "/testbed", sha)
        sb.exec("echo '# fixed' >> bigpkg/core.py && echo new > added.txt")
        patch = extract_patch(sb, "/testbed", tree).decode()
    assert "bigpkg/core.py" in patch and "added.txt" in patch
    assert "NOTES.local" not in patch and "build/" not in patch
