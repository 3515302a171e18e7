"""Part of the cheat battery on podman (rootful and rootless) and on the daemonless backend (the
src layout with its root conftest, calibrated once on Docker: the calibration is the task's, not
the backend's): gold resolves and empty does not, and the families that lean on the sandbox
itself (a detached process, a rewritten report, a .pth start-up file, the second observation's
fresh sandbox and its supervisor, a marker carried between runs) resolve nothing there either.
The whole battery on one backend: `benchmarks/bench_integrity.py --backend daemonless`."""

import pytest

from evaluator.grading import DockerGrader
from evaluator.result import RESOLVED
from tests.grading.battery import grade
from tests.grading.cheats import CHEATS

pytestmark = pytest.mark.docker

# What leans on the sandbox rather than on the grader's own code: a process left behind, a
# rewritten report, a .pth start-up file in the repository; the second observation's sandbox,
# supervisor and varied run.
_FAMILIES = ("detached_rewrite", "junit_writer_swapped", "pth_file", "forge_published_ids",
             "second_look_results_rewritten", "marker_from_scored_run", "only_with_safe_path")


@pytest.fixture(scope="module")
def shop(layouts):
    return layouts("shop")


_FIXTURES = {"podman": "podman_sandboxes", "podman-rootless": "rootless_podman",
             "daemonless": "daemonless_sandboxes"}


@pytest.fixture(scope="module", params=sorted(_FIXTURES))
def other(request: pytest.FixtureRequest) -> tuple[str, DockerGrader]:
    """A backend other than Docker, and a grader on it."""
    name = request.param.removesuffix("-rootless")
    return name, DockerGrader(request.getfixturevalue(_FIXTURES[request.param]))


def test_gold_resolves_and_empty_does_not_there(other, shop) -> None:
    # Per-test statuses equal Docker's: tests/pipeline/test_backends_e2e.py (the gold gate).
    (backend, grader), (lay, spec, hidden) = other, shop
    gold, empty = (grader.grade(spec, patch, hidden) for patch in (lay.gold.encode(), b""))
    assert gold.resolved and not empty.resolved, (gold.detail, empty.detail)
    assert gold.backend["name"] == backend


@pytest.mark.parametrize("cheat", _FAMILIES)
def test_cheat_does_not_resolve_unflagged_there(other, shop, cheat: str) -> None:
    (_, grader), (lay, spec, hidden) = other, shop
    patch, allowed = CHEATS[cheat](lay)
    graded = grade(grader, spec, hidden, cheat, patch.encode())
    out = graded.outcome
    assert graded.status != RESOLVED and out.outcome in allowed, f"{out.outcome}: {out.detail}"
