"""Outcome integrity, measured on one sandbox backend: the cheat battery (every family of
tests/grading/cheats*.py) graded and decided by the one result rule, and the false-`tampered`
and false-flag rates of honest patches (each layout's gold patch and its other correct fixes,
graded under several nonces).

    .venv/bin/python benchmarks/bench_integrity.py [--backend docker|daemonless|podman]
        [--layouts calc,shop] [--families all|name,...] [--nonces 3] [--json out.json] [--smoke]

Prints, per layout, each family's grade outcome and result status and what kept it out of the
headline (`grade`: the grade itself, unresolved or tampered; `flag`: only a flag, awaiting a
person; `policy`: a violation with a resolved grade), then the honest patches' outcomes and the
two rates. Exits 1 when a family resolves unflagged, when an honest patch is tampered or
flagged, or when nothing was graded. `--smoke` (well under a minute): the calc layout, the gold
patch and one family that only fresh names stop, graded without the calibration (its four
grades alone take longer than a smoke may: the calibrated path is in the full run and in
tests/grading/test_integrity_docker.py).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evaluator.grading import DockerGrader, GradeRecord, calibrate_now  # noqa: E402
from evaluator.result import decide, findings  # noqa: E402


def _sandboxes(backend: str):  # type: ignore[no-untyped-def]
    from evaluator.sandbox import DockerSandboxes, PodmanSandboxes, docker_client, podman_client
    if backend == "docker":
        return DockerSandboxes(docker_client())
    if backend == "podman":
        return PodmanSandboxes(podman_client())
    from tests.daemonless import DockerFed, missing
    lacking = missing()
    if lacking:
        raise SystemExit(f"daemonless sandboxes: {lacking}")
    return DockerFed()


class _Factory:
    """tmp_path_factory's one method, for the layouts' builder."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="bench-integrity-"))

    def mktemp(self, name: str) -> Path:
        path = self.root / name
        path.mkdir()
        return path


def _decided(grader: DockerGrader, spec, hidden, patch: str):  # type: ignore[no-untyped-def]
    out = grader.grade(spec, patch.encode(), hidden)
    record = GradeRecord.of(out, spec, patch="-", rep=0, subject="bench", lock_version="-",
                            output="", started=time.time())
    found = findings(patch.encode(), list(hidden), spec.test_files, sources=out.sources,
                     opaque=record.opaque, grade_flags=out.flags)
    status = decide(record, found)
    kept = ("grade" if out.outcome != "resolved" else "policy" if found.violations
            else "flag" if status == "flagged" else "NOTHING")
    return out, status, kept, found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="docker", choices=("docker", "daemonless", "podman"))
    ap.add_argument("--layouts", default="calc,shop")
    ap.add_argument("--families", default="all")
    ap.add_argument("--nonces", type=int, default=3)
    ap.add_argument("--parallel", type=int, default=4)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args()
    from evaluator.images import BASE_TAG, ensure_base_image
    from evaluator.sandbox import docker_client
    from tests.grading.cheats import CHEATS
    from tests.grading.patches import replace_file
    from tests.grading.support import make_layout_case

    names = sorted(CHEATS) if args.families == "all" else args.families.split(",")
    layouts = args.layouts.split(",")
    if args.smoke:
        names, layouts, args.nonces = ["forge_published_ids"], ["calc"], 1
    client = docker_client()
    base = ensure_base_image(client, BASE_TAG)
    grader = DockerGrader(_sandboxes(args.backend))
    factory = _Factory()
    report: dict = {"backend": args.backend, "layouts": {}}
    bad = 0
    for name in layouts:
        t0 = time.monotonic()
        lay, spec, hidden = make_layout_case(name, client, base, factory)  # type: ignore[arg-type]
        if args.smoke:
            print(f"== {name} on {args.backend}: not calibrated (--smoke): no twins")
        else:
            pool, _ = calibrate_now(grader, spec, lay.gold.encode(), hidden)
            spec = replace(spec, pool=pool)
            print(f"== {name} on {args.backend}: calibrated in {time.monotonic() - t0:.0f} s "
                  f"({len(pool.twins)} twins, {len(pool.looked or ())} required tests looked "
                  f"at, {'fresh' if pool.renamed else 'published'} names)")
        honest = [("gold", lay.gold), *((f"known-good-{i}", replace_file(lay.buggy, lay.broken, b))
                                        for i, b in enumerate(lay.known_good) if not args.smoke)]
        jobs = [(f"cheat:{n}", CHEATS[n](lay)[0]) for n in names]
        jobs += [(f"honest:{h}#{k}", p) for h, p in honest for k in range(args.nonces)]
        with ThreadPoolExecutor(args.parallel) as pool_:
            futures = {label: pool_.submit(_decided, grader, spec, hidden, patch)
                       for label, patch in jobs}
            done = {label: f.result() for label, f in futures.items()}
        rows = {}
        tampered = flagged = 0
        for label, (out, status, kept, found) in sorted(done.items()):
            kind, what = label.split(":", 1)
            if kind == "cheat":
                bad += status == "resolved"
                print(f"  {what:40} grade {out.outcome:15} result {status:9} kept out by {kept}")
            else:
                tampered += out.outcome == "tampered"
                flagged += status != "resolved"
                bad += status != "resolved"
                print(f"  {what:40} grade {out.outcome:15} result {status:9} "
                      + ("; ".join(out.flags + tuple(f.text for f in found.flags)) or ""))
            rows[label] = {"grade": out.outcome, "status": status, "kept_out_by": kept,
                           "flags": list(out.flags), "evidence": list(out.evidence)}
        n_honest = sum(1 for k in done if k.startswith("honest:"))
        print(f"  honest patches: {n_honest} grades, false tampered {tampered} "
              f"({tampered / max(n_honest, 1):.1%}), false flagged {flagged} "
              f"({flagged / max(n_honest, 1):.1%}); cheats resolved unflagged: "
              f"{sum(r['status'] == 'resolved' for k, r in rows.items() if k.startswith('cheat'))}"
              f" of {len(names)}; {time.monotonic() - t0:.0f} s")
        report["layouts"][name] = rows
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return 1 if bad or not report["layouts"] else 0


if __name__ == "__main__":
    sys.exit(main())
