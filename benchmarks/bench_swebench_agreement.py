"""Agreement with the official SWE-bench harness (swebench 5.x, in a virtualenv of its own),
and the round trip through SWE-bench's formats.

Exports a set's instances and each agent's predictions in SWE-bench format, then grades the same
predictions twice: with ours (`python -m evaluator predictions grade`, in a fresh store that
holds only the gold gate's verdicts, so nothing is reused) and with the official harness
(`python -m swebench.harness.run_evaluation`), and prints both resolved sets, whether they are
identical, and the wall time of each side by side. The round trip: the exported instances are
imported again as `<set>-rt`, locked and gated (same verdicts per instance?), and each agent's
exported predictions graded there (same resolved ids as the agent's own results?). Everything
is written under a work folder (a copy of the set, its lock and stores), never in the checkout.

    python benchmarks/bench_swebench_agreement.py                  # demo: lock, gold, eval first
    python benchmarks/bench_swebench_agreement.py --store .eval --skip-run --agents reference-strong
    python benchmarks/bench_swebench_agreement.py --suites symp,tally  # upstream-size instances
    python benchmarks/bench_swebench_agreement.py --smoke          # one task, one prediction

`--suites` grades rows of the upstream runner shapes of tests/swebench/suites.py (sympy's
`bin/test`, Django's runner, pytest -rA with PYTHONPATH=src or colour, pytest testing a plugin
with pytester, unittest), at upstream size (default: 50,000 commits before the base holding
about 300 MB of packed history, `--mb` 100 MB of source in `--files` 10,000 files), with their
gold patches: ours (`predictions grade`, a store holding only the gate's verdicts) and the
official harness (`run_evaluation`, the same images and rows), `--workers` at a time each,
`--rounds` rounds alternated, timed side by side (goal: ours a third of the official's time or
less), resolved sets compared. The lock's one-time cost per image (history read and seal) is
printed apart: graders use the seal it made.

The official harness creates its containers on Docker's default network; on an engine without
a bridge (`dockerd --iptables=false --bridge=none`) `--no-bridge` (the default here) runs it with
`network_mode="none"` added to each container it creates, which changes nothing it grades.

`--smoke`: the demo path on a copy of the set cut to its first task (no gold-gate fixtures, no
exploits, one gold rep, one sample of reference-strong, one worker): every step once, the
official harness included, exiting non-zero unless both sides resolve the same ids and the round
trip keeps every verdict and resolved id. `--suites` is left out (its images are upstream-size).
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
VERDICTS = ("valid", "flaky", "broken-gold", "passes-without-fix", "incomplete")
VENV = ROOT / os.environ.get("SWEBENCH_VENV", ".venv-swebench")  # `make swebench-venv`
PY = sys.executable
# Runs the official entry point with network_mode="none" on every container it creates.
NO_BRIDGE = ("import runpy, docker.models.containers as c; o = c.ContainerCollection.create; "
             "c.ContainerCollection.create = lambda s, *a, **k: o(s, *a, **{'network_mode': "
             "'none', **k}); runpy.run_module('swebench.harness.run_evaluation', "
             "run_name='__main__')")


def run(cmd: list[str], env: dict[str, str], cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    out = subprocess.run(cmd, env=env, cwd=cwd, text=True, capture_output=True)
    if out.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd[:6])} failed ({out.returncode}):\n{out.stdout[-3000:]}"
                 f"\n{out.stderr[-3000:]}")
    return out


def ensure_official() -> Path:
    py = VENV / "bin" / "python"
    if subprocess.run([str(py), "-c", "import swebench"], capture_output=True).returncode \
            if py.exists() else True:
        subprocess.run(["make", "-C", str(ROOT), "swebench-venv", f"SWEBENCH_VENV={VENV}"],
                       check=True)
    return py


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", default="demo")
    ap.add_argument("--store", type=Path, help="store with the set's gold gate and eval "
                    "(default: a fresh one, filled by lock, gold and eval first)")
    ap.add_argument("--skip-run", action="store_true", help="the store already holds them")
    ap.add_argument("--agents", nargs="*", help="default: every agent of evals/<set>.yaml")
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--bridge", action="store_true", help="let the official harness use "
                    "Docker's default network")
    ap.add_argument("--suites", help="comma-separated families of tests/swebench/suites.py "
                    "(symp, djang, srclay, colour, tally, unitt), padded to --mb/--files/--commits")
    ap.add_argument("--mb", type=float, default=100, help="MB of source in the working tree")
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--commits", type=int, default=50_000, help="commits before the base")
    ap.add_argument("--history-mb", type=float, default=300, help="MB of packed history")
    ap.add_argument("--rounds", type=int, default=2, help="timed rounds of each side")
    ap.add_argument("--timeout", type=int, default=1800, help="the official harness's "
                    "--timeout per instance (its default)")
    ap.add_argument("--smoke", action="store_true", help="the demo's first task, one prediction, "
                    "one worker: does it still run and agree?")
    a = ap.parse_args()
    if a.smoke:
        a.set, a.workers, a.suites, a.skip_run, a.agents = "demo", 1, None, False, None
    official = ensure_official()
    if a.suites:
        suites(a, official)
        return
    work = a.out or Path(tempfile.mkdtemp(prefix="swebench-agree-"))
    if a.smoke and a.out is None:
        atexit.register(shutil.rmtree, work, True)
    store = a.store or work / "store"
    tasks = work / "tasks"
    copied: dict[str, str] = {}
    if a.smoke:
        sys.path.insert(0, str(ROOT))
        from benchmarks._demo import demo_copy

        copied = demo_copy(work, exploits=False, tasks=1, fixtures=False, gold_reps=1, samples=1,
                           agents=["reference-strong"])
    elif not (tasks / a.set).is_dir():
        shutil.copytree(Path(os.environ.get("EVAL_TASKS", ROOT / "tasks")) / a.set, tasks / a.set)
    env = {**os.environ, "EVAL_STORE": str(store), "PYTHONPATH": str(ROOT),
           "EVAL_TASKS": str(tasks), "EVAL_LOCK_DIR": str(work / "lock"), **copied}
    evals = Path(env.get("EVAL_EVALS", ROOT / "evals"))
    doit = [PY, "-m", "doit", "-f", str(ROOT / "dodo.py")]
    if a.skip_run:
        run([*doit, f"lock:{a.set}"], env)
    else:
        for target in ("gold", "eval") if a.smoke else ("lock", "gold", "eval"):  # copy locked
            run([*doit, "-n", "4", "-P", "process", f"{target}:{a.set}"], env)
    agents = a.agents or yaml.safe_load((evals / f"{a.set}.yaml").read_text())["agents"]
    rows = []
    for agent in agents:
        out = work / agent
        run([PY, "-m", "evaluator", "export", "swebench", "--set", a.set, "--agent", agent,
             "--out", str(out)], env)
        ours, t_ours = ours_side(a.set, store, out, agent, env)
        theirs, t_theirs = official_side(official, out, agent, a.workers, a.bridge)
        rows.append((agent, ours, theirs, t_ours, t_theirs))
    print(f"{'agent':22} {'ours':>5} {'official':>8} {'identical':>9} {'ours s':>8} "
          f"{'official s':>10} {'ratio':>6}")
    for agent, ours, theirs, t_ours, t_theirs in rows:
        print(f"{agent:22} {len(ours):5} {len(theirs):8} {str(ours == theirs):>9} "
              f"{t_ours:8.1f} {t_theirs:10.1f} {t_theirs / t_ours:6.2f}")
        for iid in sorted(ours ^ theirs):
            print(f"  differs: {iid}: ours {'resolved' if iid in ours else 'unresolved'}, "
                  f"official {'resolved' if iid in theirs else 'unresolved'}")
    differ = [f"{agent}: resolved ids differ" for agent, ours, theirs, _, _ in rows
              if ours != theirs]
    if not any(ours for _, ours, _, _, _ in rows):
        differ.append("no prediction resolved on our side: agreement on nothing says nothing")
    differ += roundtrip(a.set, work, agents, env, doit)
    print(f"files under {work}")
    if a.smoke and differ:  # no fixture here flips by design: anything that differs is a fault
        sys.exit("smoke: " + "; ".join(differ))


def roundtrip(name: str, work: Path, agents: list[str], env: dict[str, str], doit: list[str]
              ) -> list[str]:
    """Import the exported instances back, gate them and grade each agent's predictions there;
    what differs from the original (a verdict, an agent's resolved ids)."""
    differ = []
    rt = f"{name}-rt"
    t0 = time.monotonic()
    run([PY, "-m", "evaluator", "import", "swebench", str(work / agents[0] / "instances.jsonl"),
         "--set", rt], env)
    run([*doit, f"lock:{rt}"], env)
    verdicts = {}
    for which in (name, rt):
        text = run([*doit, "-n", "4", "-P", "process", f"gold:{which}"], env).stdout
        verdicts[which] = {ln.split()[0]: ln.split()[1] for ln in text.splitlines()
                           if len(ln.split()) > 1 and ln.split()[1] in VERDICTS}
    same = verdicts[name] == verdicts[rt]
    print(f"round trip: {len(verdicts[rt])} task(s) imported back as {rt!r}; same verdicts: "
          f"{same}")
    if not same:
        for tid in sorted(set(verdicts[name]) | set(verdicts[rt])):
            if verdicts[name].get(tid) != verdicts[rt].get(tid):
                print(f"  {tid}: {verdicts[name].get(tid)} -> {verdicts[rt].get(tid)}")
                differ.append(f"round trip: {tid} {verdicts[name].get(tid)} -> "
                              f"{verdicts[rt].get(tid)}")
    if not verdicts[rt]:
        differ.append(f"round trip: no verdict read from gold:{rt}'s output")
    for agent in agents:
        out = work / agent
        run([PY, "-m", "evaluator", "predictions", "grade", str(out / "predictions.jsonl"),
             "--set", rt], env)
        run([PY, "-m", "evaluator", "export", "swebench", "--set", rt, "--agent", agent,
             "--out", str(out / "rt"), "--no-instances"], env)
        before = set(json.loads((out / "summary.json").read_text())["resolved_ids"])
        after = set(json.loads((out / "rt" / "summary.json").read_text())["resolved_ids"])
        print(f"round trip {agent}: {len(before)} resolved, {len(after)} after; same ids: "
              f"{before == after}" + (f" (differ: {sorted(before ^ after)})" if before != after
                                      else ""))
        if before != after:
            differ.append(f"round trip {agent}: resolved ids differ")
    print(f"round trip took {time.monotonic() - t0:.1f} s")
    return differ


def suites(a: argparse.Namespace, py: Path) -> None:
    sys.path.insert(0, str(ROOT))
    from tests.swebench import official
    from tests.swebench.suites import FAMILIES, build, build_image

    work = a.out or Path(tempfile.mkdtemp(prefix="swebench-suites-"))
    wanted = a.suites.split(",")
    rows, gold = [], {}
    load0 = os.getloadavg()
    t0 = time.monotonic()
    for fam in (f for f in FAMILIES if f.name in wanted):
        ctx, r, p = build(work / "src", fam, pad_mb=a.mb, pad_files=a.files, commits=a.commits,
                          history_mb=a.history_mb)
        repo = ctx / "repo"
        pack = subprocess.run(["git", "-C", str(repo), "count-objects", "-vH"], text=True,
                              capture_output=True).stdout
        tree = subprocess.run(["du", "-sh", "--exclude=.git", str(repo)], text=True,
                              capture_output=True).stdout.split()[0]
        sizes = dict(ln.split(": ", 1) for ln in pack.splitlines() if ": " in ln)
        print(f"{fam.name}: {len(r)} row(s), {a.commits + 1} commits, history "
              f"{sizes.get('size-pack')} packed and {sizes.get('size')} loose, working tree "
              f"{tree}", flush=True)
        build_image(ctx, fam.image.replace(":1", ":upstream"))
        for row in r:
            row["image"] = fam.image.replace(":1", ":upstream")
        rows += r
        gold.update({i: v["gold"] for i, v in p.items()})
    print(f"built {len(rows)} row(s) of {', '.join(wanted)} in {time.monotonic() - t0:.0f} s",
          flush=True)
    inst, preds = work / "instances.jsonl", work / "gold.jsonl"
    inst.write_text("".join(json.dumps(r) + "\n" for r in rows))
    preds.write_text("".join(json.dumps({"instance_id": i, "model_name_or_path": "gold",
                                         "model_patch": g}) + "\n" for i, g in gold.items()))
    env = {**os.environ, "EVAL_STORE": str(work / "store"), "PYTHONPATH": str(ROOT),
           "EVAL_TASKS": str(work / "tasks"), "EVAL_LOCK_DIR": str(work / "lock")}
    doit = [PY, "-m", "doit", "-f", str(ROOT / "dodo.py")]
    run([PY, "-m", "evaluator", "import", "swebench", str(inst), "--set", "up"], env)
    set_yaml = work / "tasks" / "up" / "set.yaml"
    # The gate only decides which rows count here (gold once, no exploit families): untimed.
    set_yaml.write_text(set_yaml.read_text().replace("gold_reps: 3", "gold_reps: 1")
                        + "exploits: []\n")
    t = time.monotonic()
    locked = run([*doit, "lock:up"], env)
    took_lock = time.monotonic() - t
    seal = [ln for ln in (locked.stdout + locked.stderr).splitlines() if "view of the future" in ln]
    print(f"lock (once per image: pins, history read, seal): {took_lock:.1f} s; "
          f"{seal[-1].strip() if seal else ''}", flush=True)
    print(run([*doit, "-n", str(a.workers), "-P", "process", "gold:up"], env).stdout.strip(),
          flush=True)
    times: dict[str, list[float]] = {"ours": [], "official": []}
    for rnd in range(a.rounds):  # alternated, so a load that comes and goes falls on both
        fresh = work / f"ours-{rnd}"
        shutil.copytree(work / "store" / "records" / "verdict", fresh / "records" / "verdict")
        t = time.monotonic()
        run([PY, "-m", "evaluator", "predictions", "grade", str(preds), "--set", "up", "--jobs",
             str(a.workers)], {**env, "EVAL_STORE": str(fresh)})
        times["ours"].append(time.monotonic() - t)
        run([PY, "-m", "evaluator", "export", "swebench", "--set", "up", "--agent", "gold",
             "--out", str(work / f"ours-out-{rnd}"), "--no-instances"],
            {**env, "EVAL_STORE": str(fresh)})
        print(f"round {rnd + 1}: ours {times['ours'][-1]:.1f} s", flush=True)
        t = time.monotonic()
        proc = official.start(py, inst, preds, f"bench-{rnd}", work / "official", a.workers,
                              timeout_s=a.timeout)
        theirs = official.results(proc, work / "official", f"bench-{rnd}", "gold", gold,
                                  expect_graded=False, wait_s=4 * a.timeout * len(rows))
        times["official"].append(time.monotonic() - t)
        errors = sorted(i for i, o in theirs.items() if o.state != "graded")
        print(f"round {rnd + 1}: official {times['official'][-1]:.1f} s"
              + (f" ({len(errors)} not graded: error or past --timeout {a.timeout} s: "
                 f"{', '.join(errors)})" if errors else "")
              + f", load {os.getloadavg()[0]:.1f}", flush=True)
    last = a.rounds - 1
    ours_ids = set(json.loads((work / f"ours-out-{last}" / "summary.json").read_text())
                   ["resolved_ids"])
    their_ids = {i for i, o in theirs.items() if o.resolved}
    load = os.getloadavg()
    n = len(rows)
    print(f"\n{n} instance(s), gold patches, {a.workers} at a time on each side:")
    print(f"  ours:     {' '.join(f'{x:.1f}' for x in times['ours'])} s  `evaluator predictions "
          "grade` in a store holding only the gate's verdicts (sealed image, made at lock): per "
          "row a fresh sandbox, git apply, the import probe, hidden tests and canaries, the "
          "hardened test command, its JUnit report or log, the grade and result records")
    print(f"  official: {' '.join(f'{x:.1f}' for x in times['official'])} s  swebench "
          f"{official_version(py)} `run_evaluation -p gold --max_workers {a.workers}` on the same "
          "rows and images: per row a container, its git apply chain, git diff before and after, "
          "the eval script (git status/show/diff, checkout and apply of the test patch, the test "
          "command), its log parser and report")
    best_ours, best_theirs = min(times["ours"]), min(times["official"])
    print(f"  ours / official (best of {a.rounds} each): {best_ours / best_theirs:.2f} "
          f"(goal: 0.33 or less; official / ours {best_theirs / best_ours:.2f}x); per instance "
          f"ours {best_ours / n:.1f} s, official {best_theirs / n:.1f} s")
    print(f"  resolved: ours {len(ours_ids)}, official {len(their_ids)}, identical: "
          f"{ours_ids == their_ids}")
    print(f"  load average (1/5/15 min) before {load0[0]:.1f} {load0[1]:.1f} {load0[2]:.1f}, "
          f"after {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} CPUs (other "
          f"processes on this machine count); files under {work}")


def official_version(py: Path) -> str:
    return subprocess.run([str(py), "-c", "import swebench; print(swebench.__version__)"],
                          text=True, capture_output=True).stdout.strip() or "?"


def ours_side(name: str, store: Path, out: Path, agent: str, env: dict[str, str]
              ) -> tuple[set[str], float]:
    """Grade the exported predictions in a store holding only the gate's verdicts."""
    fresh = out / "ours-store"
    shutil.rmtree(fresh, ignore_errors=True)
    shutil.copytree(store / "records" / "verdict", fresh / "records" / "verdict")
    env2 = {**env, "EVAL_STORE": str(fresh)}
    t0 = time.monotonic()
    run([PY, "-m", "evaluator", "predictions", "grade", str(out / "predictions.jsonl"),
         "--set", name], env2)
    took = time.monotonic() - t0
    run([PY, "-m", "evaluator", "export", "swebench", "--set", name, "--agent", agent, "--out",
         str(out / "ours"), "--no-instances"], env2)
    return set(json.loads((out / "ours" / "summary.json").read_text())["resolved_ids"]), took


def official_side(py: Path, out: Path, agent: str, workers: int, bridge: bool
                  ) -> tuple[set[str], float]:
    where = out / "official"
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
    args = ["-d", str(out / "instances.jsonl"), "-p", str(out / "predictions.jsonl"),
            "--run_id", "agree", "--max_workers", str(workers), "--report_dir", str(where)]
    cmd = [str(py), "-m", "swebench.harness.run_evaluation", *args] if bridge else [
        str(py), "-c", NO_BRIDGE, *args]
    t0 = time.monotonic()
    done = subprocess.run(cmd, cwd=where, text=True, capture_output=True)
    took = time.monotonic() - t0
    # Each instance's own report: the run's summary also inspects every container of the
    # engine, and one another process removes meanwhile fails it (a shared engine).
    resolved, graded = set(), 0
    for line in (out / "predictions.jsonl").read_text().splitlines():
        row = json.loads(line)
        iid = row["instance_id"]
        report = (where / "logs" / "run_evaluation" / "agree" / row["model_name_or_path"] / iid
                  / "report.json")
        if report.is_file():
            graded += 1
            if json.loads(report.read_text())[iid]["resolved"]:
                resolved.add(iid)
    if not graded:
        sys.exit(f"the official harness wrote no report:\n{done.stdout[-3000:]}\n"
                 f"{done.stderr[-3000:]}")
    return resolved, took


if __name__ == "__main__":
    main()
