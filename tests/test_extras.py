"""pyproject.toml names every import; each extra has a hashed lock at the dev lock's pins."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _named(reqs: list[str]) -> set[str]:
    return {_norm(Requirement(r).name) for r in reqs}


def _imports(files: list[Path]) -> set[str]:
    """Top-level names of the modules `files` import, outside the standard library."""
    found = set()
    for f in files:
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.Import):
                found |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return found - set(sys.stdlib_module_names) - {"evaluator", "__future__"}


def _unnamed(modules: set[str], named: set[str]) -> list[str]:
    """Modules none of whose distributions is in `named` (mlflow's module comes in three)."""
    by_module = metadata.packages_distributions()
    missing = modules - set(by_module)
    assert not missing, f"imported but installed by no distribution: {sorted(missing)}"
    return sorted(m for m in modules if not {_norm(d) for d in by_module[m]} & named)


def test_pyproject_names_every_distribution_the_package_imports() -> None:
    package = [f for f in (ROOT / "evaluator").rglob("*.py") if "_payload" not in f.parts]
    named = _named(PROJECT["dependencies"]).union(
        *(_named(r) for r in PROJECT["optional-dependencies"].values()))
    unnamed = _unnamed(_imports(package), named)
    assert not unnamed, f"name their distributions in pyproject.toml (or an extra): {unnamed}"


def test_the_bundled_scaffold_imports_only_its_extra_and_the_harness() -> None:
    glue = list((ROOT / "agents" / "mini-swe-agent").glob("*.py"))
    named = _named(PROJECT["dependencies"] + PROJECT["optional-dependencies"]["mini-swe-agent"])
    assert not _unnamed(_imports(glue), named)


def test_requirements_lock_pins_every_dependency_requirements_in_names() -> None:
    lines = [ln.split("#")[0].strip() for ln in (ROOT / "requirements.in").read_text().splitlines()]
    assert _named([ln for ln in lines if ln]) <= _named(PROJECT["dependencies"])
    pinned = {_norm(m) for m in re.findall(r"^([A-Za-z0-9_.\-]+)==", (ROOT / "requirements.lock")
                                             .read_text(), re.M)}
    assert _named(PROJECT["dependencies"]) <= pinned


def test_the_extra_locks_are_written_from_the_dev_lock() -> None:
    out = subprocess.run([sys.executable, str(ROOT / ".ci" / "lock-extras"), "--check"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


def test_every_lock_pins_what_the_dev_lock_pins() -> None:
    def pins(path: Path) -> dict[str, str]:
        return {_norm(m[0]): m[1] for m in re.findall(r"^([A-Za-z0-9_.\-\[\]]+)==(\S+)",
                                                      path.read_text(), re.M)}

    dev = pins(ROOT / "requirements-dev.lock")
    # requirements-build.lock: pip's build tools for the dev lock's sdist, installed by nobody.
    locks = set(ROOT.glob("requirements-*.lock")) - {ROOT / "requirements-build.lock"}
    for lock in [ROOT / "requirements.lock", *sorted(locks)]:
        differ = {n: (v, dev.get(n)) for n, v in pins(lock).items() if dev.get(n) != v}
        assert not differ, f"{lock.name} pins differ from requirements-dev.lock: {differ}"
    assert {f"requirements-{e}.lock" for e in PROJECT["optional-dependencies"]} == \
        {p.name for p in locks} - {"requirements-dev.lock"}
