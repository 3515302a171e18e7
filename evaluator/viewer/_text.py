"""Long texts cut for a page, and a diff split into lines a stylesheet can colour.

Nothing here marks anything safe: every string leaves as text, and the templates escape it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Shown:
    """What a page shows of a text: all of it, or its head and tail around a cut."""

    head: str
    tail: str
    total: int  # characters in the whole text
    cut: bool

    @property
    def omitted(self) -> int:
        return self.total - len(self.head) - len(self.tail)


def decode(data: bytes | None) -> str:
    return "" if data is None else data.decode("utf-8", errors="replace")


def shorten(text: str, limit: int) -> Shown:
    """The whole text when it fits `limit`, else three quarters head and one quarter tail."""
    if len(text) <= limit:
        return Shown(text, "", len(text), False)
    head = limit * 3 // 4
    return Shown(text[:head], text[len(text) - (limit - head):], len(text), True)


_DIFF_META = ("diff --git", "index ", "--- ", "+++ ", "new file", "deleted file", "old mode",
              "new mode", "similarity", "rename ", "Binary files", "GIT binary patch")


def diff_lines(patch: str) -> list[tuple[str, str]]:
    """(css class, line) for each line of a unified diff: meta, hunk, add, del or ctx."""
    out: list[tuple[str, str]] = []
    for line in patch.splitlines():
        if line.startswith(_DIFF_META):
            kind = "meta"
        elif line.startswith("@@"):
            kind = "hunk"
        elif line.startswith("+"):
            kind = "add"
        elif line.startswith("-"):
            kind = "del"
        else:
            kind = "ctx"
        out.append((kind, line))
    return out


def money(value: object) -> str:
    if value is None:
        return "unpriced"
    return f"${float(value):.4f}" if isinstance(value, int | float) else str(value)


def rate(value: object) -> str:
    return "–" if value is None else f"{float(value):.1%}" if isinstance(value, int | float) else str(value)
