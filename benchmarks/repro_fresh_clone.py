"""A fresh clone on a fresh engine gets the committed lock byte for byte, then runs the demo.

Clones the repository's HEAD into a temporary directory, starts a second dockerd with an empty
data root of its own (tests/engines.py), and there runs `doit lock:demo`, which builds the base
image from lock/base.lock (debootstrap, about a minute and a half) and the demo's task images,
and writes lock/demo.lock. The written lock must equal the committed one (`git diff
--exit-code`): the same ids, so the same keys. With --demo it then runs the rest of `make demo`
(gold, eval, report) on that engine against the committed lock. Prints each step's time.

    .venv/bin/python benchmarks/repro_fresh_clone.py [--demo] [--smoke]

The clone uses this checkout's .venv (PYTHONPATH set to the clone), so nothing is installed.

`--smoke`: the clone, the fresh engine (started, asked for its images, stopped) and the clone's
doit listing `lock:demo` against it; it leaves out the lock itself (the base image's debootstrap
build, minutes; tests/images/test_reproducible.py builds it in CI on a second engine) and so the
comparison with the committed lock and `--demo`.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.engines import start_engine  # noqa: E402

VENV = REPO / ".venv" / "bin"


def step(name: str, cmd: list[str], cwd: Path, env: dict[str, str]) -> None:
    started = time.monotonic()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    took = time.monotonic() - started
    print(f"{name:40} {took:7.1f} s  exit {proc.returncode}", flush=True)
    if proc.returncode != 0:
        print(proc.stdout[-3000:], proc.stderr[-3000:], sep="\n")
        raise SystemExit(f"{name} failed")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--demo", action="store_true", help="also run gold, eval and report")
    ap.add_argument("--smoke", action="store_true",
                    help="clone, engine and doit's listing; no lock (see above): does it run?")
    args = ap.parse_args()
    engine = start_engine("evaluator-repro-")
    try:
        with tempfile.TemporaryDirectory(prefix="evaluator-clone-") as tmp:
            clone = Path(tmp) / "clone"
            subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
            env = {k: v for k, v in os.environ.items() if not k.startswith("EVAL_")}
            env.update(engine.env, PYTHONPATH=str(clone), EVAL_STORE=str(Path(tmp) / "store"),
                       EVAL_BASE_LOCK=str(clone / "lock" / "base.lock"))
            doit = [str(VENV / "doit")]
            if args.smoke:
                step("the fresh engine has no image", ["sh", "-c", 'test -z "$(docker images -q)"'],
                     clone, env)
                step("doit lists lock:demo (the clone's dodo.py)",
                     ["sh", "-c", f"{doit[0]} list --all lock | grep -q '^lock:demo '"], clone, env)
                return
            step("doit lock:demo (fresh engine)", [*doit, "lock:demo"], clone, env)
            step("lock/demo.lock equals the committed one",
                 ["git", "diff", "--exit-code", "--stat", "lock/"], clone, env)
            if args.demo:
                step("doit gold:demo", [*doit, "-n", "4", "-P", "process", "gold:demo"], clone, env)
                step("doit eval:demo", [*doit, "-n", "4", "-P", "process", "eval:demo"], clone, env)
                step("doit report:demo", [*doit, "report:demo"], clone, env)
                step("lock still the committed one", ["git", "diff", "--exit-code", "lock/"],
                     clone, env)
    finally:
        engine.stop()


if __name__ == "__main__":
    main()
