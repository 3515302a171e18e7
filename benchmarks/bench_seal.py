"""A sandbox opened for an agent on an upstream-size repository against a 100 KB one, sealing
included, and what the seal costs once.

    .venv/bin/python benchmarks/bench_seal.py [--reps 7] [--commits 50000] [--kb-per-commit 8]
    .venv/bin/python benchmarks/bench_seal.py --smoke

It generates two clones with `git fast-import` (tests/repos.py `long_history_repo`) and builds
each into an image the way a user would (a Dockerfile that copies the clone, history included):

- upstream: 50,000 commits up to the base and about 330 MB of packed history (2,000 files, each
  commit rewriting one with text that does not compress away), 1,000 later commits on another
  branch and tags on both sides of the base: what an upstream clone past its base holds;
- small: the same shape at about 100 KB (20 commits, 10 files, 5 later commits).

Once per image, from no seal: `inspect` (what `doit lock:<set>` reports per task) and `seal`
(the derived image: a repository of only the base's history, one layer). Then, interleaved rep
by rep over both images:

- agent: `DockerSandboxes.open(image, base_commit=...)` (the seal's lookup included), what
  `run_attempt` does before the agent's first step (`start_tree`: the base checked, the tree
  recorded), an agent's first look (`git status`, `git log -5`), close (removal drained);
- open: the same open and close alone;
- unsealed: the agent figure on the image as it is (no seal), for the seal's cost per sandbox.

It prints medians, the ratios the goal is about (upstream / small for agent and open: goal 1.5x
or less) and sealed / unsealed, the one-time costs, and the load average before and after.

`--smoke`: an "upstream" of 200 commits of 1 KB (its image kept, as each size's is), one rep
and no warm-up: every step once, exiting non-zero when a seal shows later history or a step
fails.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import docker  # noqa: E402

from evaluator.attempts._run import start_tree  # noqa: E402
from evaluator.images import (  # noqa: E402
    BASE_TAG,
    ensure_base_image,
    inspect_history,
    seal_tag,
    sealed_image,
)
from evaluator.sandbox import DockerSandboxes, SandboxLimits  # noqa: E402
from evaluator.sandbox._removal import drain  # noqa: E402
from tests.repos import dockerfile, long_history_repo  # noqa: E402

_LIMITS = SandboxLimits(memory_mb=1024, disk_mb=512, exec_timeout_s=300)
_LOOK = "git status --short | head -5; git log --oneline -5"


def _image(client: docker.DockerClient, tag: str, base: str, **shape: float) -> tuple[str, str]:
    """(image id, base commit) of a generated clone; an image already tagged so is reused."""
    try:
        img = client.images.get(tag)
        return str(img.id), str(img.labels["bench.base"])
    except docker.errors.ImageNotFound:
        pass
    with tempfile.TemporaryDirectory() as ctx:
        t = time.perf_counter()
        sha = long_history_repo(Path(ctx) / "repo", **shape)  # type: ignore[arg-type]
        size = subprocess.run(["git", "-C", f"{ctx}/repo", "count-objects", "-vH"],
                              capture_output=True, text=True).stdout.split("size-pack: ")[1]
        print(f"{tag}: generated in {time.perf_counter() - t:.1f}s, packed history "
              f"{size.splitlines()[0]}", flush=True)
        (Path(ctx) / "Dockerfile").write_text(dockerfile(base) + f"LABEL bench.base={sha}\n")
        subprocess.run(["docker", "build", "-q", "--network", "none", "-t", tag, ctx], check=True,
                       capture_output=True, env={**os.environ, "DOCKER_BUILDKIT": "0"})
    return str(client.images.get(tag).id), sha


def _agent(sandboxes: DockerSandboxes, image: str, base: str, sealed: bool) -> float:
    t = time.perf_counter()
    with sandboxes.open(image, _LIMITS, purpose="bench",
                        base_commit=base if sealed else None) as sb:
        start_tree(sb, "/testbed", base)
        assert sb.exec(_LOOK).exit_code == 0
    drain()
    return time.perf_counter() - t


def _open(sandboxes: DockerSandboxes, image: str, base: str) -> float:
    t = time.perf_counter()
    sandboxes.open(image, _LIMITS, purpose="bench", base_commit=base).close()
    drain()
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--commits", type=int, default=50_000)
    ap.add_argument("--kb-per-commit", type=float, default=8.0)
    ap.add_argument("--smoke", action="store_true",
                    help="one rep, an upstream of 200 commits of 1 KB: does it still run?")
    args = ap.parse_args()
    upstream: dict[str, float] = {"commits": args.commits, "kb_per_commit": args.kb_per_commit}
    tag = f"evaluator-bench/history:{args.commits}"
    if args.smoke:  # a tag of its own: the shape is not what `--commits 200` alone would make
        args.reps, tag = 1, "evaluator-bench/history:smoke"
        upstream = {"commits": 200, "kb_per_commit": 1, "later": 20, "files": 50, "tag_every": 50}
    print(f"load average before: {os.getloadavg()}", flush=True)
    client = docker.from_env()
    base = ensure_base_image(client, BASE_TAG)
    sandboxes = DockerSandboxes(client)
    images = {
        "upstream": _image(client, tag, base, **upstream),
        "small": _image(client, "evaluator-bench/history:small", base, commits=20,
                        kb_per_commit=4, later=5, files=10, tag_every=5),
    }
    for name, (image, sha) in images.items():
        subprocess.run(["docker", "rmi", seal_tag(image, "/testbed", sha)], capture_output=True)
        t = time.perf_counter()
        found = inspect_history(client, image, "/testbed", sha)
        inspected = time.perf_counter() - t
        t = time.perf_counter()
        sealed = sealed_image(client, image, "/testbed", sha)
        took = time.perf_counter() - t
        assert sealed != image and not inspect_history(client, sealed, "/testbed", sha).findings
        stats = found.stats
        print(f"{name}: one-time inspect {inspected:.1f}s, seal {took:.1f}s ({stats['history']} "
              f"commits kept, {stats['commits'] - stats['history']} later commits and "
              f"{len(found.findings)} findings hidden)", flush=True)
        if not args.smoke:  # a smoke's one rep pays the probe: its figures mean nothing anyway
            _agent(sandboxes, image, sha, True)  # warm: the first open probes the image once
            _agent(sandboxes, image, sha, False)
    times: dict[str, dict[str, list[float]]] = {n: {"agent": [], "open": [], "unsealed": []}
                                                for n in images}
    for _ in range(args.reps):  # rep by rep, so a passing load falls on both alike
        for name, (image, sha) in images.items():
            times[name]["agent"].append(_agent(sandboxes, image, sha, True))
            times[name]["open"].append(_open(sandboxes, image, sha))
            times[name]["unsealed"].append(_agent(sandboxes, image, sha, False))
    med = {n: {k: statistics.median(v) for k, v in t.items()} for n, t in times.items()}
    for name, m in med.items():
        print(f"{name:>8}: agent {m['agent']:.2f}s  open+close {m['open']:.2f}s  "
              f"unsealed agent {m['unsealed']:.2f}s (sealed / unsealed "
              f"{m['agent'] / m['unsealed']:.2f}x)")
    up, small = med["upstream"], med["small"]
    print(f"upstream / small: agent {up['agent'] / small['agent']:.2f}x, open "
          f"{up['open'] / small['open']:.2f}x (goal <= 1.5x)")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
