"""In the task's container, the re-run finds and reads pytest's config as that container's pytest
does (Debian's pytest 7.2 in the base image: no pytest.toml, no [tool.pytest], conftests above
the rootdir where there is no config file): on each layout, the runner's outcome is pytest's."""

from __future__ import annotations

import json

import pytest

from evaluator.grading._checks import payload
from evaluator.grading._run import HARDENED
from evaluator.grading._second import LOOK, RUNNER, results
from evaluator.sandbox import SandboxLimits
from tests.grading.support import ID, INI, PROJECT, TOML

_ENV = HARDENED + "export PYTHONSAFEPATH=1 PYTHONNOUSERSITE=1; "

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
            ran = sb.exec(f"{_ENV}python3 -m pytest -q -p no:cacheprovider {args}",
                          workdir=workdir).output
            assert ("1 passed" in ran) == passes, (name, ran)
            conf = {"nonce": "n", "tests": [ID], "args": args.split(), "root": workdir,
                    "varied": False, "timeout": 60, "code": payload(RUNNER).decode()}
            sb.put_files({"/tmp/g/look.json": json.dumps(conf).encode(),
                          "/tmp/g/look.py": payload(LOOK)})
            out = sb.exec(f"{_ENV}python3 -I /tmp/g/look.py /tmp/g/look.json",
                          workdir=workdir).output
            where = json.loads(out.strip().splitlines()[-1].split(" ", 2)[2])["out"]
            found, done, _ = results(out, sb.read_file(where), "n")
            # where pytest 7.2 reads no path to `lib`, neither does the runner: the import fails
            assert done and found[ID][0] == ("passed" if passes else "error"), (name, out[-300:])
