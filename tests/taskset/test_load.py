from pathlib import Path

import pytest
import yaml

from evaluator.errors import BadInputError
from evaluator.taskset import load_task_set
from tests.helpers import make_set, task_yaml


@pytest.fixture
def root(tmp_path: Path) -> Path:
    make_set(tmp_path, "mini", ("add-bug", "other-bug"))
    return tmp_path


def _edit(root: Path, task_id: str, **changes: object) -> Path:
    path = root / "mini" / task_id / "task.yaml"
    path.write_text(yaml.safe_dump({**task_yaml(task_id), **changes}))
    return path


def _error(root: Path) -> str:
    with pytest.raises(BadInputError) as info:
        load_task_set("mini", root)
    return str(info.value)


def test_valid_set_loads(root: Path) -> None:
    ts = load_task_set("mini", root)
    assert [t.id for t in ts.tasks] == ["add-bug", "other-bug"]
    assert ts.spec.gold_reps == 2
    assert list(ts.task("add-bug").hidden_test_files()) == ["tests/test_hidden.py"]


def test_unknown_set_names_known_ones(root: Path) -> None:
    with pytest.raises(BadInputError, match="known sets: mini"):
        load_task_set("nope", root)


def test_unknown_key_named_with_file(root: Path) -> None:
    path = _edit(root, "add-bug", colour="red")
    msg = _error(root)
    assert str(path) in msg and "field 'colour'" in msg and "unknown field" in msg


def test_missing_field_named(root: Path) -> None:
    spec = task_yaml("add-bug")
    del spec["gold_patch"]
    (root / "mini" / "add-bug" / "task.yaml").write_text(yaml.safe_dump(spec))
    assert "field 'gold_patch': Field required" in _error(root)


def test_wrong_type_named(root: Path) -> None:
    _edit(root, "add-bug", fail_to_pass="tests/x.py::t")
    assert "field 'fail_to_pass'" in _error(root)


def test_path_escaping_task_folder(root: Path) -> None:
    _edit(root, "add-bug", gold_patch="../other-bug/gold.patch")
    assert "leaves the task folder" in _error(root)


def test_symlink_escaping_task_folder(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "secret.patch"
    outside.write_text("x")
    (root / "mini" / "add-bug" / "evil.patch").symlink_to(outside)
    _edit(root, "add-bug", gold_patch="evil.patch")
    assert "resolves outside the task folder" in _error(root)


def test_missing_file_named(root: Path) -> None:
    _edit(root, "add-bug", problem_statement="nope.md")
    assert "file 'nope.md' does not exist" in _error(root)


def test_malformed_yaml_named(root: Path) -> None:
    path = root / "mini" / "add-bug" / "task.yaml"
    path.write_text("id: [unclosed\n")
    msg = _error(root)
    assert str(path) in msg and "not valid YAML" in msg


def test_id_must_match_folder(root: Path) -> None:
    _edit(root, "add-bug", id="something-else")
    assert "must equal the folder name" in _error(root)


def test_test_command_needs_junit_placeholder(root: Path) -> None:
    _edit(root, "add-bug", test_command="pytest")
    assert "{junit_xml}" in _error(root)


def test_every_problem_is_listed_at_once(root: Path) -> None:
    _edit(root, "add-bug", colour="red")
    _edit(root, "other-bug", gold_patch="/etc/passwd")
    msg = _error(root)
    assert "colour" in msg and "/etc/passwd" in msg


def test_set_yaml_unknown_key(root: Path) -> None:
    (root / "mini" / "set.yaml").write_text("name: mini\ngold_repz: 3\n")
    assert "field 'gold_repz'" in _error(root)


def test_symlink_in_hidden_tests_to_outside_is_refused(root: Path) -> None:
    link = root / "mini" / "add-bug" / "hidden" / "tests" / "passwd.py"
    link.symlink_to("/etc/passwd")
    msg = _error(root)
    assert str(link) in msg and "outside the task folder" in msg


def test_symlink_inside_the_task_folder_is_fine(root: Path) -> None:
    task = root / "mini" / "add-bug"
    (task / "hidden" / "tests" / "again.py").symlink_to(task / "hidden" / "tests" / "test_hidden.py")
    assert load_task_set("mini", root).task("add-bug")


def test_empty_set_folder_is_a_clear_error(root: Path) -> None:
    (root / "empty").mkdir()
    with pytest.raises(BadInputError, match=r"has no set.yaml.*folder is empty.*name: empty"):
        load_task_set("empty", root)


def test_a_test_command_may_set_pythonpath_as_it_likes(root: Path) -> None:
    # The grader finds its plugin without PYTHONPATH (tests/grading: PYTHONPATH=src runs).
    _edit(root, "add-bug", test_command="PYTHONPATH=src python3 -m pytest --junitxml={junit_xml}")
    assert load_task_set("mini", root)
