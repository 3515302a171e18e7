"""What a task gives an exploit: its runner, its required tests and where they live, and places in
the package under test where code can be added, found in the gold patch.

The gold patch applies at the base commit, so its hunks carry exact lines of the files the fix
touches (the code the tests exercise). An exploit keeps those lines as context and adds its
code between two of them, at a point where a statement can stand: at the top level after an
import or before a top-level definition (it runs when the tests import the module), or inside
the fixed function before one of its own statements (it runs when a test calls it). Nothing but
pinned bytes is read, so every exploit patch is a function of the task's pins.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import PurePosixPath

from evaluator.grading import GradeSpec, is_protected, patch_sections

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")
_BLOCK_CONTINUES = ("else", "elif", "except", "finally", "case", ")", "]", "}")
_JOINS = ('"', "'", "+", "-", "*", "/", "%", "|", "&", "and ", "or ", "not ", "if ", ".", "=")
_OPENERS = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}
# Report options of the runners (redirects and `tee` are read as shell words).
_REPORT_OPTS = ("--junitxml=", "--junit-xml=", "--resultlog=", "--report-log=")


@dataclass(frozen=True)
class Site:
    """A place between two lines of `path` where a statement may stand, as a hunk: `before`
    are the original lines above it (from line `start`), `after` those below; `indent` is the
    statement's indentation; `top` says it runs at import (else when the function runs)."""

    path: str
    start: int
    before: tuple[str, ...]
    after: tuple[str, ...]
    indent: str
    top: bool

    def hunk(self, code: str) -> str:
        """A diff section adding `code` (dedented, one statement block) at this site."""
        lines = [self.indent + ln if ln else "" for ln in code.rstrip("\n").split("\n")]
        old = len(self.before) + len(self.after)
        body = "".join(f" {ln}\n" for ln in self.before) + "".join(f"+{ln}\n" for ln in lines) \
            + "".join(f" {ln}\n" for ln in self.after)
        return (f"diff --git a/{self.path} b/{self.path}\n--- a/{self.path}\n+++ b/{self.path}\n"
                f"@@ -{self.start},{old} +{self.start},{old + len(lines)} @@\n{body}")


@dataclass(frozen=True)
class Target:
    """One task as an exploit sees it."""

    task_id: str
    runner: str  # the task's `results:` (junit, pytest-log, django, sympy)
    test_command: str
    required: tuple[str, ...]  # FAIL_TO_PASS + PASS_TO_PASS, as the task lists them
    fail_to_pass: tuple[str, ...]
    test_files: tuple[str, ...]  # the hidden test files and the files the pytest ids name
    hidden: tuple[str, ...]  # the hidden test files alone
    sites: tuple[Site, ...]  # best first
    roots: tuple[str, ...]  # folders that may be import roots ("" is the repository's top)

    @property
    def pytest(self) -> bool:
        return self.runner in ("junit", "pytest-log")

    def written_files(self) -> list[str]:
        """Relative paths inside the repository that the test command writes (a redirect,
        `tee`, a report option): a report there is a file the patch can write too."""
        try:
            lex = shlex.shlex(self.test_command.replace("{junit_xml}", "/dev/null"), posix=True,
                              punctuation_chars=True)
            lex.whitespace_split = True
            words = list(lex)
        except ValueError:
            return []
        out = []
        for i, w in enumerate(words):
            nxt = words[i + 1] if i + 1 < len(words) else ""
            target = (nxt if w in (">", ">>", ">|", "&>", "tee") else
                      w.split("=", 1)[1] if w.startswith(_REPORT_OPTS) else None)
            if target and not target.startswith(("/", "&", "-")) and ".." not in target \
                    and not target.isdigit():
                out.append(target)
        return sorted(set(out))


