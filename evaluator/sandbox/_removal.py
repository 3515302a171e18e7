"""Removing closed sandboxes off the caller's path.

A sandbox is killed at once when it is closed, so nothing of it runs afterwards; removing it (a
container, a folder) can take a second or more (a btrfs subvolume is deleted and committed), which no grade
or attempt should wait for. Removals run on one background thread; the process waits for the
ones still pending when it exits or is told to stop, and whatever a SIGKILL leaves is found by
`cleanup_leftovers` from the labels.
"""

from __future__ import annotations

import atexit
import queue
import threading
from collections.abc import Callable
from typing import Protocol

from evaluator.console import say


class Removable(Protocol):
    short_id: str

    def remove(self) -> None:
        """Remove it (it is stopped already); failures are said, not raised."""
        ...


_jobs: queue.Queue[tuple[Removable, Callable[[], None]]] = queue.Queue()
_worker: threading.Thread | None = None
_lock = threading.Lock()


def remove_later(container: Removable, done: Callable[[], None]) -> None:
    """Remove `container` (a backend's `Machine`) on the background thread, then call `done`."""
    global _worker
    with _lock:
        if _worker is None:
            _worker = threading.Thread(target=_run, name="sandbox-removal", daemon=True)
            _worker.start()
            atexit.register(drain)
    _jobs.put((container, done))


def drain(timeout_s: float = 120.0) -> bool:
    """Wait until every queued removal has finished; False if some are still pending."""
    finished = threading.Event()

    def waiter() -> None:
        _jobs.join()
        finished.set()

    threading.Thread(target=waiter, daemon=True).start()
    return finished.wait(timeout_s)


def _run() -> None:
    while True:
        container, done = _jobs.get()
        try:
            container.remove()
        except Exception as e:  # noqa: BLE001 - one failure must not stop the thread
            say(f"evaluator: could not remove sandbox {container.short_id} (the next run's "
                f"leftover cleanup will): {e}", err=True)
        finally:
            try:
                done()
            finally:
                _jobs.task_done()
