"""The re-run finds and reads pytest's config as the task's pytest does: upward from the test
paths, in pytest's order of precedence, pytest 9's TOML files with their lists, and says it
cannot run where this Python cannot read them. Each test starts the runner for real."""

from pathlib import Path

from tests.grading.support import ID, INI, PROJECT, TOML, rerun_in
from tests.helpers import write_files


def project(root: Path, **configs: str) -> Path:
    write_files(root, {**PROJECT, **configs})
    return root


def status(root: Path, args: list[str] | None = None, *, pytest_version: str = "",
           tomllib: bool = True) -> str:
    got = rerun_in(root, [ID], ["tests"] if args is None else args,
                   pytest_version=pytest_version, tomllib=tomllib)
    return got[ID][0]


def test_a_pytest_toml_is_read_with_its_lists(tmp_path: Path) -> None:
    plain = TOML.format(opts='"-p", "no:cacheprovider"')
    assert status(project(tmp_path / "a", **{"pytest.toml": plain})) == "passed"
    hidden = project(tmp_path / "b", **{".pytest.toml": TOML.format(opts='"-p", "xdist"')})
    assert status(hidden) == "unrunnable"  # its addopts load a plugin
    strings = TOML.format(opts="").replace('["src"]', '"src"')
    assert status(project(tmp_path / "c", **{"pytest.toml": strings})) == "unrunnable"


def test_a_config_in_a_folder_above_the_tests_is_found(tmp_path: Path) -> None:
    write_files(tmp_path, {"pytest.ini": "[pytest]\naddopts = -p xdist\n",
                           "conftest.py": "raise RuntimeError('above the rootdir')\n"})
    proj = project(tmp_path / "proj", **{"pytest.ini": INI})
    assert status(tmp_path, ["proj/tests"]) == "passed"  # ids are the rootdir's (proj)
    assert status(proj / "tests", []) == "passed"  # up from the working directory


def test_a_pyproject_tool_pytest_table_is_read(tmp_path: Path) -> None:
    table = TOML.format(opts='"-q"').replace("[pytest]", "[tool.pytest]")
    assert status(project(tmp_path / "a", **{"pyproject.toml": table})) == "passed"
    both = table + '[tool.pytest.ini_options]\naddopts = "-q"\n'
    assert status(project(tmp_path / "b", **{"pyproject.toml": both})) == "unrunnable"
    # pytest 8 reads only [tool.pytest.ini_options]: no path, so the import fails
    old = status(project(tmp_path / "c", **{"pyproject.toml": table}), pytest_version="8.4.2")
    assert old == "error"


def test_pytest_ini_beats_pyproject_and_tox_ini_needs_its_section(tmp_path: Path) -> None:
    plugin = '[tool.pytest.ini_options]\naddopts = "-p xdist"\n'
    assert status(project(tmp_path / "a", **{"pytest.ini": INI, "pyproject.toml": plugin})) == (
        "passed")
    empty = project(tmp_path / "b", **{"pytest.ini": "", "pyproject.toml": plugin})
    assert status(empty) == "error"  # an empty pytest.ini still wins: no pythonpath
    cfg = INI.replace("[pytest]", "[tool:pytest]")
    assert status(project(tmp_path / "c", **{"tox.ini": "[tox]\n", "setup.cfg": cfg})) == "passed"


def test_pytest_toml_counts_from_pytest_9_only(tmp_path: Path) -> None:
    root = project(tmp_path, **{"pytest.toml": TOML.format(opts='"-p", "xdist"'),
                                "pytest.ini": INI})
    assert status(root) == "unrunnable"
    assert status(root, pytest_version="8.4.2") == "passed"


def test_toml_this_python_cannot_read_is_unrunnable_not_a_failure(tmp_path: Path) -> None:
    toml = project(tmp_path / "a", **{"pytest.toml": TOML.format(opts="")})
    assert status(toml, tomllib=False) == "unrunnable"
    assert "TOML" in rerun_in(toml, [ID], ["tests"], tomllib=False)[ID][1]
    other = '[project]\ndependencies = ["pytest>=7"]\n\n[tool.ruff]\nline-length = 99\n'
    fine = project(tmp_path / "b", **{"pyproject.toml": other,
                                      "tox.ini": INI})
    assert status(fine, tomllib=False) == "passed"  # no pytest table it could hold


def test_an_option_s_value_is_no_test_path(tmp_path: Path) -> None:
    write_files(tmp_path, {"pytest.ini": "[pytest]\naddopts = -p xdist\n", "out/j.xml": ""})
    proj = project(tmp_path / "proj", **{"pytest.ini": INI})
    assert status(proj, ["--junitxml", str(tmp_path / "out/j.xml"), "tests"]) == "passed"
    assert status(proj, ["--junitxml", str(tmp_path / "out/j.xml"), "-o", "usefixtures=",
                         "tests"]) == "failed"  # and -o overrides the file


def test_without_a_config_file_pytest_before_7_4_loads_conftests_above_the_rootdir(
        tmp_path: Path) -> None:
    write_files(tmp_path, {"conftest.py": "import os, sys\nos.environ['MARKED'] = '1'\n"
                           f"sys.path.insert(0, {str(tmp_path / 'proj/src')!r})\n"})
    proj = project(tmp_path / "proj")
    assert status(proj) == "error"  # the rootdir (proj) cuts it off: no `lib`
    assert status(proj, pytest_version="7.3.2") == "passed"
