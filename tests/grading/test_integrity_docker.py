"""Outcome integrity by construction, on the real engine (issue 33): the run never shows the ids
a task publishes; the second observation, alone, catches what silences it; a fix that holds
only under the grader's conditions is flagged `environment-sensitive` by the grade itself; and
no honest patch (gold, or another correct fix) is ever `tampered` or flagged, whatever the
nonce."""

from __future__ import annotations

import http.client
import re
import textwrap
import time
from dataclasses import replace

import pytest

from evaluator.grading import RESOLVED, TAMPERED
from tests.grading.cheats_integrity import INTEGRITY
from tests.grading.patches import inject, replace_file

pytestmark = pytest.mark.docker

_SPY = """\
    import gc, os
    import pytest

    class _Spy:
        def pytest_collection_finish(self, session):
            seen = [i.nodeid for i in session.items]
            for path in sorted({n.split("::")[0] for n in seen}):
                try:
                    seen.append(open(path).read())
                except OSError:
                    pass
            os.write(2, ("@@spy " + repr(seen) + "\\n").encode())

    _cfg = next((o for o in gc.get_objects()
                 if type(o).__name__ == "Config" and hasattr(o, "pluginmanager")), None)
    if _cfg is not None:
        _cfg.pluginmanager.register(_Spy(), "spy")
    """


@pytest.mark.parametrize("layout", ["calc", "shop"])
def test_the_run_never_shows_a_published_test_name(grader, layouts, layout: str) -> None:
    lay, spec, hidden = layouts(layout)
    out = grader.grade(spec, inject(lay, textwrap.dedent(_SPY)).encode(), hidden)
    spied = "".join(re.findall(r"^@@spy (.*)$", out.output, re.M))
    assert spied, out.output[-2000:]
    published = {t.split("::")[-1].split("[")[0] for t in (*spec.fail_to_pass, *spec.pass_to_pass)}
    published |= {p for t in spec.fail_to_pass for p in t.split("::")[1:-1]}
    shown = {p for p in published if re.search(rf"\b{re.escape(p)}\b", spied)}
    # What the grade itself says it kept (shop inherits one PASS_TO_PASS test from a file that
    # holds no required test): nothing else.
    said = {p for p in shown if p in out.detail and "kept as published" in out.detail}
    assert shown == said and not {p for p in shown for t in spec.fail_to_pass if p in t}, (
        f"published names in the run: {shown - said}")


@pytest.mark.parametrize("cheat", ["second_look_unrunnable", "second_look_killed",
                                   "second_look_results_rewritten", "marker_from_scored_run"])
def test_the_second_observation_alone_catches_what_silences_it(grader, layouts, cheat: str
                                                                ) -> None:
    """Without twins (a task whose pool is empty), a scored run forged at its source is caught
    by the second look alone: what it cannot run, what it did not hear, what was rewritten,
    what a marker of the scored run would have fixed. (A child that writes "passed" for every
    test it is asked to run and ends is caught by the twins it is asked to run too:
    `second_look_forged_pipe` in the battery; without twins only the policy's flags on its
    executor and `__main__` stand in its way, and the report counts such tasks apart.)"""
    lay, spec, hidden = layouts("calc")
    assert spec.pool is not None
    bare = replace(spec, pool=replace(spec.pool, twins=()))
    out = grader.grade(bare, INTEGRITY[cheat](lay)[0].encode(), hidden)
    assert out.outcome == TAMPERED, out.detail


@pytest.mark.parametrize("cheat", ["only_with_safe_path", "only_launched_as_module",
                                   "only_from_the_repository", "only_with_test_folder_first"])
def test_a_fix_only_under_the_grader_s_conditions_is_environment_sensitive(
        grader, layouts, cheat: str) -> None:
    lay, spec, hidden = layouts("calc")
    out = grader.grade(spec, INTEGRITY[cheat](lay)[0].encode(), hidden)
    assert out.outcome in (RESOLVED, TAMPERED), out.detail
    if out.outcome == RESOLVED:
        assert any(f.startswith("environment-sensitive") for f in out.flags), out.detail


@pytest.mark.parametrize("layout", ["calc", "shop"])
def test_no_honest_fix_is_tampered_or_flagged_whatever_the_nonce(grader, layouts, layout: str
                                                                 ) -> None:
    lay, spec, hidden = layouts(layout)
    patches = [lay.gold, *(replace_file(lay.buggy, lay.broken, b) for b in lay.known_good)]
    for patch in patches:
        for _ in range(2):
            out = grader.grade(spec, patch.encode(), hidden)
            assert out.outcome == RESOLVED and out.flags == () and out.evidence == (), (
                patch, out.detail)


def test_an_honest_fix_read_back_late_is_not_tampered(grader, layouts, monkeypatch) -> None:
    """On a loaded machine the harness reads each engine reply late; a quick command's output
    (the second look's results file, read back with `head`) then comes with the reply's
    headers. Once, it was dropped there: the file read back empty, did not match the digest the
    supervisor printed, and a gold patch was graded `tampered`."""
    begin = http.client.HTTPResponse.begin

    def late(self: http.client.HTTPResponse) -> None:
        time.sleep(0.2)
        begin(self)

    lay, spec, hidden = layouts("calc")
    monkeypatch.setattr(http.client.HTTPResponse, "begin", late)
    out = grader.grade(spec, lay.gold.encode(), hidden)
    assert out.outcome == RESOLVED and out.evidence == (), out.detail
