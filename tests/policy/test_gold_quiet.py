"""No finding at all on honest gold patches: the demo set's and the real-repository fixtures'."""

import shutil
import subprocess
from pathlib import Path

import pytest

from evaluator.grading import patch_paths
from evaluator.policy import scan_patch
from tests.grading.layouts import LAYOUTS
from tests.helpers import GOLD
from tests.repos import AWKWARD_GOLD, big_gold
from tests.swebench.fixtures import BUG_FILE
from tests.swebench.fixtures import GOLD as SWE_GOLD
from tests.swebench.suites import FAMILIES, build

_ROOT = Path(__file__).resolve().parents[2]
_FIXTURES = {"helpers": GOLD, "big": big_gold(), "awkward": AWKWARD_GOLD,
             **{f"layout-{lay.name}": lay.gold for lay in LAYOUTS},
             **{f"swebench-{s}": SWE_GOLD.format(path=p) for s, p in BUG_FILE.items()}}


@pytest.mark.parametrize("path", sorted((_ROOT / "tasks").glob("*/*/gold.patch")), ids=str)
def test_the_task_sets_gold_patches_raise_nothing(path: Path) -> None:
    assert scan_patch(path.read_bytes()) == []


@pytest.mark.parametrize("name", sorted(_FIXTURES))
def test_the_fixtures_gold_patches_raise_nothing(name: str) -> None:
    assert scan_patch(_FIXTURES[name].encode()) == []


@pytest.mark.parametrize("path", sorted((_ROOT / "tasks").glob("*/*/gold.patch")), ids=str)
def test_and_nothing_when_read_whole_after_applying_them(path: Path, tmp_path: Path) -> None:
    shutil.copytree(path.parent / "repo", tmp_path / "repo")
    subprocess.run(["git", "apply", str(path)], cwd=tmp_path / "repo", check=True)
    sources = {p: (tmp_path / "repo" / p).read_bytes() for p in patch_paths(path.read_bytes())
               if (tmp_path / "repo" / p).is_file()}
    assert sources and scan_patch(path.read_bytes(), sources) == []


@pytest.fixture(scope="module")
def upstream_shaped(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, str, dict[str, bytes]]]:
    """(instance, gold patch, its files read whole after applying it) for every upstream-shaped
    family (sympy's runner, Django's, src layouts, pytest testing pytest, unittest)."""
    out = []
    for family in FAMILIES:
        root = tmp_path_factory.mktemp(family.name)
        _, _, patches = build(root, family)
        repo = root / family.name / "repo"
        for iid, p in patches.items():
            subprocess.run(["git", "apply"], input=p["gold"].encode(), cwd=repo, check=True)
            paths = patch_paths(p["gold"].encode())
            out.append((iid, p["gold"], {q: (repo / q).read_bytes() for q in paths}))
            subprocess.run(["git", "checkout", "-q", "."], cwd=repo, check=True)
    return out


def test_the_upstream_shaped_fixtures_gold_patches_raise_nothing(upstream_shaped) -> None:
    assert len(upstream_shaped) >= 2 * len(FAMILIES)
    found = {iid: scan_patch(gold.encode(), sources) + scan_patch(gold.encode())
             for iid, gold, sources in upstream_shaped}
    assert {iid: f for iid, f in found.items() if f} == {}
