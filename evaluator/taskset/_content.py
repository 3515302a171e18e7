"""What a task's text files must hold before a lock pins them: text the harness can read and a
model can be sent.

A problem statement goes into every attempt's first request. One that is not UTF-8 passed the
lock and then crashed every attempt on the task, and the report, with a UnicodeDecodeError naming
no file; a 60 MB one passed the lock and one model call then cost $45.00. Both are the task's
fault, so the lock refuses them, naming the file and what to do.
"""

from __future__ import annotations

from pathlib import Path

# A bug report of a megabyte is already far past any real one (SWE-bench's longest are tens of
# kilobytes); beyond it the file is a paste or a mistake, never a task.
MAX_PROBLEM_BYTES = 1_000_000


def read_text(path: Path, what: str) -> str:
    """The UTF-8 text of a task file; ValueError naming the file and the first bad byte."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: {what} is not UTF-8 text (byte {exc.start} of {len(data)}: "
                         f"{data[exc.start:exc.start + 4]!r}); save it as UTF-8") from None


def text_problems(problem_statement: Path) -> list[str]:
    """Why this problem statement cannot be locked (empty: it can)."""
    size = problem_statement.stat().st_size
    if size > MAX_PROBLEM_BYTES:
        return [f"{problem_statement}: the problem statement is {size:,} bytes, over the "
                f"{MAX_PROBLEM_BYTES:,} a task may send a model; cut it to the bug report "
                "itself (logs and data belong in the repository)"]
    try:
        read_text(problem_statement, "the problem statement")
    except ValueError as exc:
        return [str(exc)]
    return []
