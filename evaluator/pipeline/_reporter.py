"""A quiet doit reporter: up-to-date targets print nothing, so a no-op run over 10,000 targets
costs no output; only targets that really run are listed."""

from __future__ import annotations

from typing import Any

from doit.reporter import ConsoleReporter


class QuietReporter(ConsoleReporter):  # type: ignore[misc]
    def execute_task(self, task: Any) -> None:
        if task.actions:
            self.write(f".  {task.title()}\n")

    def skip_uptodate(self, task: Any) -> None:
        pass

    def skip_ignore(self, task: Any) -> None:
        pass
