"""The second observation's supervisor and runner, run for real on this machine (this
interpreter, the dev lock's pytest) on a small repository: what the child can and cannot do to
the results, and what the varied run changes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from evaluator.grading._checks import payload
from evaluator.grading._second import LOOK, REWRITTEN, RUNNER, pytest_call, results
from tests.helpers import write_files

NONCE = "feedfacecafebeef"
LIB = "def double(x):\n    return x * 2\n"
TESTS = ("from lib import double\n\n\ndef test_two():\n    assert double(1) == 2\n\n\n"
         "def test_five():\n    assert double(2) == 5\n")
IDS = ["tests/test_lib.py::test_two", "tests/test_lib.py::test_five"]


def _repo(tmp: Path, lib: str = LIB) -> Path:
    write_files(tmp / "repo", {"src/lib.py": lib, "tests/test_lib.py": TESTS,
                               "pytest.ini": "[pytest]\npythonpath = src\n"})
    return tmp / "repo"


def _look(root: Path, *, varied: bool = False, ids: list[str] = IDS, env: dict | None = None,
          tamper: bool = False) -> tuple[dict, bool, list[str], str]:
    gdir = root.parent / "grade"
    gdir.mkdir(exist_ok=True)
    conf = {"nonce": NONCE, "tests": ids, "args": ["tests"], "root": str(root),
            "varied": varied, "unset": ["PYTHONSAFEPATH"] if varied else [], "timeout": 60,
            "code": payload(RUNNER).decode(), **({"clean": str(gdir)} if varied else {})}
    (gdir / "look.json").write_text(json.dumps(conf))
    (gdir / "look.py").write_bytes(payload(LOOK))
    r = subprocess.run([sys.executable, "-I", str(gdir / "look.py"), str(gdir / "look.json")],
                       cwd=root, capture_output=True, text=True, timeout=120,
                       env=env or {"PATH": "/usr/bin:/bin", "PYTHONSAFEPATH": "1"})
    line = [x for x in r.stdout.splitlines() if x.startswith(f"@@evaluator-look {NONCE} ")]
    out = json.loads(line[0].split(" ", 2)[2])["out"] if line else ""
    text = Path(out).read_bytes() if out else None
    if tamper and text is not None:
        text = text.replace(b'"failed"', b'"passed"')
    found, done, clashes = results(r.stdout, text, NONCE)
    return found, done, clashes, r.stdout + r.stderr


def test_the_runner_reports_each_test_through_its_supervisor(tmp_path: Path) -> None:
    found, done, clashes, out = _look(_repo(tmp_path))
    assert done and not clashes, out
    assert {t: s for t, (s, _) in found.items()} == {IDS[0]: "passed", IDS[1]: "failed"}
    assert out.count("@@evaluator-look") == 1  # one line: the digest of its results file


def test_a_results_file_rewritten_after_the_supervisor_is_seen(tmp_path: Path) -> None:
    found, done, clashes, _ = _look(_repo(tmp_path), tamper=True)
    assert clashes == [REWRITTEN] and not found


def test_the_child_never_sees_the_nonce(tmp_path: Path) -> None:
    spy = LIB + ("import os, sys\nopen(os.environ['SPY'], 'w').write(repr((sys.argv, "
                 "dict(os.environ), open('/proc/%d/cmdline' % os.getppid()).read())))\n")
    root = _repo(tmp_path, spy)
    _look(root, env={"PATH": "/usr/bin:/bin", "SPY": str(tmp_path / "spy")})
    seen = (tmp_path / "spy").read_text()
    assert seen and NONCE not in seen


def test_replacing_the_runner_in_its_main_makes_tests_unrunnable_not_passed(tmp_path: Path
                                                                            ) -> None:
    silencer = LIB + ("import sys\nm = sys.modules.get('__main__')\nif hasattr(m, 'attempt'):\n"
                      "    m.attempt = lambda *a, **k: ('unrunnable', 'quiet')\n")
    found, done, _, _ = _look(_repo(tmp_path, silencer))
    assert done and {s for s, _ in found.values()} == {"unrunnable"}


def test_a_child_writing_its_own_results_first_is_taken_at_its_word_and_a_twice_told_one_is_a_clash(
        tmp_path: Path) -> None:
    forger = LIB + ("import json, os, sys\nm = sys.modules.get('__main__')\n"
                    "if hasattr(m, 'CONF'):\n    for t in m.CONF['tests']:\n"
                    "        os.write(m.OUT, (json.dumps({'id': t, 'status': 'passed'}) + "
                    "chr(10)).encode())\n")
    found, done, clashes, _ = _look(_repo(tmp_path, forger))
    assert found[IDS[0]][0] == "passed" and found[IDS[1]][0] == "passed"
    assert clashes == [IDS[1]]  # the runner's own "failed" for it came after


def test_a_child_that_kills_its_supervisor_leaves_no_results(tmp_path: Path) -> None:
    killer = LIB + "import os, sys\nif 'pytest' not in sys.modules:\n    os.kill(os.getppid(), 9)\n"
    found, done, clashes, _ = _look(_repo(tmp_path, killer))
    assert found == {} and not done


def test_the_varied_run_changes_what_a_fix_must_not_depend_on(tmp_path: Path) -> None:
    spy = LIB + ("import os, sys\nopen(os.environ['SPY'], 'a').write(repr((os.getcwd(), "
                 "os.environ.get('PYTHONSAFEPATH'), sys.argv[0], sys.path[0])) + chr(10))\n")
    root = _repo(tmp_path, spy)
    env = {"PATH": "/usr/bin:/bin", "PYTHONSAFEPATH": "1", "SPY": str(tmp_path / "spy")}
    _look(root, env=env)
    _look(root, env=env, varied=True)
    same, varied = [eval(x) for x in (tmp_path / "spy").read_text().splitlines()]  # noqa: S307
    assert same[0] == str(root) and same[1] == "1" and same[2] == "-c"
    assert varied[0] != str(root) and varied[1] is None and varied[2].endswith(".py")
    assert varied[3] != same[3] and not (tmp_path / "grade").exists()


def test_the_pytest_call_of_a_task_command() -> None:
    c = pytest_call("source /env/bin/activate && PYTHONPATH=src python3 -W ignore -m pytest -rA x")
    assert c and c.prefix == "source /env/bin/activate &&" and c.assigns == ("PYTHONPATH=src",)
    assert c.interpreter == ("python3", "-W", "ignore") and c.args == ("-rA", "x")
    c = pytest_call("cd repo; pytest -p no:cacheprovider --junitxml={junit_xml} tests")
    assert c and c.interpreter is None and c.script == "pytest" and c.prefix == "cd repo;"
    assert pytest_call("tox -e py311") is None and pytest_call("python3 bin/test") is None


def test_results_read_only_this_nonce_and_one_line() -> None:
    assert results("@@evaluator-look other {}\n", b"", NONCE) == ({}, False, [])
    assert os.sep == "/"
