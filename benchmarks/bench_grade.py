"""One grade through the harness against a minimal grader, at 100 KB, 10 MB and 200 MB.

    .venv/bin/python benchmarks/bench_grade.py [--reps 5] [--sizes 0.1 10 200] [--smoke]

For each size it generates a repository (tests/repos.py: history, an ignored build folder, an
untracked file), builds an image the way a user would (a Dockerfile that copies the checkout),
then, interleaved rep by rep on the same task and across the sizes:

- harness: `DockerGrader.grade` (sandbox with every limit, filtered patch, hidden tests, pytest
  with the node-id plugin, JUnit parsed and judged), the container's removal included;
- minimal: create a container, put patch and tests in, `git apply`, run pytest, read the JUnit
  file, remove the container: the least any grader must do;
- open: `DockerSandboxes.open` then `close` alone (removal drained), the cost that must not
  grow with the repository;
- unhardened: the same grade with the integrity hardening off (no canaries, no import probes
  around `git apply`, no selection of the requested tests, no hardened environment, no second
  look: neither pytest's summary read against the report nor the re-run of FAIL_TO_PASS).

The harness's grade includes the canaries (twins written into the hidden test file) and the
second look; the time the second look takes (the re-run's exec included, and with it the
report's read, done in that exec) is measured inside each harness grade and printed beside it.
It prints medians and the ratios the goals are about: harness / minimal at every size (goal
1.2x or less), harness / unhardened (the hardening's cost, goal 1.15x or less; also paired: the
two grades of a rep run back to back, in turn first, and the median of their ratios is what a
load drifting over minutes moves least) and sandbox open at 200 MB / at 100 KB (goal 1.5x or
less), and the machine's load average before and after.

`--smoke`: one rep at 100 KB (`--reps 1 --sizes 0.1`, no warm-up grade): every series once,
exiting non-zero when a grade does not resolve the gold patch or a step fails.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tarfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import docker  # noqa: E402

from evaluator.grading import DockerGrader, GradeSpec  # noqa: E402
from evaluator.grading import _run as grading_run  # noqa: E402
from evaluator.hashing import hash_json  # noqa: E402
from evaluator.images import BASE_TAG, ensure_base_image  # noqa: E402
from evaluator.lock import DockerPinResolver  # noqa: E402
from evaluator.sandbox import DockerSandboxes, SandboxLimits  # noqa: E402
from evaluator.sandbox._removal import drain  # noqa: E402
from tests.helpers import TEST_CMD  # noqa: E402
from tests.repos import BIG_HIDDEN, big_gold, build_big_image  # noqa: E402

_LIMITS = SandboxLimits(memory_mb=1024, disk_mb=512, exec_timeout_s=300)


def _tar(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.uid, info.gid, info.mode = len(data), 1000, 1000, 0o644
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _minimal(client: docker.DockerClient, image: str, patch: bytes, hidden: dict[str, bytes]) -> bool:
    c = client.containers.create(image, ["sleep", "600"], user="1000:1000", working_dir="/testbed",
                                 network_mode="none")
    try:
        c.start()
        c.put_archive("/testbed", _tar({"patch.diff": patch, **hidden}))
        c.exec_run("git apply patch.diff")
        c.exec_run(TEST_CMD.replace("{junit_xml}", "/tmp/junit.xml"))
        out = c.exec_run("cat /tmp/junit.xml").output
        return b'failures="0"' in out and b'errors="0"' in out
    finally:
        c.remove(force=True)


_LOOKS: list[float] = []


def _timed(func):
    def timed(*args, **kwargs):
        t = time.perf_counter()
        try:
            return func(*args, **kwargs)
        finally:
            _LOOKS.append(time.perf_counter() - t)
    return timed


# The second look: the exec that reads the report and re-runs (the read included, which an
# unhardened grade does alone), and what second_look adds after it.
grading_run.second_look = _timed(grading_run.second_look)
grading_run.read_and_rerun = _timed(grading_run.read_and_rerun)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--sizes", type=float, nargs="+", default=[0.1, 10, 200])
    ap.add_argument("--smoke", action="store_true", help="--reps 1 --sizes 0.1: does it run?")
    args = ap.parse_args()
    if args.smoke:
        args.reps, args.sizes = 1, [0.1]
    client = docker.from_env()
    base = ensure_base_image(client, BASE_TAG)
    sandboxes = DockerSandboxes(client)
    grader = DockerGrader(sandboxes)
    unhardened = DockerGrader(sandboxes, hardened=False)
    patch, hidden = big_gold().encode(), {k: v.encode() for k, v in BIG_HIDDEN.items()}
    specs = {}
    for mb in args.sizes:
        image = build_big_image(f"evaluator-bench/grade:{mb:g}mb", base,
                                files=max(20, min(int(mb * 200), 40_000)), mb=mb)
        sha = DockerPinResolver(client).commit(image, "/testbed", "main")
        specs[mb] = GradeSpec(task_set="bench", task_id=f"clamp-{mb:g}", image=image,
                              workdir="/testbed", user="1000:1000", base_commit=sha,
                              test_command=TEST_CMD, hidden_tests_hash=hash_json(sorted(hidden)),
                              fail_to_pass=("tests/test_clamp_hidden.py::test_high",),
                              pass_to_pass=("tests/test_core.py::test_low",), test_files=(),
                              limits=_LIMITS)
        if not args.smoke:  # a smoke's one rep pays the probe: its figures mean nothing anyway
            grader.grade(specs[mb], patch, hidden)  # warm: the first open probes the image once
    times: dict[float, dict[str, list[float]]] = {
        mb: {"harness": [], "minimal": [], "open": [], "unhardened": [], "look": []}
        for mb in specs}
    load_before = os.getloadavg()
    # Rep by rep over every size, so a load that comes and goes falls on all sizes alike; the
    # hardened and the unhardened grade run back to back, in turn first, for the paired ratio.
    for rep in range(args.reps):
        for mb, spec in specs.items():
            for series in ("harness", "unhardened")[::1 if rep % 2 == 0 else -1]:
                t = time.perf_counter()
                _LOOKS.clear()
                outcome = (grader if series == "harness" else unhardened).grade(spec, patch, hidden)
                drain()
                times[mb][series].append(time.perf_counter() - t)
                if series == "harness":
                    times[mb]["look"].append(sum(_LOOKS))
                assert outcome.resolved, outcome
            t = time.perf_counter()
            assert _minimal(client, spec.image, patch, hidden)
            times[mb]["minimal"].append(time.perf_counter() - t)
            t = time.perf_counter()
            sandboxes.open(spec.image, _LIMITS, purpose="bench").close()
            drain()
            times[mb]["open"].append(time.perf_counter() - t)
    rows = []
    for mb in specs:
        med = {k: statistics.median(v) for k, v in times[mb].items()}
        rows.append((mb, med))
        print(f"{mb:>7g} MB  harness {med['harness']:.2f}s  minimal {med['minimal']:.2f}s  "
              f"ratio {med['harness'] / med['minimal']:.2f}x  open+close {med['open']:.2f}s  "
              f"unhardened {med['unhardened']:.2f}s "
              f"(hardening {med['harness'] / med['unhardened']:.2f}x; of it the second look "
              f"{med['look']:.2f}s, the report's read included)", flush=True)
    if len(rows) > 1:
        print(f"open at {rows[-1][0]:g} MB / at {rows[0][0]:g} MB: "
              f"{rows[-1][1]['open'] / rows[0][1]['open']:.2f}x (goal <= 1.5x)")
    print("harness / minimal: " + ", ".join(f"{mb:g} MB {m['harness'] / m['minimal']:.2f}x"
                                             for mb, m in rows) + " (goal <= 1.2x)")
    print("hardened / unhardened: " + ", ".join(
        f"{mb:g} MB {m['harness'] / m['unhardened']:.2f}x" for mb, m in rows) + " (goal <= 1.15x)")
    # Each rep's two grades ran back to back: the median of their ratios is what a load that
    # drifts over minutes moves least.
    paired = {mb: statistics.median(h / u for h, u in zip(t["harness"], t["unhardened"],
                                                           strict=True))
              for mb, t in times.items()}
    print("hardened / unhardened, paired (median of each rep's ratio): "
          + ", ".join(f"{mb:g} MB {r:.2f}x" for mb, r in paired.items()))
    print(f"load average before {load_before[0]:.1f}, after {os.getloadavg()[0]:.1f} "
          f"({os.cpu_count()} CPUs)")


if __name__ == "__main__":
    main()
