"""The second look at a pytest grade (`_observe`): its terminal summary, and the re-run of the
FAIL_TO_PASS tests and their canaries by the harness's own runner, in an exec of its own.

The re-run goes the way the task's command goes up to pytest: what comes before the pytest
call (an activation, a `cd`) and its variable assignments are kept; the interpreter is the one
named before `-m pytest`, or the one in the `pytest` script's first line. Its code and its list
of tests travel on the command line, not as files the pytest run could have rewritten.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import shlex
from dataclasses import dataclass

from evaluator.grading._canary import Canaries, Twin
from evaluator.grading._ids import matches
from evaluator.grading._junit import PASSED
from evaluator.grading._observe import Looked, rerun, rerun_results, suspects, terminal
from evaluator.grading._spec import GradeSpec
from evaluator.sandbox import Sandbox

RUNNER = "_evaluator_rerun.py"
_RETRIES = 4
_ASSIGN = re.compile(r"^[A-Za-z_]\w*=")
_FILE = re.compile(r"\A@@evaluator-file ([A-Za-z0-9+/=]+)\n")
_SCRIPT_PY = ('PY=$(sed -n "1s/^#![[:space:]]*//p" "$(command -v {0})" 2>/dev/null); '
              '[ -n "$PY" ] || PY=python3; ')


@dataclass(frozen=True)
class PytestCall:
    prefix: str  # the shell text before the pytest call (ends with `&&` or `;`, or empty)
    assigns: tuple[str, ...]
    interpreter: tuple[str, ...] | None  # None: a `pytest` script, its interpreter from line 1
    script: str
    args: tuple[str, ...]


def pytest_call(command: str) -> PytestCall | None:
    """Where the task's command starts pytest, or None when it does not say plainly."""
    parts = re.split(r"(&&|\|\||;)", command)
    for i in range(0, len(parts), 2):
        try:
            words = shlex.split(parts[i])
        except ValueError:
            return None
        assigns = []
        while words and _ASSIGN.match(words[0]):
            assigns.append(words.pop(0))
        if not words:
            continue
        base = words[0].rsplit("/", 1)[-1]
        if re.fullmatch(r"python[\d.]*", base) and "-m" in words:
            k = words.index("-m")
            if words[k + 1:k + 2] == ["pytest"]:
                return PytestCall("".join(parts[:i]), tuple(assigns), tuple(words[:k]), "",
                                  tuple(words[k + 2:]))
        elif base in ("pytest", "py.test"):
            return PytestCall("".join(parts[:i]), tuple(assigns), None, words[0],
                              tuple(words[1:]))
    return None


def rerun_asks(fail_to_pass: tuple[str, ...], canaries: Canaries) -> list[str]:
    """The tests to re-run, sorted: the list itself does not say which are canaries."""
    f2p = set(fail_to_pass)
    return sorted({*fail_to_pass, *(t.id for t in canaries.twins if t.source in f2p)})


def _as_run(spec: GradeSpec, canaries: Canaries, tests: dict[str, str]
            ) -> tuple[tuple[str, ...], Canaries]:
    """The FAIL_TO_PASS ids and the twins under the ids of the tests of the run they name (a
    SWE-bench id cut at a space names one test by its full id)."""
    ids = [*spec.fail_to_pass, *(i for tw in canaries.twins for i in (tw.id, tw.source))]
    found = matches(ids, tests, spec.results)

    def named(t: str) -> str:
        ts = found.get(t, [])
        return ts[0] if len(ts) == 1 and not ts[0].startswith("(") else t

    twins = tuple(Twin(named(tw.id), named(tw.source), tw.differs) for tw in canaries.twins)
    return tuple(named(t) for t in spec.fail_to_pass), Canaries(canaries.nonce, twins)


