"""`doit lock` at SWE-bench size: a set of N tasks sharing a few images, locked fresh and again,
by this checkout and by the code before issue 31 (a `git worktree` of it), side by side.

    .venv/bin/python benchmarks/bench_lock.py [--sizes 10 100 1000] [--images 4] [--commits 2]
        [--before eea9ee1] [--before-max 1000] [--jobs N] [--smoke]

It builds `--images` images on the local Docker engine from the base image (`docker build`, as a
user builds one around a checkout: a Python package of 10 modules, `--commits` commits, HEAD at
the last), and writes each set as files (task.yaml, problem.md, hidden tests, a gold patch that
fixes one function: task i on image i % images at commit (i // images) % commits, so the set has
images x commits distinct (image, base commit) pairs; each task's base commit is named by sha,
as SWE-bench rows do). Each size is a task folder of its own. Per size and code version:

- fresh: no lock, and no seal of the bench images on the engine (removed first: the first lock
  of a set on a machine makes them);
- relock: set.yaml edited (a comment), so the lock is stale but every image and commit is as
  it was: the lock is written again from scratch by the old code, from the previous lock by the
  new one;
- no-op: `doit lock` with the lock current (doit's up-to-date check only).

Each is one `doit lock:<set>` process (wall seconds; CPU seconds of the doit process and its
children, not the engine's). It checks that both versions write the same lock (byte for byte)
and prints the machine's load average before and after. `--before none` runs this checkout
only; `--before-max` caps the size the old code runs (its fresh lock of 1,000 tasks is about
45 minutes here). The images and seals it made are removed at the end.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import docker  # noqa: E402
import yaml  # noqa: E402

from evaluator.images import BASE_TAG, ensure_base_image, seal_tag  # noqa: E402
from tests.repos import dockerfile  # noqa: E402

# The code before issue 31's lock changes (main when this benchmark was written).
BEFORE = "eea9ee1"
_MODULES, _FUNCS = 10, 20
_GIT_ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@localhost",
            "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@localhost",
            "GIT_AUTHOR_DATE": "2001-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2001-01-01T00:00:00Z"}
Image = tuple[str, str, list[str]]  # (tag, image id, commit shas oldest first)
_TEST_CMD = "python3 -m pytest -p no:cacheprovider -o junit_family=xunit1 --junitxml={junit_xml} tests"


def _module(m: int) -> str:
    return "".join(f"def f{j}(x):\n    return x - {j + m}\n\n" for j in range(_FUNCS))


def _gold(m: int, j: int) -> str:
    line = 3 * j + 1
    return (f"diff --git a/pkg/mod{m}.py b/pkg/mod{m}.py\n--- a/pkg/mod{m}.py\n"
            f"+++ b/pkg/mod{m}.py\n@@ -{line},2 +{line},2 @@\n def f{j}(x):\n"
            f"-    return x - {j + m}\n+    return x + {j + m}\n")


def _repo(root: Path, commits: int, salt: str) -> list[str]:
    """A package with `commits` commits (each later one edits NOTES.md); their shas, oldest
    first. `salt` makes each image's history its own."""
    root.mkdir(parents=True)
    (root / "pkg").mkdir()
    (root / "tests").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    for m in range(_MODULES):
        (root / "pkg" / f"mod{m}.py").write_text(_module(m))
    (root / "tests" / "test_visible.py").write_text("def test_ok():\n    assert True\n")
    (root / "pytest.ini").write_text("[pytest]\ntestpaths = tests\npythonpath = .\n")
    env = {**os.environ, **_GIT_ENV}

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True,
                              text=True, env=env).stdout.strip()

    git("init", "-q", "-b", "main")
    shas = []
    for c in range(commits):
        (root / "NOTES.md").write_text("".join(f"- change {i} of {salt}\n" for i in range(c + 1)))
        git("add", "-A")
        git("commit", "-qm", f"change {c}")
        shas.append(git("rev-parse", "HEAD"))
    return shas


