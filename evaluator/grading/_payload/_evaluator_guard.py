"""The grader's pytest plugin, loaded into every graded run with `-p _evaluator_guard` from a
folder of the harness's own outside the repository (it must run on Python 3.6 and pytest 3.x+).

It runs only the tests the grade asked for (a list of ids in which the harness's canaries sit
among the required tests, unmarked), whatever `-k`, `-m`, `-x` or the repository's hooks
deselect; records pytest's own node ids in the JUnit report; and, once pytest is done, writes
one line to the exec's own output (the real fd 1, kept before pytest captures it) with a digest
of every outcome it saw as tests ran. The harness compares it with the report it reads: a
report rewritten after the run does not match a line already written to a stream it holds.

What it keeps lives in the closure of one plugin object registered with the outer session's
plugin manager only (an inner `pytester` session gets nothing of it), not in module globals:
the list of ids is read from a file it deletes and dropped once collection is done. What must
stay until the end (the outcomes, the grade's nonce) is worth nothing to a forger alone: the
harness checks it against pytest's own summary, a re-run in a fresh interpreter and the
canaries, which nothing in this process can tell from the required tests.
"""

import hashlib
import json
import os
import sys

import pytest


def _read_conf():
    path = os.environ.pop("EVALUATOR_GUARD", "")
    if not path:
        return None
    try:
        with open(path) as f:
            conf = json.load(f)
        os.unlink(path)  # read once, before any code of the repository runs
    except (OSError, ValueError):
        return None
    return conf


def _xml_safe(text):
    # pytest writes ids into the report with illegal XML characters escaped this way.
    out = []
    for ch in text:
        o = ord(ch)
        legal = o in (0x9, 0xA, 0xD) or 0x20 <= o <= 0xD7FF or 0xE000 <= o <= 0xFFFD or o > 0xFFFF
        out.append(ch if legal else ("#x%02X" % o if o <= 0xFF else "#x%04X" % o))
    return "".join(out)


def _named(nodeid, wanted, prefixes):
    """Ids as SWE-bench rows hold them (evaluator/grading/_ids.py): cut at the first whitespace,
    or cut mid-parameter (more "[" than "]"), which names every test it starts."""
    if nodeid in wanted:
        return True
    first = (nodeid.split() or [nodeid])[0]
    return first in wanted or any(first.startswith(p) for p in prefixes)


def _guard(conf, out, write):
    nonce = conf.get("nonce", "")
    wanted = [set(conf["select"]) if conf.get("select") is not None else None]  # type: list
    rank = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}
    results = {}  # type: dict
    collect_errors = [0]

    class Guard(object):
        @pytest.hookimpl(hookwrapper=True, tryfirst=True)
        def pytest_collection_modifyitems(self, session, config, items):
            everything = list(items)
            yield
            keep_ids = wanted[0]
            wanted[0] = None  # not left for the code under test
            if keep_ids is not None:
                prefixes = tuple(w for w in keep_ids if w.count("[") > w.count("]"))
                keep = [i for i in everything if _named(i.nodeid, keep_ids, prefixes)]
                kept = set(id(i) for i in keep)
                gone = [i for i in items if id(i) not in kept]
                if gone:
                    config.hook.pytest_deselected(items=gone)
                items[:] = keep
            for item in items:
                item.user_properties.append(("evaluator.nodeid", item.nodeid))

        def pytest_collectreport(self, report):
            if report.failed:
                collect_errors[0] += 1

        def pytest_runtest_logreport(self, report):
            if report.when == "call":
                status = {"passed": "passed", "failed": "failed",
                          "skipped": "skipped"}[report.outcome]
            elif report.failed:
                status = "error"
            elif report.skipped:
                status = "skipped"
            else:
                return
            nodeid = _xml_safe(report.nodeid)
            prev = results.get(nodeid)
            if prev is None or rank[status] > rank[prev]:
                results[nodeid] = status

        def pytest_unconfigure(self, config):
            canon = json.dumps(sorted([k, v] for k, v in results.items()), separators=(",", ":"))
            line = json.dumps({"digest": hashlib.sha256(canon.encode()).hexdigest(),
                               "tests": len(results), "collect_errors": collect_errors[0]})
            write(out, ("\n@@evaluator-guard %s %s\n" % (nonce, line)).encode())

    return Guard()


# fd 1 is kept now: by the time of pytest_configure, pytest's capture has replaced it.
_pending = [(_read_conf(), os.dup(1))]
# The repository is not first on the import path: entries for the working directory go last,
# so a module of the patch cannot stand in for one of the standard library or site-packages.
_cwd = os.getcwd()
sys.path[:] = [p for p in sys.path if p not in ("", ".", _cwd)] + [_cwd]
# What put this interpreter's path in order is not for the suite's own child processes (a
# pytester subprocess run, a script a test runs): they start as they would upstream.
for _name in ("PYTHONSAFEPATH", "PYTHONUSERBASE"):
    os.environ.pop(_name, None)


def pytest_configure(config):
    (conf, out), _pending[0] = _pending[0], (None, -1)
    if conf is None:
        return  # an inner session (pytester) or a run without a grade: nothing to guard
    # All required tests run: a stop on the first failure would end at a failing canary.
    if getattr(config.option, "maxfail", 0):
        config.option.maxfail = 0
    # Code under test must not learn that it is under test from the variable pytest sets; a
    # pytest session the tests run inside this process (pytester) keeps it, as upstream.
    try:
        from _pytest import runner
        original = runner._update_current_test_var

        def _update(item, when, *args, **kwargs):
            if getattr(item, "config", None) is not config:
                return original(item, when, *args, **kwargs)
        runner._update_current_test_var = _update
    except (ImportError, AttributeError):
        pass
    os.environ.pop("PYTEST_CURRENT_TEST", None)
    config.pluginmanager.register(_guard(conf, out, os.write), "evaluator-guard")
