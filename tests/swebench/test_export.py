from __future__ import annotations

from pathlib import Path

from evaluator.swebench._export import Outcome, instance_report
from evaluator.swebench._hidden import hidden_files
from evaluator.swebench._instances import diff_files, official_command
from evaluator.taskset import Task, load_task_set
from tests.helpers import make_set
from tests.records import grade_record, result_record


def _task(tmp_path: Path) -> Task:
    make_set(tmp_path, "mini", ("add-bug",))
    return load_task_set("mini", tmp_path).task("add-bug")


def test_report_entry_lists_required_tests_by_kind_without_the_dropped(tmp_path: Path) -> None:
    task = _task(tmp_path)
    f2p, (p2p_a, p2p_b) = task.spec.fail_to_pass[0], task.spec.pass_to_pass
    grade = grade_record(False, **{f2p: "passed", p2p_a: "failed", p2p_b: "passed"})
    entry = instance_report(Outcome(task, "diff", result_record(False), grade), {p2p_a: "flaky"})
    assert entry["patch_successfully_applied"] and not entry["resolved"]
    assert entry["tests_status"]["FAIL_TO_PASS"] == {"success": [f2p], "failure": []}
    assert entry["tests_status"]["PASS_TO_PASS"] == {"success": [p2p_b], "failure": []}
    none = instance_report(Outcome(task, None, None, None), {})
    assert none["patch_is_None"] and not none["patch_exists"] and "tests_status" not in none


def test_official_command_has_no_junit_placeholder_and_asks_for_the_summary(tmp_path: Path
                                                                           ) -> None:
    cmd = official_command(_task(tmp_path))
    assert "{junit_xml}" not in cmd and "--junitxml" not in cmd and "pytest -rA" in cmd


def test_a_test_patch_made_from_hidden_files_gives_them_back() -> None:
    base = {"tests/test_a.py": b"def test_a():\n    pass\n"}
    new = {"tests/test_a.py": b"def test_a():\n    assert 1\n", "tests/test_b.py": b"x = 1\n"}
    patch = diff_files(base, new)

    class Base:
        def read(self, commit: str, paths: list[str]) -> dict[str, bytes]:
            return {p: base[p] for p in paths if p in base}

    assert hidden_files(patch, "abc", Base()) == new


def test_the_environment_goes_out_before_the_tests_and_comes_back_as_activate(
        tmp_path: Path) -> None:
    from evaluator.swebench import command_for
    from evaluator.swebench._instances import eval_script
    from tests.helpers import make_task

    act = ". /opt/miniconda3/bin/activate && conda activate testbed"
    make_task(make_set(tmp_path, "mini", ()), "t", activate=act)
    task = load_task_set("mini", tmp_path).task("t")
    script = eval_script(task, "abc", [], "")
    back = command_for({"eval_script": script, "log_parser": "parse_log_pytest"}, [])
    assert back.activate == act and act not in back.test_command


def test_a_patch_that_does_not_apply_is_an_error_that_says_why(tmp_path: Path) -> None:
    grade = grade_record("patch_failed").model_copy(update={
        "detail": "git apply failed: error: patch failed: calc.py:1\nerror: calc.py: patch "
                  "does not apply"})
    entry = instance_report(Outcome(_task(tmp_path), "diff", result_record(False), grade), {})
    assert not entry["patch_successfully_applied"] and "tests_status" not in entry
    assert entry["evaluator_why"] == ("the patch does not apply at the base commit (error: patch "
                                      "failed: calc.py:1; error: calc.py: patch does not apply)")


def test_a_skipped_pass_to_pass_test_is_a_success_only_where_the_official_harness_keeps_it(
        tmp_path: Path) -> None:
    task = _task(tmp_path)
    f2p, (p2p_a, p2p_b) = task.spec.fail_to_pass[0], task.spec.pass_to_pass
    grade = grade_record(False, **{f2p: "passed", p2p_a: "skipped", p2p_b: "skipped"})
    entry = instance_report(Outcome(task, "diff", result_record(False), grade, (p2p_b,)), {})
    assert entry["tests_status"]["PASS_TO_PASS"] == {"success": [p2p_b], "failure": [p2p_a]}