def build_images(client: docker.DockerClient, n: int, commits: int, run: str) -> list[Image]:
    """(tag, image id, commit shas) of `n` images built from the base image."""
    base = ensure_base_image(client, BASE_TAG)
    out = []
    for k in range(n):
        tag = f"evaluator-bench/lock-{k}:{run}"
        with tempfile.TemporaryDirectory() as ctx:
            shas = _repo(Path(ctx) / "repo", commits, f"{run}-{k}")
            (Path(ctx) / "Dockerfile").write_text(dockerfile(base) + f"LABEL bench.lock={tag}\n")
            subprocess.run(["docker", "build", "-q", "--network", "none", "-t", tag, ctx],
                           check=True, capture_output=True, env={**os.environ, "DOCKER_BUILDKIT": "0"})
        out.append((tag, str(client.images.get(tag).id), shas))
    return out


def write_set(root: Path, name: str, size: int, images: list[Image]) -> None:
    set_dir = root / name
    set_dir.mkdir(parents=True)
    (set_dir / "set.yaml").write_text(yaml.safe_dump({"name": name, "gold_reps": 3}))
    for i in range(size):
        tag, _, shas = images[i % len(images)]
        sha = shas[(i // len(images)) % len(shas)]
        m, j = i % _MODULES, (i // _MODULES) % _FUNCS
        d = set_dir / f"t-{i:05d}"
        (d / "hidden" / "tests").mkdir(parents=True)
        (d / "hidden" / "tests" / "test_hidden.py").write_text(
            f"from pkg.mod{m} import f{j}\n\n\ndef test_fixed():\n    assert f{j}(1) == {1 + j + m}\n")
        (d / "problem.md").write_text(f"pkg.mod{m}.f{j} subtracts; it should add ({name} #{i}).\n")
        (d / "gold.patch").write_text(_gold(m, j))
        (d / "task.yaml").write_text(yaml.safe_dump({
            "id": f"t-{i:05d}", "image": tag, "base_commit": sha, "problem_statement": "problem.md",
            "hidden_tests": "hidden", "gold_patch": "gold.patch", "test_command": _TEST_CMD,
            "fail_to_pass": ["tests/test_hidden.py::test_fixed"],
            "pass_to_pass": ["tests/test_visible.py::test_ok"]}))


def remove_seals(images: list[Image]) -> None:
    tags = [seal_tag(image_id, "/testbed", sha) for _, image_id, shas in images for sha in shas]
    subprocess.run(["docker", "rmi", *tags], capture_output=True)


def lock_once(tree: Path, name: str, env: dict[str, str]) -> tuple[float, float, str]:
    """(wall s, CPU s of doit and its children, what it said) of one `doit lock:<name>`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "doit", "-f", str(tree / "dodo.py"),
                          f"lock:{name}"], cwd=tree, env={**env, "PYTHONPATH": str(tree)},
                         capture_output=True, text=True, timeout=6 * 3600)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    said = out.stdout + out.stderr
    if out.returncode != 0:
        raise SystemExit(f"doit lock:{name} in {tree} failed (exit {out.returncode}):\n{said[-3000:]}")
    return wall, cpu, said


def measure(tree: Path, work: Path, size: int, images: list[Image],
            label: str, jobs: str | None) -> dict[str, tuple[float, float]]:
    name = f"bench-{size}"
    tasks = work / label / f"tasks-{size}"
    if not tasks.exists():
        write_set(tasks, name, size, images)
    lock_dir = work / label / f"lock-{size}"
    env = {**os.environ, "EVAL_TASKS": str(tasks), "EVAL_LOCK_DIR": str(lock_dir),
           "EVAL_STORE": str(work / label / "store"), "EVAL_EVALS": str(work / "no-evals")}
    if jobs:
        env["EVAL_LOCK_JOBS"] = jobs
    shutil.rmtree(lock_dir, ignore_errors=True)
    remove_seals(images)
    out = {}
    wall, cpu, said = lock_once(tree, name, env)
    if f"{size} tasks" not in said:
        raise SystemExit(f"{label}: the fresh lock of {size} tasks did not say so:\n{said[-2000:]}")
    out["fresh"] = (wall, cpu)
    shutil.copy(lock_dir / f"{name}.lock", lock_dir / "fresh.lock")
    set_yaml = tasks / name / "set.yaml"
    set_yaml.write_text(set_yaml.read_text() + f"# relocked by {label}\n")
    wall, cpu, said = lock_once(tree, name, env)
    if "wrote " not in said:
        raise SystemExit(f"{label}: the relock of {size} tasks wrote no lock:\n{said[-2000:]}")
    out["relock"] = (wall, cpu)
    wall, cpu, said = lock_once(tree, name, env)
    if "wrote " in said:
        raise SystemExit(f"{label}: a no-op lock of {size} tasks wrote the lock again:\n{said[-2000:]}")
    out["no-op"] = (wall, cpu)
    set_yaml.write_text(set_yaml.read_text().rsplit("# relocked", 1)[0])  # the next version's input
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000])
    ap.add_argument("--images", type=int, default=4)
    ap.add_argument("--commits", type=int, default=2)
    ap.add_argument("--before", default=BEFORE, help="git ref of the old code, or `none`")
    ap.add_argument("--before-max", type=int, default=1000,
                    help="the largest size the old code runs")
    ap.add_argument("--jobs", default=None, help="EVAL_LOCK_JOBS for this checkout's code")
    ap.add_argument("--smoke", action="store_true", help="3 tasks on 1 image, this code only")
    args = ap.parse_args()
    if args.smoke:
        args.sizes, args.images, args.commits, args.before = [3], 1, 2, "none"
    client = docker.from_env(timeout=600)
    run = f"{os.getpid()}"
    work = Path(tempfile.mkdtemp(prefix="bench-lock-"))
    (work / "no-evals").mkdir()
    trees = {"after": ROOT}
    images: list[Image] = []
    try:
        if args.before != "none":
            trees["before"] = work / "before-tree"
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach",
                            str(trees["before"]), args.before], check=True)
        print(f"load average before: {os.getloadavg()}", flush=True)
        t = time.perf_counter()
        images = build_images(client, args.images, args.commits, run)
        print(f"built {len(images)} image(s) x {args.commits} commit(s) in "
              f"{time.perf_counter() - t:.1f}s", flush=True)
        results: dict[tuple[int, str], dict[str, tuple[float, float]]] = {}
        for size in args.sizes:
            for label, tree in sorted(trees.items(), reverse=True):  # before first
                if label == "before" and size > args.before_max:
                    continue
                results[(size, label)] = measure(tree, work, size, images, label,
                                                 args.jobs if label == "after" else None)
                r = results[(size, label)]
                print(f"{size:>5} tasks {label:6}: " + ", ".join(
                    f"{k} {w:.1f}s wall ({c:.1f}s CPU)" for k, (w, c) in r.items()), flush=True)
            if (size, "before") in results:
                a, b = (work / lab / f"lock-{size}" / "fresh.lock" for lab in ("after", "before"))
                same = a.read_bytes() == b.read_bytes()
                print(f"{size:>5} tasks: both versions wrote the same lock: {same}", flush=True)
                if not same:
                    return 1
        _table(results, args.sizes)
        print(f"load average after: {os.getloadavg()}")
    finally:
        remove_seals(images)
        for tag, *_ in images:
            subprocess.run(["docker", "rmi", "-f", tag], capture_output=True)
        if "before" in trees:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                            str(trees["before"])], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
    return 0


def _table(results: dict[tuple[int, str], dict[str, tuple[float, float]]], sizes: list[int]) -> None:
    print("\n| tasks | step | before s | after s | before / after |")
    print("|---:|---|---:|---:|---:|")
    for size in sizes:
        for step in ("fresh", "relock", "no-op"):
            b = results.get((size, "before"), {}).get(step)
            a = results.get((size, "after"), {}).get(step)
            ratio = f"{b[0] / a[0]:.1f}x" if a and b else ""
            print(f"| {size} | {step} | {f'{b[0]:.1f}' if b else 'not run'} | "
                  f"{f'{a[0]:.1f}' if a else 'not run'} | {ratio} |")


if __name__ == "__main__":
    sys.exit(main())
