"""What a patch adds to each Python file: the numbers its added lines have in the new file, and,
for a file whose whole text is not at hand, the added runs as blocks that parse on their own.

A new file, a copy, or a rename from something that was not Python source counts as added whole:
every line of it is code that was not importable under that name before.
"""

from __future__ import annotations

import ast
import re
import textwrap
import warnings
from dataclasses import dataclass, field

from evaluator.grading import is_protected, opaque_reason, patch_paths
from evaluator.grading import patch_sections as sections
from evaluator.pysource import parse

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")
_SOURCE = re.compile(r"\.pyw?$", re.IGNORECASE)


@dataclass
class AddedFile:
    path: str
    whole: bool = False  # every line is new
    lines: set[int] = field(default_factory=set)  # added lines, numbered as in the new file
    runs: list[tuple[int, list[str]]] = field(default_factory=list)  # (first line, lines)
    hunks: list[tuple[int, list[str]]] = field(default_factory=list)  # new side, context too

    def parsed_hunks(self) -> tuple[list[tuple[int, str]], list[tuple[int, list[str]]]]:
        """(hunks whose new side parses as a whole, the added runs of the others)."""
        whole: list[tuple[int, str]] = []
        rest: list[tuple[int, list[str]]] = []
        for start, lines in self.hunks:
            text = textwrap.dedent("\n".join(lines) + "\n")
            try:
                quiet_parse(text)
                whole.append((start, text))
            except (SyntaxError, ValueError):
                last = start + len(lines) - 1
                rest.extend(r for r in self.runs if start <= r[0] <= last)
        return whole, rest

    def blocks(self) -> list[tuple[int, str]]:
        """The added runs as (first line, source) blocks that parse; a run that does not parse
        on its own is offered line by line."""
        out: list[tuple[int, str]] = []
        for start, lines in self.parsed_hunks()[1] if self.hunks else self.runs:
            out.extend(_blocks(start, lines))
        return out


def added_files(patch: bytes) -> dict[str, AddedFile]:
    """Each library Python file the patch changes (tests, test configuration and sections the
    grader leaves out as unreadable are not applied, so not read here)."""
    out: dict[str, AddedFile] = {}
    for section in sections(patch):
        paths = patch_paths(section)
        target = _target(section, paths)
        if not target or not _SOURCE.search(target) or is_protected(target) or \
                opaque_reason(section, paths):
            continue
        entry = out.setdefault(target, AddedFile(target))
        entry.whole = entry.whole or _is_new(section)
        _read_hunks(section, entry)
    return out


def _target(section: bytes, paths: list[str]) -> str:
    """The path the section writes ("" for a deletion)."""
    new = ""
    for raw in section.splitlines():
        if raw.startswith(b"@@"):
            break
        if raw.startswith((b"+++ /dev/null", b"deleted file mode")):
            return ""
        if raw.startswith((b"+++ ", b"rename to ", b"copy to ")):
            new = next(iter(patch_paths(raw + b"\n")), new)
    return new or (paths[0] if len(paths) == 1 else "")


def _is_new(section: bytes) -> bool:
    head = section.split(b"\n@@", 1)[0]
    if b"\nnew file mode" in head or b"--- /dev/null" in head or b"\ncopy from " in head:
        return True
    m = re.search(rb"^rename from (.*)$", head, re.MULTILINE)
    return m is not None and not _SOURCE.search(m.group(1).decode("utf-8", "replace").strip('"'))


def _read_hunks(section: bytes, entry: AddedFile) -> None:
    line_no = 0
    run: list[str] = []
    run_start = 0

    def flush() -> None:
        nonlocal run
        if run:
            entry.runs.append((run_start, run))
        run = []

    for raw in section.decode("utf-8", errors="replace").splitlines():
        m = _HUNK.match(raw)
        if m:
            flush()
            line_no = int(m.group(1)) or 1
            entry.hunks.append((line_no, []))
            continue
        if not line_no:
            continue
        if raw.startswith(("+", " ")):
            entry.hunks[-1][1].append(raw[1:])
        if raw.startswith("+"):
            if not run:
                run_start = line_no
            run.append(raw[1:])
            entry.lines.add(line_no)
            line_no += 1
        elif raw.startswith(" "):
            flush()
            line_no += 1
        elif not raw.startswith(("-", "\\")):
            flush()
    flush()


def _blocks(start: int, lines: list[str]) -> list[tuple[int, str]]:
    source = "\n".join(lines) + "\n"
    for text in (source, textwrap.dedent(source)):
        try:
            quiet_parse(text)
            return [(start, text)]
        except (SyntaxError, ValueError):
            continue
    return [(start + i, line.strip() + "\n") for i, line in enumerate(lines) if line.strip()]


def quiet_parse(source: str) -> ast.Module:
    """`parse`, without the warnings an invalid escape in the patch would print."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        return parse(source)
