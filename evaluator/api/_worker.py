"""The worker of one run: claims it, runs `doit eval:<set>` as a CLI user would, records how it
ended. `python -m evaluator.api._worker --run ID -- <doit command>`; the server starts it in its
own session with stdout on the run's log, and it outlives a server restart.

It records its own outcome, so a server that dies mid-run loses nothing; if the worker itself
dies, the server sees its (pid, start time) gone and resumes or fails the run.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from types import FrameType

from evaluator.api._db import Run, RunDB
from evaluator.api._procs import start_time
from evaluator.api._progress import WORKER_MARK, progress
from evaluator.api._runplan import AgentRef, resolve_agent, run_plan
from evaluator.api._settings import DOIT_ENV, Settings
from evaluator.console import say
from evaluator.errors import EvalError
from evaluator.settings import Settings as Declared
from evaluator.store import Store

_TAIL_LINES = 4


def failure_cause(log_text: str, task_set: str, code: int) -> str:
    """Why doit failed, in its own words: the last lines it printed after the last worker mark."""
    segment = log_text.rsplit(WORKER_MARK, 1)[-1].splitlines()[1:]
    said = [line.strip() for line in segment
            if line.strip() and not line.startswith(("[eval]", ".  ", "#"))]
    tail = " | ".join(said[-_TAIL_LINES:]) or "no output"
    return f"`doit eval:{task_set}` exited with code {code}: {tail}"


def _snapshot(settings: Settings, run: Run) -> dict[str, object] | None:
    try:
        plan = run_plan(settings, run.task_set, run.agent, run.samples, run.isolation)
    except EvalError as exc:
        say(f"worker: no final counts: {type(exc).__name__}: {exc}")
        return None
    return progress(Store(settings.store), plan)


def run_doit(settings: Settings, run: Run, doit: Sequence[str], jobs: int) -> tuple[int, str | None]:
    """(doit's exit code, why it failed or None)."""
    env = {**os.environ, Declared.only_agents.env: run.agent,
           Declared.samples.env: str(run.samples),
           **({Declared.isolation.env: run.isolation} if run.isolation else {})}
    argv = [*doit, "-n", str(jobs), "-P", "process", f"eval:{run.task_set}"]
    say(f"worker: {' '.join(argv)}")
    try:
        code = subprocess.run(argv, env=env, cwd=settings.cwd, stdin=subprocess.DEVNULL).returncode
    except OSError as exc:
        return 127, (f"cannot start doit ({argv[0]}): {exc}; check {DOIT_ENV} or that doit is "
                     f"installed beside the server's Python")
    if code == 0:
        return 0, None
    log = settings.log_path(run.id)
    text = log.read_text(errors="replace") if log.is_file() else ""
    return code, failure_cause(text, run.task_set, code)


def _on_sigterm(db: RunDB, run: Run, pid: int) -> None:
    def handler(signum: int, frame: FrameType | None) -> None:
        db.fail(run.id, "the worker was stopped by SIGTERM; attempts it finished are kept in the "
                "store: post the run again to go on", status="running", pid=pid)
        # The worker leads its process group: this ends doit and doit's forks with it.
        os.killpg(os.getpgid(0), signal.SIGKILL)

    signal.signal(signal.SIGTERM, handler)


def work(settings: Settings, run_id: str, doit: Sequence[str], jobs: int) -> int:
    db = RunDB(settings.db_path)
    pid = os.getpid()
    run = db.claim(run_id, pid, start_time(pid))
    if run is None:
        say(f"worker pid {pid}: run {run_id} is not queued (another worker has it); exiting")
        return 0
    say(f"{WORKER_MARK} pid={pid} start={run.starts} at={time.strftime('%Y-%m-%dT%H:%M:%S%z')}")
    _on_sigterm(db, run, pid)
    try:
        resolve_agent(settings, AgentRef(run.agent, run.identity))
    except EvalError as exc:  # the agent changed or went away since the run was posted
        db.finish(run.id, pid, status="failed", cause=f"not started: {exc}", exit_code=None,
                  counts=None)
        return 0
    code, cause = run_doit(settings, run, doit, jobs)
    recorded = db.finish(run.id, pid, status="succeeded" if code == 0 else "failed", cause=cause,
                         exit_code=code, counts=_snapshot(settings, run))
    say(f"worker: run {run.id} {'ended' if recorded else 'was taken over; not recorded'}: "
         f"exit code {code}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluator.api._worker")
    parser.add_argument("--run", required=True, help="run id in <store>/api/runs.sqlite")
    parser.add_argument("--jobs", type=int, default=2, help="doit -n")
    parser.add_argument("doit", nargs="+", help="the doit command, after --")
    args = parser.parse_args(argv)
    return work(Settings.from_env(), args.run, args.doit, args.jobs)


if __name__ == "__main__":
    sys.exit(main())
