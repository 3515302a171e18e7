"""The `seal` contract: what the leaky repository of tests/repos.py shows inside a sandbox sealed
at its base commit and at its first commit, and what the lock's history of it says."""

from __future__ import annotations

from typing import Any

import docker
import pytest

from evaluator.images import inspect_history
from evaluator.sandbox import DockerSandboxes, SandboxLimits
from tests.contracts.golden import check
from tests.repos import LEAKY_FIX, build_leaky_image

pytestmark = pytest.mark.docker

# What an agent could ask git and the file system about the repository's past and future.
LOOK = (
    "git log --all --format='%H %s'; echo ---; git for-each-ref; echo ---; "
    "git reflog show --all | wc -l; git stash list; git notes list; git replace -l; "
    "git worktree list | wc -l; echo ---; git status --porcelain; git rev-parse HEAD; "
    "git symbolic-ref -q HEAD; cat .git/HEAD; ls -A; echo ---; ls -A .git | sort; "
    "ls .git/objects/info 2>&1; cat .git/shallow .git/FETCH_HEAD .git/ORIG_HEAD 2>&1; "
    "ls -A /srv 2>&1; echo ---; "
    "git cat-file --batch-all-objects --batch-check='%(objecttype) %(objectname)' | sort"
)


def _look(sandboxes: DockerSandboxes, image: str, base: str) -> str:
    with sandboxes.open(image, SandboxLimits(), base_commit=base, purpose="test") as sb:
        return sb.exec(LOOK, timeout_s=120).output


def test_a_sealed_repository_shows_what_the_seal_contract_recorded(
        docker_client: docker.DockerClient, sandboxes: DockerSandboxes, base_image: str) -> None:
    image = build_leaky_image("evaluator-test/leaky:1", base_image)
    git = docker_client.containers.run(image, "sh -c 'git rev-parse main; "
                                       "git rev-list --max-parents=0 main'", remove=True,
                                       network_mode="none").decode().split()
    base, first = git[0], git[1]
    observed: dict[str, Any] = {
        "at-base": _look(sandboxes, image, base),
        "at-first-commit": _look(sandboxes, image, first),
        "history": inspect_history(docker_client, image, "/testbed", base,
                                   LEAKY_FIX.encode()).to_dict(),
    }
    check("seal", "leaky-repository", observed)