def rerun_command(spec: GradeSpec, canaries: Canaries, code: bytes, env: str,
                  tests: list[str]) -> str | None:
    call = pytest_call(spec.test_command)
    if call is None:
        return None
    conf = json.dumps({
        "nonce": canaries.nonce, "tests": tests, "args": list(call.args),
        "unrunnable": ("the task loads pytest plugins " + ", ".join(spec.pytest_plugins))
        if spec.pytest_plugins else "",
    })
    assigns = " ".join(shlex.quote(a) for a in call.assigns)
    if call.interpreter is None:
        start, py = _SCRIPT_PY.format(shlex.quote(call.script)), "$PY"
    else:
        start, py = "", " ".join(shlex.quote(w) for w in call.interpreter)
    return (f"{env}{call.prefix} {start}{assigns} {py} -c {shlex.quote(code.decode())} "
            f"{shlex.quote(conf)}")


@dataclass(frozen=True)
class Prerun:
    """A re-run done before the report was read: the tests it ran, and its exec's output."""
    asked: tuple[str, ...]
    output: str


def read_and_rerun(sb: Sandbox, spec: GradeSpec, canaries: Canaries, path: str, env: str,
                   code: bytes, cap: int) -> tuple[bytes | None, Prerun | None]:
    """The report file at `path` and the re-run of every FAIL_TO_PASS test and its canaries, in
    one exec where the read and the re-run would be two. The file is printed first (base64, one
    line), before anything of the repository runs in that exec; the re-run comes after, as in
    an exec of its own. (None, None) where it cannot be done here (no F2P, no plain pytest call,
    a missing file, an output cut at the exec's limit): read and re-run apart then."""
    if not spec.fail_to_pass:
        return None, None
    asked = rerun_asks(spec.fail_to_pass, canaries)
    cmd = rerun_command(spec, canaries, code, env, asked)
    if cmd is None:
        return None, None
    q = shlex.quote(path)
    out = sb.exec(f'[ -f {q} ] && {{ printf "@@evaluator-file "; head -c {cap} {q} | base64 -w0; '
                  f"echo; }}; {cmd}", workdir=spec.workdir,
                  timeout_s=spec.limits.exec_timeout_s).output
    m = _FILE.match(out)
    if m is None:
        return None, None
    try:
        data = base64.b64decode(m.group(1), validate=True)
    except (binascii.Error, ValueError):
        return None, None
    return data, Prerun(tuple(asked), out[m.end():])


def second_look(sb: Sandbox, spec: GradeSpec, canaries: Canaries, tests: dict[str, str],
                output: str, env: str, code: bytes, *, junit: bool,
                first: Prerun | None = None) -> Looked:
    looked = Looked()
    if junit:
        terminal(output, tests, looked)
    if not spec.fail_to_pass:
        return looked
    f2p, canaries = _as_run(spec, canaries, tests)
    # Only what the report says passed needs a second opinion: a FAIL_TO_PASS test that failed
    # in pytest already keeps the grade from `resolved` (most agents' grades: no re-run).
    f2p = tuple(t for t in f2p if tests.get(t) == PASSED)
    if not f2p:
        return looked
    asked = rerun_asks(f2p, canaries)
    if rerun_command(spec, canaries, code, env, asked) is None:
        looked.notes.append("not re-run: the test command does not start pytest plainly")
        return looked

    def run(ids: list[str]) -> tuple[dict[str, tuple[str, str]], bool, list[str]]:
        cmd = rerun_command(spec, canaries, code, env, ids)
        assert cmd is not None
        out = sb.exec(cmd, workdir=spec.workdir, timeout_s=spec.limits.exec_timeout_s).output
        return rerun_results(out, canaries.nonce)

    # A re-run done with the report's read ran these tests already, in the same conditions.
    parsed = (rerun_results(first.output, canaries.nonce)
              if first is not None and set(asked) <= set(first.asked) else run(asked))
    # What failed there but passed in pytest runs again, four times at most, each in a fresh
    # interpreter (its own hash seed, its own timing): a test that then passes is flaky, and
    # the re-run says so; a forgery fails every time.
    doubt = suspects(parsed[0], f2p, tests)
    for _ in range(_RETRIES):
        if not doubt:
            break
        again = run(doubt)[0]
        for t in doubt:
            if again.get(t, ("", ""))[0] == "passed":
                parsed[0][t] = ("flaky", f"{parsed[0][t][1]}, then passed in a fresh interpreter")
        doubt = [t for t in doubt if parsed[0][t][0] != "flaky"]
    rerun(parsed, asked, f2p, tests, canaries, looked)
    return looked