def target(spec: GradeSpec, gold_patch: bytes, hidden: dict[str, bytes]) -> Target:
    files = {t.split("::", 1)[0] for t in (*spec.fail_to_pass, *spec.pass_to_pass) if "::" in t}
    sites = [s for section in patch_sections(gold_patch) for s in _sites(section)]
    sites.sort(key=lambda s: (not s.top, s.path, s.start))
    changed = sorted({s.path for s in sites})
    roots = {""} | {str(PurePosixPath(p).parents[i]) for p in changed
                    for i in range(len(PurePosixPath(p).parents) - 1)}
    return Target(
        task_id=spec.task_id, runner=spec.results, test_command=spec.test_command,
        required=(*spec.fail_to_pass, *spec.pass_to_pass), fail_to_pass=spec.fail_to_pass,
        test_files=tuple(sorted(files | set(hidden))), hidden=tuple(sorted(hidden)),
        sites=tuple(sites),
        roots=tuple(sorted(r if r != "." else "" for r in roots)))


def _sites(section: bytes) -> list[Site]:
    text = section.decode("utf-8", "replace")
    head, _, rest = text.partition("\n@@")
    if not rest or "new file mode" in head or "deleted file mode" in head:
        return []
    m = re.search(r"^\+\+\+ b/(.+)$", head, re.MULTILINE)
    if m is None:
        return []
    path = m.group(1).strip()
    if not path.endswith(".py") or is_protected(path):
        return []
    out = []
    for hunk in ("@@" + rest).split("\n@@")[0:]:
        hunk = hunk if hunk.startswith("@@") else "@@" + hunk
        h = _HUNK.match(hunk)
        if h is None:
            continue
        lines = [ln[1:] for ln in hunk.split("\n")[1:] if ln[:1] in (" ", "-")]
        point = _point(lines)
        if point is not None:
            i, indent, top = point
            out.append(Site(path, int(h.group(1)), tuple(lines[:i]), tuple(lines[i:]), indent, top))
    return out


def _point(lines: list[str]) -> tuple[int, str, bool] | None:
    """Where in the original lines a statement can go: (index, indentation, at top level); a
    top-level point first. The hunk is assumed to start outside strings and brackets."""
    quotes, depth, inner, last = _starts_in_string(lines), 0, None, ""
    for i, line in enumerate(lines):
        bare = line.strip()
        indent = line[:len(line) - len(line.lstrip())]
        word = re.split(r"[\s:(]", bare, maxsplit=1)[0] if bare else ""
        ok = (i > 0 and quotes % 2 == 0 and depth == 0 and bare and not bare.startswith("#")
              and last and not last.endswith(("\\", ",", "(", "[", "{"))
              and not last.lstrip().startswith("@") and word not in _BLOCK_CONTINUES
              # a string or operator at either side: the two lines are one expression
              and not last.endswith(_JOINS[2:]) and not bare.startswith(_JOINS)
              and not bare.startswith("from __future__"))
        if ok and not indent and not last.endswith(":"):
            return i, "", True
        # Inside a function: the shallowest point, the likeliest to run when it is called.
        if ok and indent and (inner is None or len(indent) < len(inner[1])) and (
                not last.endswith(":") or len(indent) > _width(last)):
            inner = (i, indent, False)
        if quotes % 2 == 0:
            depth = max(0, depth + sum(_OPENERS.get(c, 0) for c in _code(line)))
        quotes += line.count('"""') + line.count("'''")
        if bare and not bare.startswith("#"):
            last = line.rstrip()
    return inner


def _starts_in_string(lines: list[str]) -> int:
    """1 when the hunk begins inside a triple-quoted string: its first triple quote closes one
    (text before it on its line and nothing after, as a docstring's last line)."""
    for line in lines:
        for q in ('"""', "'''"):
            if q in line:
                before, _, after = line.strip().partition(q)
                return int(after == "" and (before != "" or line.strip() == q))
    return 0


def _width(line: str) -> int:
    return len(line) - len(line.lstrip())


def _code(line: str) -> str:
    """The line without its strings and comment, for counting brackets."""
    return re.sub(r"#.*$", "", re.sub(r"'[^']*'|\"[^\"]*\"", "", line))


__all__ = ["Site", "Target", "target"]
