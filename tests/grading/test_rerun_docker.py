"""In the task's container, the re-run finds and reads pytest's config as that container's pytest
does (Debian's pytest 7.2 in the base image: no pytest.toml, no [tool.pytest], conftests above
the rootdir where there is no config file): on each layout, the runner's outcome is pytest's."""

from __future__ import annotations

import pytest

from evaluator.grading import GradeSpec
from evaluator.grading._canary import Canaries
from evaluator.grading._observe import rerun_results
from evaluator.grading._rerun import RUNNER, rerun_command
from evaluator.grading._run import _LOOK_ENV, payload
from evaluator.sandbox import SandboxLimits
from tests.grading.support import ID, INI, PROJECT, TOML

pytestmark = pytest.mark.docker

_ABOVE = ("import os, sys\nos.environ['MARKED'] = '1'\n"
          "sys.path.insert(0, os.path.join(os.path.dirname(__file__), 'proj', 'src'))\n")
LAYOUTS = {  # name: (files, the folder pytest starts in, its args, whether pytest 7.2 passes)
    "toml-ignored": ({**PROJECT, "pytest.toml": TOML.format(opts=""), "pytest.ini": "[pytest]\n"},
                     "", "tests", False),
    "above": ({"pytest.ini": "[pytest]\naddopts = -p xdist\n",
               **{f"proj/{k}": v for k, v in {**PROJECT, "pytest.ini": INI}.items()}},
              "", "proj/tests", True),
    "ini-options": ({**PROJECT, "pyproject.toml": "[tool.pytest.ini_options]\npythonpath = "
                     '["src"]\nusefixtures = ["mark"]\n'}, "", "tests", True),
    "native-ignored": ({**PROJECT, "pyproject.toml": TOML.format(opts="").replace(
        "[pytest]", "[tool.pytest]")}, "", "tests", False),
    "no-config": ({"conftest.py": _ABOVE, **{f"proj/{k}": v for k, v in PROJECT.items()}},
                  "proj", "tests", True),
}


def test_the_runner_reads_the_config_as_the_container_s_pytest(sandboxes, base_image) -> None:
    with sandboxes.open(base_image, SandboxLimits(memory_mb=512), purpose="test") as sb:
        for name, (files, start, args, passes) in LAYOUTS.items():
            root = f"/tmp/{name}"
            sb.put_files({f"{root}/{k}": v.encode() for k, v in files.items()})
            workdir = f"{root}/{start}".rstrip("/")
            ran = sb.exec(f"{_LOOK_ENV}python3 -m pytest -q -p no:cacheprovider {args}",
                          workdir=workdir).output
            assert ("1 passed" in ran) == passes, (name, ran)
            cmd = rerun_command(_spec(f"python3 -m pytest {args}"), Canaries("n"),
                                payload(RUNNER), _LOOK_ENV, [ID])
            assert cmd is not None
            out = sb.exec(cmd, workdir=workdir).output
            found, done, _ = rerun_results(out, "n")
            # where pytest 7.2 reads no path to `lib`, neither does the runner: the import fails
            assert done and found[ID][0] == ("passed" if passes else "error"), (name, out[-300:])


def _spec(command: str) -> GradeSpec:
    return GradeSpec(task_set="t", task_id="x", image="i", workdir="/w", user="u", base_commit="c",
                     test_command=command, hidden_tests_hash="h", fail_to_pass=(ID,),
                     pass_to_pass=(), test_files=(), limits=SandboxLimits())
