"""The server's supervisor: starts queued runs' workers and watches that running ones live.

A worker records its run's outcome itself. The supervisor only has to notice a worker that
died without doing so (killed, OOM, machine reboot): on start-up and every `poll_s` it checks
each running run's (pid, start time), and a dead worker's run is queued again to be resumed
(the store keeps what it finished, so a resume runs only the rest) until `max_starts`, then
failed with the cause. No run stays `running` without a live worker.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading

from evaluator.api._db import Run, RunDB
from evaluator.api._procs import alive, kill_leftovers
from evaluator.api._settings import Settings


class Supervisor:
    def __init__(self, settings: Settings, db: RunDB) -> None:
        self._settings = settings
        self._db = db
        self._children: dict[str, subprocess.Popen[bytes]] = {}  # run id -> worker we started
        self._lock = threading.Lock()  # one tick at a time: start-up, the thread, a wake-up
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self.tick()  # before the first request: no run looks alive that is not
        self._thread = threading.Thread(target=self._loop, name="evaluator-api-supervisor",
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop supervising; running workers go on and record their own outcome."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def wake(self) -> None:
        """Start queued runs now rather than at the next poll."""
        self._wake.set()

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self._settings.poll_s)
            self._wake.clear()
            if self._stop.is_set():
                return
            try:
                self.tick()
            except Exception as exc:  # the loop must outlive a locked database or a full disk
                print(f"evaluator.api supervisor: {type(exc).__name__}: {exc}", file=sys.stderr)

    def tick(self) -> None:
        with self._lock:
            exited = self._reap()
            for run in self._db.with_status("running"):
                if run.pid is None or not alive(run.pid, run.pid_start):
                    self._worker_died(run, exited.get(run.pid or 0))
            self._start_queued()

    def _reap(self) -> dict[int, int]:
        """pid -> exit code of our workers that ended; a worker that died before claiming its
        run fails it (it would die the same way again)."""
        exited: dict[int, int] = {}
        for run_id, proc in list(self._children.items()):
            code = proc.poll()
            if code is None:
                continue
            del self._children[run_id]
            exited[proc.pid] = code
            run = self._db.get(run_id)
            # run.pid is the last claimer's: if it is this worker's, it did start (and died,
            # and was queued again), which the liveness check handles.
            if run is not None and run.status == "queued" and code != 0 and run.pid != proc.pid:
                self._db.fail(run_id, self._cause(run, f"the worker exited with code {code} before "
                                                       f"it started the run"), status="queued")
        return exited

    def _worker_died(self, run: Run, code: int | None) -> None:
        pid = run.pid or 0
        kill_leftovers(pid, run.pid_start)
        how = ("died" if code is None else f"exited with code {code}" if code >= 0
               else f"was killed by {_signal_name(-code)}")
        if code is not None and code > 0:
            # A worker that exits on its own without recording crashed in Python: retrying
            # would crash again.
            self._db.fail(run.id, self._cause(run, f"the worker (pid {pid}) {how} without "
                                                   f"recording an outcome"),
                          status="running", pid=pid)
        elif run.starts < self._settings.max_starts:
            self._db.requeue(run.id, pid, f"the worker (pid {pid}) {how} during start "
                             f"{run.starts} of at most {self._settings.max_starts}; resumed, "
                             f"finished attempts are not run again")
        else:
            self._db.fail(run.id, f"the worker {how} (pid {pid}) in each of {run.starts} starts; "
                          f"attempts finished so far are kept in the store: post the run again "
                          f"to go on, and see {self._settings.log_path(run.id)}",
                          status="running", pid=pid)

    def _cause(self, run: Run, what: str) -> str:
        log = self._settings.log_path(run.id)
        text = log.read_text(errors="replace") if log.is_file() else ""
        lines = [line for line in text.splitlines() if line.strip()][-3:]
        return f"{what}: {' | '.join(lines) or 'no output'} (log: {log})"

    def _start_queued(self) -> None:
        # One snapshot: counted in two reads, a worker that claims its run between them is
        # neither running in the first nor starting in the second, and one run too many starts.
        active = self._db.active()
        busy = {r.id for r in active if r.status == "running" or r.id in self._children}
        free = self._settings.max_runs - len(busy)
        for run in active:
            if free <= 0:
                return
            if run.status != "queued" or run.id in self._children:
                continue
            self._spawn(run)
            free -= 1

    def _spawn(self, run: Run) -> None:
        s = self._settings
        log = s.log_path(run.id)
        log.parent.mkdir(parents=True, exist_ok=True)
        argv = [sys.executable, "-m", "evaluator.api._worker", "--run", run.id,
                "--jobs", str(s.jobs), "--", *s.doit]
        with open(log, "ab") as out:
            # Its own session: a Ctrl-C or SIGKILL of the server leaves the run going, and the
            # worker's process group is what is cleaned up if the worker dies.
            self._children[run.id] = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                env=s.worker_env(), cwd=s.cwd, start_new_session=True)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
