"""Lines for the console that stay whole when several processes share it.

doit runs targets in processes that write to the reporter's stdout and stderr. `print()` writes
its text and its newline as two writes, each a system call when output is unbuffered
(PYTHONUNBUFFERED, as CI sets), so another process's line could land between them: two lines run
together, and whoever reads the log (a user's script, the tests) misses a target. One write of
the whole line, flushed at once, is kept whole by the pipe (up to PIPE_BUF bytes).
"""

from __future__ import annotations

import sys

__all__ = ["say"]


def say(text: object = "", *, err: bool = False) -> None:
    """Write `text` and its newline to stdout (stderr with `err`) in one write, then flush."""
    stream = sys.stderr if err else sys.stdout
    stream.write(f"{text}\n")
    stream.flush()
