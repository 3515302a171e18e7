"""The judge (required outcomes plus a list of evidence) and the checks that read the scored
run, on hand-made runs."""

import json
from dataclasses import replace

from evaluator.grading import FLAG, NOTE, STRONG, WEAK, Evidence, judge
from evaluator.grading._checks import ExitStatus, Guard, Seen, Setup, Summary, Twins, digest
from evaluator.grading._junit import JunitReport
from evaluator.grading._spec import GradeSpec
from evaluator.sandbox import SandboxLimits
from tests.grading.support_disguise import F2P, P2P, disguised

PASSED = dict.fromkeys(("a", "b"), "passed")


def test_honest_pass_resolves_and_a_failure_is_unresolved_with_why() -> None:
    assert judge(PASSED, []).resolved
    v = judge({"a": "failed", "b": "passed"}, [], why="failed: a")
    assert not v.resolved and not v.tampered and v.reason == "failed: a"


def test_strong_evidence_is_tampered_whatever_the_tests_say() -> None:
    v = judge({"a": "failed"}, [Evidence("x", STRONG, "forged")])
    assert v.tampered and v.reason == "forged"


def test_weak_evidence_is_tampered_only_where_the_tests_look_passed() -> None:
    weak = [Evidence("x", WEAK, "twins missing")]
    assert judge(PASSED, weak).tampered
    v = judge({"a": "failed"}, weak, why="failed: a")
    assert not v.tampered and "twins missing" in v.reason


def test_a_flag_keeps_the_resolve_and_says_so_and_a_note_decides_nothing() -> None:
    v = judge(PASSED, [Evidence("x", FLAG, "environment-sensitive: a"), Evidence("y", NOTE, "n")])
    assert v.resolved and v.flags == ("environment-sensitive: a",) and "n" in v.notes
    assert judge({"a": "failed"}, [Evidence("x", FLAG, "f")]).flags == ()


def test_a_skipped_pass_to_pass_test_counts_as_kept_where_the_rule_says() -> None:
    assert judge({"a": "passed", "b": "skipped"}, [], kept=("b",)).resolved
    assert not judge({"a": "passed", "b": "skipped"}, []).resolved


def _seen(tests: dict[str, str], *, exit_code: int = 1, line: dict | None = None,
          output: str | None = None) -> Seen:
    d = disguised()
    spec = GradeSpec(task_set="t", task_id="x", image="i", workdir="/w", user="u",
                     base_commit="c", test_command="python3 -m pytest --junitxml={junit_xml} .",
                     hidden_tests_hash="h", fail_to_pass=F2P, pass_to_pass=P2P, test_files=(),
                     limits=SandboxLimits())
    setup = Setup(spec, "/g", d, ["t.py"], "n" * 16)
    report = JunitReport(dict(tests), dict(tests), {})
    if output is None:
        output = f"@@evaluator-guard {'n' * 16} " + json.dumps(
            {"digest": digest(line or tests), "tests": len(tests), "collect_errors": 0})
    original, twins = d.back(tests)
    return Seen(setup, report, output, exit_code, False, original, twins,
                {t: original.get(t, "missing") for t in (*F2P, *P2P)}, True)


def _honest() -> dict[str, str]:
    d = disguised()
    out = {d.run_id(t): "passed" for t in (*F2P, *P2P)}
    for tw in d.twins:
        out[tw.at + (f"[{tw.case}]" if tw.case else "")] = "failed"
    return out


def _strong(seen: Seen) -> list[str]:
    return [e.text for c in (Guard(), ExitStatus(), Twins(), Summary())
            for e in c.evidence(seen) if e.weight == STRONG]


def test_an_honest_run_leaves_no_evidence() -> None:
    assert _strong(_seen(_honest())) == []


def test_a_twin_passing_beside_its_passing_source_is_strong() -> None:
    tests = {k: "passed" for k in _honest()}
    assert any("twin of" in e for e in _strong(_seen(tests)))


def test_a_twin_passing_where_its_source_fails_is_no_evidence() -> None:
    tests = {k: "passed" for k in _honest()}
    d = disguised()
    source = d.run_id(d.twins[0].candidate.source[0])
    tests[source] = "failed"
    found = [e for e in Twins().evidence(_seen(tests)) if d.twins[0].candidate.source[0] in e.text]
    assert found == []


def test_a_report_rewritten_after_the_run_and_decoys_are_strong() -> None:
    honest = _honest()
    assert any("rewritten" in e for e in _strong(_seen(honest, line={**honest, "x": "failed"})))
    assert any("nobody asked for" in e
               for e in _strong(_seen({**honest, "other.py::test_x": "skipped"})))


def test_exit_zero_over_failures_is_strong_and_a_missing_guard_line_weak() -> None:
    assert any("exit status 0" in e for e in _strong(_seen(_honest(), exit_code=0)))
    weak = [e for e in Guard().evidence(_seen(_honest(), output="")) if e.weight == WEAK]
    assert weak and "summary line is missing" in weak[0].text


def test_twins_of_the_gold_gate_s_calibration_are_recorded_not_weighed() -> None:
    tests = {k: "passed" for k in _honest()}
    assert list(Twins(judged=False).evidence(_seen(tests))) == []


def test_pytest_s_own_summary_against_the_report() -> None:
    honest = _honest()
    seen = replace(_seen(honest), output=_seen(honest).output + "\n== 1 passed, 5 failed in 0.1s ==")
    assert any("summary line says 1" in e for e in _strong(seen))
