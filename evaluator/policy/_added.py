"""The Python source a patch adds, per file, as blocks with the line they start at in the new
file: a new file whole, a changed file as its runs of added lines (a run that does not parse on
its own is offered line by line)."""

from __future__ import annotations

import re
import textwrap

from evaluator.pysource import parse

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def added_python(patch: bytes) -> dict[str, list[tuple[int, str]]]:
    out: dict[str, list[tuple[int, str]]] = {}
    path = ""
    line_no = 0
    run: list[str] = []
    run_start = 0

    def flush() -> None:
        nonlocal run
        if run and path.endswith(".py"):
            out.setdefault(path, []).extend(_blocks(run_start, run))
        run = []

    for raw in patch.decode("utf-8", errors="replace").splitlines():
        if raw.startswith("+++ "):
            flush()
            target = raw[4:].split("\t")[0].strip()
            path = target[2:] if target.startswith("b/") else target
            continue
        if raw.startswith(("--- ", "diff --git ")):
            flush()
            continue
        m = _HUNK.match(raw)
        if m:
            flush()
            line_no = int(m.group(1))
            continue
        if raw.startswith("+"):
            if not run:
                run_start = line_no
            run.append(raw[1:])
            line_no += 1
        elif raw.startswith(" "):
            flush()
            line_no += 1
        elif not raw.startswith("-"):
            flush()
    flush()
    return out


def _blocks(start: int, lines: list[str]) -> list[tuple[int, str]]:
    source = "\n".join(lines) + "\n"
    for text in (source, textwrap.dedent(source)):
        try:
            parse(text)
            return [(start, text)]
        except (SyntaxError, ValueError):
            continue
    return [(start + i, line.strip() + "\n") for i, line in enumerate(lines) if line.strip()]
