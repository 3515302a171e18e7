"""Just enough unified-diff parsing to take a gold patch apart hunk by hunk and put it back."""

from __future__ import annotations

import re
from dataclasses import dataclass

_HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


@dataclass(frozen=True)
class FilePatch:
    """One file's section: its header lines (`diff --git`, `---`, `+++`, modes) and its hunks."""

    header: tuple[str, ...]
    hunks: tuple[tuple[str, ...], ...]
    path: str
    is_new: bool

    def changed_lines(self, hunk: int) -> int:
        return sum(1 for line in self.hunks[hunk][1:] if line[:1] in "+-")


def parse_patch(text: str) -> tuple[str, list[FilePatch]]:
    """Split `text` into a preamble and file sections; hunk ends are found by their line counts,
    so a removed line that starts with `--` is never taken for a file header."""
    lines = text.splitlines(keepends=True)
    preamble: list[str] = []
    files: list[FilePatch] = []
    header: list[str] = []
    hunks: list[tuple[str, ...]] = []
    i = 0

    def flush() -> None:
        if header or hunks:
            files.append(_file(header, hunks))

    while i < len(lines):
        line = lines[i]
        match = _HUNK.match(line)
        if match and (header or hunks):
            old = int(match.group(1) or 1)
            new = int(match.group(2) or 1)
            body = [line]
            i += 1
            while i < len(lines) and (old > 0 or new > 0 or lines[i].startswith("\\")):
                kind = lines[i][:1]
                if kind in (" ", "\n", "\r"):
                    old, new = old - 1, new - 1
                elif kind == "-":
                    old -= 1
                elif kind == "+":
                    new -= 1
                body.append(lines[i])
                i += 1
            hunks.append(tuple(body))
            continue
        if line.startswith("diff --git ") or (line.startswith("--- ") and (hunks or not header)):
            flush()
            header, hunks = [line], []
        elif header and not hunks:
            header.append(line)
        elif hunks:
            # Trailing text after a file's last hunk (e.g. a format-patch signature): keep it.
            hunks[-1] = (*hunks[-1], line)
        else:
            preamble.append(line)
        i += 1
    flush()
    return "".join(preamble), files


def render_patch(preamble: str, files: list[FilePatch]) -> str:
    return preamble + "".join(
        "".join(f.header) + "".join("".join(h) for h in f.hunks) for f in files
    )


def _file(header: list[str], hunks: list[tuple[str, ...]]) -> FilePatch:
    old_path = new_path = git_path = None
    is_new = False
    for line in header:
        if line.startswith("diff --git "):
            parts = line.split()
            git_path = parts[-1][2:] if len(parts) >= 4 and parts[-1].startswith("b/") else None
        elif line.startswith("--- "):
            old_path = _strip(line[4:])
            is_new = is_new or old_path is None
        elif line.startswith("+++ "):
            new_path = _strip(line[4:])
        elif line.startswith("new file mode"):
            is_new = True
    path = new_path or old_path or git_path or ""
    return FilePatch(tuple(header), tuple(hunks), path, is_new)


def _strip(name: str) -> str | None:
    name = name.rstrip("\r\n").split("\t")[0]
    if name == "/dev/null":
        return None
    return name[2:] if name[:2] in ("a/", "b/") else name


def drop_largest_hunk(text: str) -> str | None:
    """The patch without its biggest hunk (the likeliest to carry the fix), or None if that
    leaves nothing to apply."""
    preamble, files = parse_patch(text)
    ranked = [
        (f.changed_lines(h), -fi, -h, fi, h)
        for fi, f in enumerate(files)
        for h in range(len(f.hunks))
    ]
    if len(ranked) < 2:
        return None
    *_, fi, hi = max(ranked)
    target = files[fi]
    remaining = target.hunks[:hi] + target.hunks[hi + 1 :]
    if remaining:
        files[fi] = FilePatch(target.header, remaining, target.path, target.is_new)
    else:
        del files[fi]
    return render_patch(preamble, files) if files else None


__all__ = ["FilePatch", "drop_largest_hunk", "parse_patch", "render_patch"]
