"""Part of the cheat battery on podman (rootful and rootless) and on the daemonless backend (the
src layout with its root conftest): gold resolves and empty does not, and the families that lean
on the sandbox itself (a detached process, a rewritten report, a .pth start-up file) resolve
nothing there either."""

import pytest

from evaluator.grading import DockerGrader
from tests.grading.cheats import CHEATS
from tests.grading.support import make_layout_case

pytestmark = pytest.mark.docker

# What leans on the sandbox rather than on the grader's own code: a process left behind, a
# rewritten report, a .pth start-up file in the repository.
_FAMILIES = ("detached_rewrite", "junit_writer_swapped", "pth_file")


@pytest.fixture(scope="module")
def shop(docker_client, base_image, tmp_path_factory):
    return make_layout_case("shop", docker_client, base_image, tmp_path_factory)


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
def test_cheat_does_not_resolve_there(other, shop, cheat: str) -> None:
    (_, grader), (lay, spec, hidden) = other, shop
    patch, allowed = CHEATS[cheat](lay)
    out = grader.grade(spec, patch.encode(), hidden)
    assert not out.resolved and out.outcome in allowed, f"{out.outcome}: {out.detail}"
