"""The seal: an agent's sandbox shows the repository at its base commit and nothing after it,
whatever command or reader looks (tests/repos.py's leaky image holds every kind of later work)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import docker
import pytest

from evaluator.attempts._run import start_tree
from evaluator.images import SEALED_REPO, inspect_history, seal_tag, sealed_image
from evaluator.sandbox import DockerSandboxes, SandboxLimits
from tests.repos import LEAK_MARK, LEAKY_FIX, build_leaky_image

pytestmark = pytest.mark.docker

# What an agent (or a library reading .git directly) could run to find later work.
_LOOK = r"""
git log --all --format='%H %s %b'; git log --branches --remotes --tags --format=%H
git rev-list --all --reflog --objects; git reflog show --all; git for-each-ref; git show-ref
git tag -l -n9; git branch -a -v; git stash list; git notes list; git replace -l
git worktree list; git count-objects -v
git show v2.0 v2.1 fix origin/main stash refs/notes/commits ORIG_HEAD FETCH_HEAD 2>&1
git fsck --lost-found --unreachable --dangling --no-reflogs 2>&1; cat .git/lost-found/*/* 2>&1
git cat-file --batch-all-objects --batch
for i in .git/objects/pack/*.idx; do git show-index < "$i"; done
cat .git/packed-refs .git/FETCH_HEAD .git/ORIG_HEAD .git/shallow .git/objects/info/* 2>&1
ls -laR /srv /testbed/.git 2>&1
python3 - <<'EOF'
import binascii, os, zlib
for top in ("/testbed/.git", "/srv"):
    for d, _, names in os.walk(top):
        for n in names:
            data = open(os.path.join(d, n), "rb").read()
            print(os.path.join(d, n), binascii.hexlify(data).decode())
            try:
                print(zlib.decompress(data).decode("latin-1"))
            except zlib.error:
                print(data.decode("latin-1"))
EOF
"""


@pytest.fixture(scope="module")
def leaky(docker_client: docker.DockerClient, base_image: str) -> Iterator[dict[str, object]]:
    """The leaky image, its base and first commits, and every object past the base's history."""
    image = build_leaky_image("evaluator-test/leaky:1", base_image)

    def git(script: str) -> str:
        return subprocess.run(["docker", "run", "--rm", "--network", "none", "-e",
                               "GIT_NO_REPLACE_OBJECTS=1", image, "sh", "-c", script],
                              check=True, capture_output=True, text=True).stdout
    base = git("git rev-parse main").strip()
    first = git(f"git rev-list --max-parents=0 {base}").strip()
    everything = set(git("git cat-file --batch-all-objects --batch-check=%\\(objectname\\)").split())
    history = set(git(f"git rev-list --objects {base} v0.1 v0.2 | cut -d' ' -f1").split())
    yield {"image": image, "base": base, "first": first, "later": everything - history}
    for commit in (base, first):  # only the seals this module made; the image stays cached
        subprocess.run(["docker", "rmi", seal_tag(image, "/testbed", commit)],
                       capture_output=True)


def _look(sandboxes: DockerSandboxes, leaky: dict[str, object], base: str) -> str:
    with sandboxes.open(str(leaky["image"]), SandboxLimits(), base_commit=base,
                        purpose="test") as sb:
        return sb.exec(_LOOK, timeout_s=120).output


def test_the_image_really_holds_later_work(leaky: dict[str, object]) -> None:
    assert len(leaky["later"]) >= 12  # type: ignore[arg-type]
    seen = subprocess.run(["docker", "run", "--rm", "--network", "none", str(leaky["image"]),
                           "sh", "-c", _LOOK], capture_output=True).stdout.decode("latin-1")
    assert LEAK_MARK in seen and all(sha in seen for sha in leaky["later"])  # type: ignore


def test_an_agent_sees_nothing_after_the_base_commit(sandboxes: DockerSandboxes,
                                                     leaky: dict[str, object]) -> None:
    seen = _look(sandboxes, leaky, str(leaky["base"]))
    assert LEAK_MARK not in seen
    assert [sha for sha in leaky["later"] if sha in seen] == []  # type: ignore[attr-defined]


def test_the_history_up_to_the_base_stays(sandboxes: DockerSandboxes,
                                          leaky: dict[str, object]) -> None:
    with sandboxes.open(str(leaky["image"]), SandboxLimits(), base_commit=str(leaky["base"]),
                        purpose="test") as sb:
        out = sb.exec("git log --format=%s; git tag; git blame -s calc.py | wc -l; "
                      "git status --porcelain; git rev-parse --abbrev-ref HEAD").output
        tree = start_tree(sb, "/testbed", str(leaky["base"]))
    assert out.split() == ["second", "first", "v0.1", "v0.2", "2", "main"], out
    assert len(tree) == 40


def test_an_earlier_base_checks_its_tree_out_and_hides_the_later_head(
        sandboxes: DockerSandboxes, leaky: dict[str, object]) -> None:
    seen = _look(sandboxes, leaky, str(leaky["first"]))
    assert str(leaky["base"]) not in seen and LEAK_MARK not in seen
    with sandboxes.open(str(leaky["image"]), SandboxLimits(), base_commit=str(leaky["first"]),
                        purpose="test") as sb:
        out = sb.exec("git log --all --format=%s; ls; git status --porcelain").output
    assert out.split() == ["first", "VERSION", "calc.py"], out


def test_a_seal_is_made_once_and_a_clean_image_is_its_own_seal(
        docker_client: docker.DockerClient, leaky: dict[str, object]) -> None:
    image, base = str(leaky["image"]), str(leaky["base"])
    sealed = sealed_image(docker_client, image, "/testbed", base)
    assert sealed != image and sealed_image(docker_client, image, "/testbed", base) == sealed
    assert docker_client.images.get(seal_tag(image, "/testbed", base)).id == sealed
    assert seal_tag(image, "/testbed", base).startswith(SEALED_REPO + ":")
    # The seal shows nothing to hide, so it seals to itself: no image is derived twice.
    assert sealed_image(docker_client, sealed, "/testbed", base) == sealed
    docker_client.images.remove(seal_tag(sealed, "/testbed", base))


def test_the_inspection_finds_every_kind_of_leak(docker_client: docker.DockerClient,
                                                 leaky: dict[str, object]) -> None:
    found = inspect_history(docker_client, str(leaky["image"]), "/testbed", str(leaky["base"]),
                            LEAKY_FIX.encode()).to_dict()
    kinds = found["findings"]
    assert {"ref", "packed-ref", "reflog", "state", "alternates", "shallow", "objects"} <= set(kinds)
    refs = " ".join(kinds["ref"])
    for ref in ("refs/heads/fix", "refs/tags/v2.0", "refs/tags/v2.1", "refs/remotes/origin/main",
                "refs/stash", "refs/notes/commits", "refs/replace/"):
        assert ref in refs
    assert "v0.1" not in refs and "v0.2" not in refs  # tags on the base's history are kept
    assert found["later_commits"] >= 6 and found["leaks"]
    [gold] = found["gold"]
    assert gold["in_objects"] and not gold["in_history"] and not gold["in_tree"]
