"""Split a patch into its per-file sections and leave out those that touch protected paths.

Grading starts from the image's own tree (the one the agent saw, ignored and untracked files
included) and applies only the sections of the patch that do not touch tests, test
configuration, import hooks or hidden-test paths; so nothing has to be put back afterwards, and
files that `git clean -x` would have removed stay. The split is checked against what git itself
reads from the filtered patch (`git apply --numstat`), so a section this parser misses cannot
slip a protected path through. git reads it on the harness's side, where nothing of the patch
can run or answer for it.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable

from evaluator.errors import InfraError
from evaluator.grading._paths import patch_paths


def sections(patch: bytes) -> list[bytes]:
    """The patch cut before each file header (`diff --git`, or `---` then `+++` in a plain diff)."""
    lines = patch.splitlines(keepends=True)
    cuts = [0]
    in_git_section = False
    for i, line in enumerate(lines):
        if line.startswith(b"diff --git "):
            in_git_section = True
            cuts.append(i)
        elif (not in_git_section and line.startswith(b"--- ") and i + 1 < len(lines)
              and lines[i + 1].startswith(b"+++ ")):
            cuts.append(i)
    cuts = sorted(set(cuts))
    out = [b"".join(lines[a:b]) for a, b in zip(cuts, [*cuts[1:], len(lines)], strict=True)]
    return [s for s in out if s]


def filter_patch(patch: bytes, protected: Callable[[str], bool]) -> tuple[bytes, list[str]]:
    """(the patch without sections naming a protected path, the protected paths it named)."""
    kept, dropped = [], []
    for section in sections(patch):
        hit = [p for p in patch_paths(section) if protected(p)]
        if hit:
            dropped.extend(hit)
        else:
            kept.append(section)
    return b"".join(kept), sorted(set(dropped))


def numstat_paths(output: bytes) -> list[str]:
    """Paths from `git apply --numstat -z`: `added\\tdeleted\\tpath\\0`, or for a rename
    `added\\tdeleted\\t\\0from\\0to\\0`."""
    paths: list[str] = []
    fields = output.split(b"\0")
    i = 0
    while i < len(fields):
        entry = fields[i]
        if not entry:
            i += 1
            continue
        parts = entry.split(b"\t", 2)
        if len(parts) == 3 and parts[2]:
            paths.append(parts[2].decode("utf-8", "surrogateescape"))
            i += 1
        else:  # a rename or copy: the two names follow as fields of their own
            paths.extend(f.decode("utf-8", "surrogateescape") for f in fields[i + 1 : i + 3])
            i += 3
    return paths


def git_numstat(patch: bytes) -> list[str]:
    """Every path git would touch applying `patch` (no repository needed to ask)."""
    if not patch.strip():
        return []
    try:
        r = subprocess.run(["git", "apply", "--numstat", "-z", "-"], input=patch,
                           capture_output=True, timeout=60, cwd="/")
    except (OSError, subprocess.SubprocessError) as exc:
        raise InfraError(f"cannot run git on the harness's machine to read a patch: {exc}; "
                         "install git") from exc
    # A patch git cannot parse fails to apply in the sandbox too: that is the grade's outcome.
    return numstat_paths(r.stdout) if r.returncode == 0 else []
