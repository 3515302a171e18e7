"""The layering's contracts (pyproject.toml, checked by `make lint`) name every package."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _contract(contract_id: str) -> dict[str, object]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    return next(c for c in config["contracts"] if c["id"] == contract_id)


def test_every_package_and_module_of_the_harness_has_a_layer() -> None:
    layers = _contract("layers")["layers"]
    assert isinstance(layers, list)
    named = {m.strip() for layer in layers for m in layer.split("|")}
    package = ROOT / "evaluator"
    present = {f"evaluator.{p.stem}" for p in package.glob("*.py") if p.name != "__init__.py"}
    present |= {f"evaluator.{p.parent.name}" for p in package.glob("*/__init__.py")}
    assert present - named == set(), "add each new package to a layer in pyproject.toml"
    assert named - present == set(), "a layer names a package that is gone"


def test_the_readme_layout_names_every_package_in_its_layer() -> None:
    # README's Layout lists the packages top layer first, one line per layer, as the contract.
    readme = (ROOT / "README.md").read_text()
    block = readme.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    listed = block.split("evaluator/", 1)[1]
    layers = _contract("layers")["layers"]
    assert isinstance(layers, list)
    words = set(listed.replace("|", " ").split())
    missing = sorted(m.strip().removeprefix("evaluator.") for layer in layers
                     for m in layer.split("|")
                     if m.strip().removeprefix("evaluator.") not in words)
    assert missing == [], "name these packages in README.md's Layout, in their layer's line"


def _imported(path: Path) -> set[str]:
    """Every module a file imports by absolute name, and `package.name` for `from package
    import name` (which may be a module)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
    return names


def test_no_test_file_imports_a_conftest_or_a_test_module() -> None:
    # Shared helpers live in support modules (tests/helpers.py, tests/<pkg>/support.py...):
    # a conftest imported as a module runs twice under two names, a test module imported by
    # another has its tests collected twice.
    wrong = sorted(f"{path.relative_to(ROOT)}: {name}" for path in (ROOT / "tests").rglob("*.py")
                   for name in _imported(path) if name.startswith("tests.")
                   and (name.rsplit(".", 1)[-1] == "conftest"
                        or name.rsplit(".", 1)[-1].startswith("test_")))
    assert wrong == [], "move what they share into a support module"


def _is_fixture(node: ast.FunctionDef) -> bool:
    for d in node.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        if ast.unparse(target) in ("pytest.fixture", "fixture"):
            return True
    return False


def test_conftests_hold_only_fixtures_and_hooks() -> None:
    wrong = []
    for path in (ROOT / "tests").rglob("conftest.py"):
        for node in ast.parse(path.read_text(), str(path)).body:
            if isinstance(node, ast.ClassDef) or (
                    isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                    and not node.name.startswith("pytest_")
                    and not (isinstance(node, ast.FunctionDef) and _is_fixture(node))):
                wrong.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert wrong == [], "a helper that is not a fixture belongs in a support module"
