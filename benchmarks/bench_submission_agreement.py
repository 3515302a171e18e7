"""A published submission re-verified: per instance, the official harness's outcome (swebench 5.x
in its own virtualenv, `make swebench-venv`), the published one, and ours.

Rows of the upstream runner shapes (tests/swebench/suites.py: sympy's `bin/test`, Django's
runner, pytest -rA ...) are built with their images; a submission predicts one patch per row
(gold and no-op patches in turn). The official harness grades it, and its own output is
published as SWE-bench's experiments repository holds a submission
(`evaluation/verified/<date>_<name>/`: all_preds.jsonl, results/results.json,
logs/<id>/report.json and test_output.txt), with two publishing faults planted, as real
submissions hold them: one instance's outcome flipped in results.json (what the leaderboard
counts) and one instance's logs missing (listed in no_logs). Ours imports the rows and the
submission (`evaluator import swebench`, `doit lock`, `doit gold`, `evaluator import
submission`) and prints its agreement table; then per instance the three outcomes side by side,
how often ours equals the official harness and the published outcome, and each cause.

    python benchmarks/bench_submission_agreement.py                  # symp, djang, srclay, tally
    python benchmarks/bench_submission_agreement.py --families symp,djang
    python benchmarks/bench_submission_agreement.py --smoke          # one sympy row: seconds

Exits 1 when ours differs from the official harness on an instance it graded, or a planted
fault is not found (the flipped one must disagree with cause "their evaluation", the missing
one must have no published outcome).
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
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PY = sys.executable
MODEL = "org/bench-model"
NAME = "20250101_bench_model"


def run(cmd: list[str], env: dict[str, str], ok: tuple[int, ...] = (0,)
        ) -> subprocess.CompletedProcess[str]:
    out = subprocess.run(cmd, env=env, cwd=ROOT, text=True, capture_output=True)
    if out.returncode not in ok:
        sys.exit(f"{' '.join(cmd[:6])} failed ({out.returncode}):\n{out.stdout[-3000:]}\n"
                 f"{out.stderr[-3000:]}")
    return out


def rows_and_patches(work: Path, families: list[str], per_family: int
                     ) -> tuple[list[dict[str, Any]], dict[str, str]]:
    from tests.swebench.suites import FAMILIES, build, build_image

    rows, preds = [], {}
    for fam in (f for f in FAMILIES if f.name in families):
        ctx, r, p = build(work / "src", fam)
        build_image(ctx, fam.image)
        for i, row in enumerate(r[:per_family]):
            rows.append(row)
            # Gold and no-op patches in turn: resolved and unresolved instances alike.
            preds[row["instance_id"]] = p[row["instance_id"]]["gold" if i % 2 == 0 else "noop"]
    return rows, preds


def publish(official_logs: Path, preds: dict[str, str], theirs: dict[str, Any], out: Path
            ) -> tuple[Path, str, str]:
    """The submission folder as the experiments repository holds it, from the official run's
    own logs, with two faults planted; (folder, the flipped instance, the missing one)."""
    folder = out / "evaluation" / "verified" / NAME
    (folder / "logs").mkdir(parents=True)
    (folder / "all_preds.jsonl").write_text("".join(json.dumps(
        {"instance_id": i, "model_name_or_path": MODEL, "model_patch": p}) + "\n"
        for i, p in preds.items()))
    ids = sorted(preds)
    flipped, missing = ids[0], ids[-1] if len(ids) > 1 else ""
    for iid in ids:
        if iid != missing and (official_logs / iid).is_dir():
            shutil.copytree(official_logs / iid, folder / "logs" / iid)
    resolved = {i for i, o in theirs.items() if o.resolved}
    resolved ^= {flipped}  # a fault of their evaluation: what the leaderboard counts is wrong
    (folder / "results").mkdir()
    (folder / "results" / "results.json").write_text(json.dumps({
        "resolved": sorted(resolved - {missing}), "no_generation": [],
        "no_logs": [missing] if missing else []}, indent=4))
    return folder, flipped, missing


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--families", default="symp,djang,srclay,tally",
                    help="comma-separated families of tests/swebench/suites.py")
    ap.add_argument("--per-family", type=int, default=2, help="rows of each family")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--smoke", action="store_true", help="one sympy row (the wrapped totals "
                    "of its runner): checks the benchmark works, in seconds")
    a = ap.parse_args()
    if a.smoke:
        a.families, a.per_family = "symp", 1
    from tests.swebench import official

    py = official.python()
    work = a.out or Path(tempfile.mkdtemp(prefix="bench-submission-"))
    if a.smoke and a.out is None:  # CI runs it on every push: nothing left behind
        atexit.register(shutil.rmtree, work, True)
    t0 = time.monotonic()
    rows, preds = rows_and_patches(work, a.families.split(","), a.per_family)
    inst, pred_file = work / "instances.jsonl", work / "preds.jsonl"
    inst.write_text("".join(json.dumps(r) + "\n" for r in rows))
    pred_file.write_text("".join(json.dumps({"instance_id": i, "model_name_or_path": MODEL,
                                             "model_patch": p}) + "\n" for i, p in preds.items()))
    print(f"{len(rows)} row(s) of {a.families} built in {time.monotonic() - t0:.0f} s",
          flush=True)
    t = time.monotonic()
    proc = official.start(py, inst, pred_file, "bench", work / "official", a.workers)
    logged = MODEL.replace("/", "__")  # the official harness's folder name for the model
    theirs = official.results(proc, work / "official", "bench", logged, preds)
    took_official = time.monotonic() - t
    logs = work / "official" / "logs" / "run_evaluation" / "bench" / logged
    folder, flipped, missing = publish(logs, preds, theirs, work / "experiments")
    env = {**os.environ, "EVAL_STORE": str(work / "store"), "PYTHONPATH": str(ROOT),
           "EVAL_TASKS": str(work / "tasks"), "EVAL_LOCK_DIR": str(work / "lock")}
    doit = [PY, "-m", "doit", "-f", str(ROOT / "dodo.py")]
    t = time.monotonic()
    run([PY, "-m", "evaluator", "import", "swebench", str(inst), "--set", "bench"], env)
    set_yaml = work / "tasks" / "bench" / "set.yaml"
    set_yaml.write_text(set_yaml.read_text().replace("gold_reps: 3", "gold_reps: 1")
                        + "exploits: []\n")
    run([*doit, "lock:bench"], env)
    run([*doit, "-n", str(a.workers), "-P", "process", "gold:bench"], env, ok=(0, 1))
    run([PY, "-m", "evaluator", "import", "submission", str(folder), "--set", "bench",
         "--jobs", str(a.workers)], env)
    took_ours = time.monotonic() - t
    table = json.loads(run([PY, "-m", "evaluator", "agreement", "--set", "bench", "--json"],
                           env).stdout)[0]
    return report(table, theirs, flipped, missing, took_official, took_ours, work)


def report(table: dict[str, Any], theirs: dict[str, Any], flipped: str, missing: str,
           took_official: float, took_ours: float, work: Path) -> int:
    word = {True: "resolved", False: "unresolved", None: "-"}
    print(f"\n{'instance':28} {'official':10} {'published':10} {'ours':28} {'state':11} cause")
    same_official = same_published = compared = 0
    problems = []
    for r in table["rows"]:
        iid, o = r["instance_id"], theirs[r["instance_id"]]
        ours = r["ours"]
        print(f"{iid:28} {word[o.resolved]:10} {word[r['published']]:10} {ours[:28]:28} "
              f"{r['state']:11} {r['cause']}")
        if ours in ("resolved", "failed", "policy"):
            same_official += (ours == "resolved") == o.resolved
            compared += 1
            if o.state == "graded" and (ours == "resolved") != o.resolved:
                problems.append(f"{iid}: ours {ours}, official {word[o.resolved]}")
        same_published += r["state"] == "agree"
    flip = next(r for r in table["rows"] if r["instance_id"] == flipped)
    if (flip["state"], flip["cause"]) != ("disagree", "their evaluation"):
        problems.append(f"the flipped outcome of {flipped} reads {flip['state']} "
                        f"({flip['cause'] or 'no cause'})")
    if missing:
        gone = next(r for r in table["rows"] if r["instance_id"] == missing)
        if gone["published"] is not None:
            problems.append(f"{missing}'s logs were withheld, yet an outcome reads published")
    c = table["counts"]
    print(f"\nours = official harness on {same_official} of {compared} graded instance(s); "
          f"ours = published on {same_published} of {c['agree'] + c['disagree']} compared "
          f"(causes: {table['causes'] or 'none'}); planted: {flipped} flipped in results.json, "
          f"{missing or '-'} withheld")
    print(f"time: official harness {took_official:.1f} s; ours (import, lock, gold gate, "
          f"import submission) {took_ours:.1f} s; files under {work}")
    for p in problems:
        print(f"FAIL: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
