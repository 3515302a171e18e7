"""The grader's pytest plugin, loaded into every graded run with `-p _evaluator_guard` from a
folder of the harness's own outside the repository (it must run on Python 3.6 and pytest 3.x+).

It runs only the tests the grade asked for (F2P, P2P and the per-grade canaries), whatever
`-k`, `-m`, `-x` or the repository's hooks deselect; records pytest's own node ids in the JUnit
report; and, once pytest is done, writes one line to the exec's own output (the real fd 1, kept
before pytest captures it) with a digest of every outcome it saw as tests ran. The harness
compares it with the report it reads: a report rewritten after the run does not match a line
already written to a stream the harness holds.
"""

import hashlib
import json
import os
import sys

import pytest

_CONF = json.loads(os.environ.pop("EVALUATOR_GUARD", "") or "{}")
_NONCE = _CONF.get("nonce", "")
_CANARIES = tuple(_CONF.get("canaries", ()))
_OUT = os.dup(1)
_RANK = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}
_results = {}  # type: dict
_collect_errors = [0]

# The repository is not first on the import path: entries for the working directory go last,
# so a module of the patch cannot stand in for one of the standard library or site-packages.
_cwd = os.getcwd()
sys.path[:] = [p for p in sys.path if p not in ("", ".", _cwd)] + [_cwd]


def _requested():
    path = _CONF.get("select")
    if not path:
        return None
    with open(path) as f:
        wanted = set(json.load(f))
    os.unlink(path)  # read once, before any test runs: not left for the code under test
    return wanted


_WANTED = _requested()


def _xml_safe(text):
    # pytest writes ids into the report with illegal XML characters escaped this way.
    out = []
    for ch in text:
        o = ord(ch)
        legal = o in (0x9, 0xA, 0xD) or 0x20 <= o <= 0xD7FF or 0xE000 <= o <= 0xFFFD or o > 0xFFFF
        out.append(ch if legal else ("#x%02X" % o if o <= 0xFF else "#x%04X" % o))
    return "".join(out)


def pytest_configure(config):
    # All required tests run: a stop on the first failure would end at the failing canary.
    if getattr(config.option, "maxfail", 0):
        config.option.maxfail = 0
    # Code under test must not learn that it is under test from the variable pytest sets.
    try:
        from _pytest import runner
        runner._update_current_test_var = lambda *args, **kwargs: None
    except (ImportError, AttributeError):
        pass
    os.environ.pop("PYTEST_CURRENT_TEST", None)


@pytest.hookimpl(hookwrapper=True)
def pytest_collection_modifyitems(session, config, items):
    everything = list(items)
    yield
    wanted = _WANTED
    if wanted is not None:
        keep = [i for i in everything
                if i.nodeid in wanted or any(c in i.nodeid for c in _CANARIES)]
        kept = set(id(i) for i in keep)
        gone = [i for i in items if id(i) not in kept]
        if gone:
            config.hook.pytest_deselected(items=gone)
        items[:] = keep
    for item in items:
        item.user_properties.append(("evaluator.nodeid", item.nodeid))


def pytest_collectreport(report):
    if report.failed:
        _collect_errors[0] += 1


def pytest_runtest_logreport(report):
    if report.when == "call":
        status = {"passed": "passed", "failed": "failed", "skipped": "skipped"}[report.outcome]
    elif report.failed:
        status = "error"
    elif report.skipped:
        status = "skipped"
    else:
        return
    nodeid = _xml_safe(report.nodeid)
    prev = _results.get(nodeid)
    if prev is None or _RANK[status] > _RANK[prev]:
        _results[nodeid] = status


def pytest_unconfigure(config):
    canon = json.dumps(sorted([k, v] for k, v in _results.items()), separators=(",", ":"))
    line = json.dumps({"digest": hashlib.sha256(canon.encode()).hexdigest(),
                       "tests": len(_results), "collect_errors": _collect_errors[0]})
    os.write(_OUT, ("\n@@evaluator-guard %s %s\n" % (_NONCE, line)).encode())
