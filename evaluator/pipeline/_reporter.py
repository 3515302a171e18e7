"""A quiet doit reporter with a live progress line for attempts.

Up-to-date targets print nothing, so a no-op run over 10,000 targets costs no output; only
targets that really run are listed. While attempts run, a progress line says how many are done
and running, the infra errors, the dollars spent so far and an ETA.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from doit.reporter import ConsoleReporter

from evaluator.executor import QueueMarks
from evaluator.pipeline import _context as ctx
from evaluator.pipeline._budget import Budget
from evaluator.pipeline._evaljobs import budget_path
from evaluator.settings import settings


class QuietReporter(ConsoleReporter):
    def write(self, text: str) -> None:
        # Flushed at once: targets' processes write to the same stream (evaluator/console.py).
        self.outstream.write(text)
        self.outstream.flush()

    def initialize(self, tasks: Any, selected_tasks: Any) -> None:
        super().initialize(tasks, selected_tasks)
        self._started = time.monotonic()
        self._total = self._done = self._running = 0
        self._sets: set[str] = set()
        # Attempt targets whose uptodate value is False are the ones this run will start.
        wanted = {str(n).split(":", 1)[1] for n in selected_tasks or [] if str(n).startswith("eval:")}
        self._pending = sum(
            1 for name, t in (tasks or {}).items()
            if name.startswith("attempt:") and name[8:].split("/", 1)[0] in wanted
            and t.uptodate and t.uptodate[0][0] is False
        )

    def execute_task(self, task: Any) -> None:
        if task.actions:
            self.write(f".  {task.title()}\n")
        if task.name.startswith("attempt:"):
            self._total += 1
            self._running += 1
            self._sets.add(task.name[len("attempt:"):].split("/", 1)[0])

    def add_success(self, task: Any) -> None:
        super().add_success(task)
        self._finished(task)

    def add_failure(self, task: Any, fail: Any) -> None:
        super().add_failure(task, fail)
        self._finished(task)

    def _finished(self, task: Any) -> None:
        if not task.name.startswith("attempt:"):
            return
        self._running -= 1
        self._done += 1
        self._progress()

    def _progress(self) -> None:
        spent = errors = 0.0
        for name in self._sets:
            state = Budget(budget_path(name), None).state()
            spent += state["spent"]
            errors += state["errors"]
        elapsed = time.monotonic() - self._started
        left = max(self._pending - self._done, self._running)
        eta = elapsed / self._done * left if self._done else 0.0
        sys.stderr.write(f"[eval] done {self._done}/{self._pending}, running {self._running}, errors "
                         f"{int(errors)}, cost ${spent:.4f}, ETA {eta:.0f}s, "
                         f"queue age {self._queue_age(elapsed):.0f}s\n")
        sys.stderr.flush()

    def _queue_age(self, elapsed: float) -> float:
        """The oldest waiting attempt's wait: one doit has not started yet has waited since the
        run began; a started one waits for a sandbox slot (or a node) until its mark goes."""
        if self._total < self._pending:
            return elapsed
        return QueueMarks(ctx.store().root, settings.invocation or "").oldest()

    def skip_uptodate(self, task: Any) -> None:
        pass

    def skip_ignore(self, task: Any) -> None:
        pass
