"""What the grading tests share that is not a fixture: a cheat-battery layout built on an engine,
and the harness's own re-run runner started for real on a folder of this machine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from evaluator.grading import Grader, GradeSpec, calibrate_now
from evaluator.grading._checks import payload
from evaluator.grading._second import RUNNER
from evaluator.hashing import hash_json
from evaluator.images import build_task_image
from evaluator.lock import DockerPinResolver
from evaluator.sandbox import SandboxLimits
from tests.grading.layouts import LAYOUTS, Layout
from tests.helpers import TEST_CMD, write_files


def make_layout_case(name: str, docker_client: Any, base_image: str,
                     tmp_path_factory: pytest.TempPathFactory, grader: Grader | None = None
                     ) -> tuple[Layout, GradeSpec, dict[str, bytes]]:
    """(layout, grade spec, hidden files) of the cheat battery's layout `name`, on the engine;
    with a `grader`, the spec carries the layout's calibration, made with it as the gold gate
    makes it (its twins, names and second observation validated on the gold patch)."""
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
        # Generous: the battery grades a few at a time on a machine other sessions share.
        limits=SandboxLimits(memory_mb=512, exec_timeout_s=240),
    )
    hidden = {k: v.encode() for k, v in lay.hidden.items()}
    if grader is not None:
        spec = replace(spec, pool=calibrate_now(grader, spec, lay.gold.encode(), hidden)[0])
    return lay, spec, hidden


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
             tomllib: bool = True, varied: bool = False) -> dict[str, tuple[str, str]]:
    """{id: (status, why)} of the second observation's runner started in `cwd` as its
    supervisor starts it (conf on stdin, results on a pipe), on this interpreter;
    `pytest_version` is what `_pytest._version` says there, and without `tomllib` Python's TOML
    reader cannot be imported (as before Python 3.11)."""
    pre = ("import sys, types\nsys.modules['_pytest._version'] = types.SimpleNamespace("
           f"version={pytest_version!r})\n" if pytest_version else "")
    pre += "" if tomllib else "import sys\nsys.modules['tomllib'] = None\n"
    read, write = os.pipe()
    conf = json.dumps({"tests": ids, "args": args, "root": str(cwd), "fd": write,
                       "varied": varied})
    proc = subprocess.Popen([sys.executable, "-c", pre + payload(RUNNER).decode()], cwd=cwd,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, pass_fds=(write,),
                            env={"PATH": "/usr/bin:/bin", "PYTHONSAFEPATH": "1",
                                 "PYTHONDONTWRITEBYTECODE": "1"})
    os.close(write)
    out, err = proc.communicate(conf.encode(), timeout=120)
    with os.fdopen(read, "rb") as pipe:
        lines = [json.loads(x) for x in pipe.read().splitlines() if x.strip()]
    assert any("done" in x for x in lines), (out + err).decode()
    return {x["id"]: (x["status"], x.get("why", "")) for x in lines if "id" in x}
