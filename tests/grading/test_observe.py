"""The second look: pytest's own summary and the re-run, read against what the report says."""

import json

from evaluator.grading._canary import Canaries, Twin
from evaluator.grading._observe import Looked, rerun, rerun_results, terminal

TESTS = {"t.py::a": "passed", "t.py::b": "failed", "t.py::c": "passed"}
SUMMARY = ("=== short test summary info ===\nFAILED t.py::b - assert 1 == 2\n"
           "========= 1 failed, 2 passed in 0.12s =========\n")
C = Canaries("n", (Twin("t.py::c", "t.py::a", True),), {})


def looked_terminal(output: str, tests=TESTS) -> Looked:
    out = Looked()
    terminal(output, tests, out)
    return out


def test_an_honest_summary_agrees() -> None:
    out = looked_terminal("noise\n" + SUMMARY)
    assert out.strong == [] and out.weak == [] and out.notes == []


def test_more_passes_in_the_report_than_pytest_counted_is_strong() -> None:
    out = looked_terminal(SUMMARY, {**TESTS, "t.py::b": "passed"})
    assert any("3 passed tests, pytest's own summary line says 2" in s for s in out.strong)
    assert any("t.py::b" in s for s in out.strong)


def test_quiet_summaries_and_none_at_all() -> None:
    assert looked_terminal("1 failed, 2 passed in 0.01s\n").strong == []
    assert looked_terminal("1 failed, 1 passed in 0.01s\n").strong
    assert looked_terminal("nothing here\n").notes


def rerun_output(*records, nonce="n", done=True) -> str:
    lines = [f"@@evaluator-rerun {nonce} {json.dumps(r)}" for r in records]
    return "\n".join(lines + ([f'@@evaluator-rerun {nonce} {{"done": 2}}'] if done else []))


def looked_rerun(output: str, tests=None) -> Looked:
    out = Looked()
    rerun(rerun_results(output, "n"), ["t.py::a", "t.py::c"], ("t.py::a",), tests or TESTS, C,
          out)
    return out


def test_a_fail_to_pass_test_failing_in_the_rerun_is_weak_evidence() -> None:
    out = looked_rerun(rerun_output({"id": "t.py::a", "status": "failed", "why": "AssertionError"},
                                    {"id": "t.py::c", "status": "failed", "why": ""}))
    assert out.strong == [] and "t.py::a failed (AssertionError)" in out.weak[0]


def test_agreement_and_what_could_not_run() -> None:
    ok = looked_rerun(rerun_output({"id": "t.py::a", "status": "passed"},
                                   {"id": "t.py::c", "status": "failed"}))
    assert ok.strong == ok.weak == ok.notes == []
    out = looked_rerun(rerun_output({"id": "t.py::a", "status": "unrunnable", "why": "a hook"},
                                    {"id": "t.py::c", "status": "unrunnable", "why": "a hook"}))
    assert out.weak == [] and out.notes == ["not re-run: t.py::a: a hook"]


def test_a_twin_passing_with_its_source_in_the_rerun_is_strong() -> None:
    out = looked_rerun(rerun_output({"id": "t.py::a", "status": "passed"},
                                    {"id": "t.py::c", "status": "passed"}))
    assert out.strong and "in the re-run" in out.strong[0]


def test_lines_from_someone_else_and_a_cut_rerun() -> None:
    out = looked_rerun(rerun_output({"id": "t.py::a", "status": "failed"},
                                    {"id": "t.py::a", "status": "passed"},
                                    {"id": "t.py::c", "status": "failed"}))
    assert out.strong and "two different results" in out.strong[0]
    out = looked_rerun(rerun_output({"id": "t.py::a", "status": "passed"}, done=False))
    assert any("1 of its 2 tests and did not finish" in w for w in out.weak)
    other = looked_rerun(rerun_output({"id": "t.py::a", "status": "passed"}, nonce="x"))
    assert any("0 of its 2" in w for w in other.weak), "another grade's lines do not count"


def test_a_test_flaky_in_the_rerun_is_a_note() -> None:
    out = looked_rerun(rerun_output({"id": "t.py::a", "status": "flaky", "why": "then passed"},
                                    {"id": "t.py::c", "status": "failed"}))
    assert out.strong == out.weak == [] and out.notes == ["flaky in the re-run: t.py::a: then passed"]
