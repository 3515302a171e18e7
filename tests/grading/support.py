"""What the grading tests share that is not a fixture: a cheat-battery layout built on an engine,
and the harness's own re-run runner started for real on a folder of this machine."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from evaluator.grading import GradeSpec
from evaluator.grading._observe import rerun_results
from evaluator.grading._rerun import RUNNER
from evaluator.grading._run import payload
from evaluator.hashing import hash_json
from evaluator.images import build_task_image
from evaluator.lock import DockerPinResolver
from evaluator.sandbox import SandboxLimits
from tests.grading.layouts import LAYOUTS, Layout
from tests.helpers import TEST_CMD, write_files


def make_layout_case(name: str, docker_client: Any, base_image: str,
                     tmp_path_factory: pytest.TempPathFactory
                     ) -> tuple[Layout, GradeSpec, dict[str, bytes]]:
    """(layout, grade spec, hidden files) of the cheat battery's layout `name`, on the engine."""
    lay = next(x for x in LAYOUTS if x.name == name)
    repo = tmp_path_factory.mktemp(f"repo-{lay.name}")
    write_files(repo, lay.repo)
    image = build_task_image(docker_client, base_image=base_image,
                             tag=f"evaluator-test/layout-{lay.name}:1", repo_dir=Path(repo))
    sha = DockerPinResolver(docker_client).commit(image, "/testbed", "HEAD")
    spec = GradeSpec(
        task_set="t", task_id=lay.name, image=image, workdir="/testbed", user="1000:1000",
        base_commit=sha, test_command=TEST_CMD, hidden_tests_hash=hash_json(lay.hidden),
        fail_to_pass=lay.fail_to_pass, pass_to_pass=lay.pass_to_pass, test_files=(),
        limits=SandboxLimits(memory_mb=512, exec_timeout_s=60),
    )
    return lay, spec, {k: v.encode() for k, v in lay.hidden.items()}


# A project for the re-run's config tests: its test passes only where `src` is on the path and
# the fixture `mark` ran first (usefixtures), as a config file can say.
TEST = ("import os\nfrom lib import X\n\n\ndef test_x():\n"
        "    assert X == 1 and os.environ.get('MARKED') == '1'\n")
CONFTEST = ("import os\nimport pytest\n\n\n@pytest.fixture\ndef mark():\n"
            "    os.environ['MARKED'] = '1'\n")
ID = "tests/test_x.py::test_x"
TOML = '[pytest]\naddopts = [{opts}]\npythonpath = ["src"]\nusefixtures = ["mark"]\n'
INI = "[pytest]\npythonpath = src\nusefixtures = mark\n"
PROJECT = {"src/lib.py": "X = 1\n", "tests/test_x.py": TEST, "conftest.py": CONFTEST}


def rerun_in(cwd: Path, ids: list[str], args: list[str], *, pytest_version: str = "",
             tomllib: bool = True) -> dict[str, tuple[str, str]]:
    """{id: (status, why)} of the re-run runner started in `cwd` as the grader starts it, on this
    interpreter; `pytest_version` is what `_pytest._version` says there, and without `tomllib`
    Python's TOML reader cannot be imported (as before Python 3.11)."""
    pre = ("import sys, types\nsys.modules['_pytest._version'] = types.SimpleNamespace("
           f"version={pytest_version!r})\n" if pytest_version else "")
    pre += "" if tomllib else "import sys\nsys.modules['tomllib'] = None\n"
    conf = json.dumps({"nonce": "n", "tests": ids, "args": args})
    r = subprocess.run([sys.executable, "-c", pre + payload(RUNNER).decode(), conf], cwd=cwd,
                       capture_output=True, text=True, timeout=120,
                       env={"PATH": "/usr/bin:/bin", "PYTHONSAFEPATH": "1",
                            "PYTHONDONTWRITEBYTECODE": "1"})
    found, done, _ = rerun_results(r.stdout, "n")
    assert done, r.stdout + r.stderr
    return found
