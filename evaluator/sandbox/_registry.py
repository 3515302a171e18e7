"""Every sandbox this process has open, removed when the process exits or is told to stop.

A harness killed by Ctrl-C or by its supervisor must not leave containers running; whatever
still escapes (SIGKILL, a power cut) is found later by `cleanup_leftovers` from the labels.
"""

from __future__ import annotations

import atexit
import os
import signal
import threading
from types import FrameType
from typing import Protocol

from evaluator.console import say
from evaluator.sandbox._removal import drain


class _Closable(Protocol):
    def close(self) -> None: ...


_open: dict[int, _Closable] = {}
_lock = threading.Lock()
_installed = False


def register(sandbox: _Closable) -> None:
    _install_once()
    with _lock:
        _open[id(sandbox)] = sandbox


def unregister(sandbox: _Closable) -> None:
    with _lock:
        _open.pop(id(sandbox), None)


def close_all() -> None:
    """Close every registered sandbox, reporting but not raising failures."""
    with _lock:
        sandboxes = list(_open.values())
        _open.clear()
    for sandbox in sandboxes:
        try:
            sandbox.close()
        except Exception as e:  # at exit, one failure must not stop the rest
            say(f"evaluator: could not remove a sandbox: {e}", err=True)

    drain()


def _install_once() -> None:
    global _installed
    with _lock:
        if _installed:
            return
        _installed = True
    atexit.register(close_all)
    # Python only allows signal handlers to be set from the main thread.
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGINT):
            _chain(signum)


def _chain(signum: int) -> None:
    previous = signal.getsignal(signum)

    def handler(received: int, frame: FrameType | None) -> None:
        close_all()
        if callable(previous):
            previous(received, frame)
        elif previous == signal.SIG_DFL:
            # Re-deliver with the default action, so the exit status still says "killed by".
            signal.signal(received, signal.SIG_DFL)
            os.kill(os.getpid(), received)

    signal.signal(signum, handler)
