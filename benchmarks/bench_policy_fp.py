"""False positives of the capability policy on honest fixes: real bug-fix commits of Python
projects, scanned as the harness scans an attempt's patch.

    .venv/bin/python benchmarks/bench_policy_fp.py REPO [REPO ...] [--count 30] [--since 2018-01-01]
        [--json out.json] [--examples 3]
    .venv/bin/python benchmarks/bench_policy_fp.py --smoke

Each REPO is a git repository (a clone of any Python project). From each, `--count` commits are
taken evenly across its non-merge history since `--since` whose message says they fix something
(fix, bug, regression, closes #N...) and that change library code (a `.py` file the grader does
not treat as a test, test configuration or import hook) by at most `--max-lines` added lines.
Each is diffed as the harness diffs a working tree (`git diff --binary --no-renames`), filtered
as the grader filters a patch (opaque files counted), and scanned with the whole new text of
every changed file (what the grader reads back after `git apply`; `--patch-only`: the added
lines alone). It prints, per repository and
in all: commits scanned, commits with a violation (a policy failure), with only flags, and the
count per rule, with examples (commit, file:line, the line).

`--smoke` generates its own repository instead (four commits: two honest fixes, one fix that
reads `sys.modules`, one that changes only a test) and exits non-zero unless the run scans the
three library fixes and finds the violation in that one alone.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evaluator.grading import is_protected, opaque_reason, patch_paths, patch_sections  # noqa: E402
from evaluator.policy import scan_patch  # noqa: E402

_FIX = re.compile(r"\b(fix(e[sd])?|bug(fix)?|regression|closes?\s+#\d+|fixes\s+#\d+|resolve[sd]?\s+#\d+)\b",
                  re.IGNORECASE)


def git(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True).stdout


def candidates(repo: Path, since: str) -> list[str]:
    """Commits whose subject says they fix something, oldest first (whether they touch library
    code is read per commit: a partial clone may lack some trees)."""
    log = git(repo, "log", "--reverse", "--no-merges", f"--since={since}", "--format=%H %s",
              "HEAD").decode("utf-8", "replace")
    return [line.split(" ", 1)[0] for line in log.splitlines() if _FIX.search(line)]


def added_library_lines(patch: bytes) -> int:
    n, library = 0, False
    for line in patch.splitlines():
        if line.startswith(b"+++ "):
            path = line[6:].decode("utf-8", "replace") if line.startswith(b"+++ b/") else ""
            library = path.endswith(".py") and not is_protected(path)
        elif library and line.startswith(b"+"):
            n += 1
    return n


def evenly(items: list[str], count: int) -> list[str]:
    if len(items) <= count:
        return items
    step = len(items) / count
    return [items[int(i * step)] for i in range(count)]


Scan = tuple[list[dict[str, object]], list[tuple[str, str]]]


def library_patch(repo: Path, sha: str, max_lines: int) -> bytes | None:
    """The commit as the harness diffs a tree; None when it changes no library code, more than
    `max_lines` of it, or its objects are missing from this clone."""
    try:
        stat = git(repo, "diff", "--numstat", "--no-renames", f"{sha}^", sha).decode("utf-8", "replace")
        lines = sum(int(a) for a, _, path in (row.split("\t", 2) for row in stat.splitlines())
                    if a.isdigit() and path.endswith(".py") and not is_protected(path))
        if not 0 < lines <= max_lines:  # counted first: a vendored tree's diff is huge
            return None
        patch = git(repo, "diff", "--binary", "--no-renames", "--full-index", f"{sha}^", sha)
    except (subprocess.CalledProcessError, ValueError):
        return None
    return patch if 0 < added_library_lines(patch) <= max_lines else None


def scan(repo: Path, sha: str, patch: bytes, whole: bool = True) -> Scan | None:
    """(findings, opaque files) of one commit, scanned with the new text of each changed file."""
    try:
        names = git(repo, "diff", "--name-only", "--no-renames", "--diff-filter=AM", f"{sha}^", sha)
        sources = {p: git(repo, "show", f"{sha}:{p}")
                   for p in names.decode("utf-8", "surrogateescape").splitlines()
                   if p.endswith(".py") and not is_protected(p)}
    except subprocess.CalledProcessError:
        return None
    opaque = [(paths[-1], why) for section in patch_sections(patch)
              if (paths := patch_paths(section)) and not any(map(is_protected, paths))
              and (why := opaque_reason(section, paths))]
    found = scan_patch(patch, sources if whole else None)
    return [f.to_dict() | {"fatal": f.fatal} for f in found], opaque


_SMOKE_COMMITS = (  # (subject, path, text)
    ("Add the library", "lib/calc.py", "def add(a, b):\n    return a - b\n"),
    ("Fix add: it subtracted (closes #1)", "lib/calc.py", "def add(a, b):\n    return a + b\n"),
    ("Fix the test of add", "tests/test_calc.py", "def test_add():\n    assert True\n"),
    ("Fix a regression in add", "lib/calc.py",
     "import sys\n\n\ndef add(a, b):\n    sys.modules.get('pytest')\n    return a + b\n"),
)
_SMOKE_VIOLATES = "Fix a regression in add"


def smoke_repo(dest: Path) -> Path:
    """A small repository shaped like a project's history: `_SMOKE_COMMITS`, a year apart."""
    dest.mkdir(parents=True)
    git(dest, "init", "-q")
    for i, (subject, path, text) in enumerate(_SMOKE_COMMITS):
        (dest / path).parent.mkdir(parents=True, exist_ok=True)
        (dest / path).write_text(text)
        git(dest, "add", "-A")
        date = f"{2019 + i}-01-01T00:00:00"
        subprocess.run(["git", "-C", str(dest), "commit", "-q", "-m", subject], check=True,
                       env={**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date,
                            "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@localhost",
                            "GIT_COMMITTER_NAME": "bench",
                            "GIT_COMMITTER_EMAIL": "bench@localhost"})
    return dest


def check_smoke(repo: Path, rows: list[dict[str, Any]]) -> None:
    """The smoke's repository scanned as its commits say: the two fixes of library code (not
    the one of a test), a violation in the one that reads `sys.modules` alone."""
    subject = {r["commit"]: git(repo, "log", "-1", "--format=%s", r["commit"]).decode().strip()
               for r in rows}
    violating = [subject[r["commit"]] for r in rows if any(f["fatal"] for f in r["findings"])]
    if len(rows) != 2 or violating != [_SMOKE_VIOLATES]:
        raise SystemExit(f"smoke: expected 2 library fixes scanned and a violation in "
                         f"{_SMOKE_VIOLATES!r} alone; scanned {sorted(subject.values())}, "
                         f"violations in {violating}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("repos", nargs="*", type=Path)
    ap.add_argument("--count", type=int, default=30, help="commits per repository")
    ap.add_argument("--since", default="2018-01-01")
    ap.add_argument("--max-lines", type=int, default=300)
    ap.add_argument("--examples", type=int, default=3)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--patch-only", action="store_true",
                    help="scan the added lines alone, as when a grade holds no read-back sources")
    ap.add_argument("--smoke", action="store_true",
                    help="a generated repository of five commits instead of REPO: does it run?")
    args = ap.parse_args()
    if args.smoke:
        with tempfile.TemporaryDirectory() as tmp:
            args.repos = [smoke_repo(Path(tmp) / "repo")]
            check_smoke(args.repos[0], run(args))
        return
    if not args.repos:
        ap.error("name at least one REPO (a git clone of a Python project), or --smoke")
    run(args)


def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    rows, total = [], Counter[str]()
    for repo in args.repos:
        pool = candidates(repo, args.since)
        # Many fix commits change no library code or too much of it: read several times the
        # count across the history, then take `count` evenly from those that qualify.
        patches = {sha: p for sha in evenly(pool, args.count * 5)
                   if (p := library_patch(repo, sha, args.max_lines)) is not None}
        picked: list[str] = []
        scans: list[Scan] = []
        for sha in evenly(list(patches), args.count):
            result = scan(repo, sha, patches[sha], not args.patch_only)
            if result is not None:
                picked.append(sha)
                scans.append(result)
        per, examples = Counter[str](), dict[str, list[str]]()
        failed = flagged = opaque_n = 0
        for sha, (findings, opaque) in zip(picked, scans, strict=True):
            fatal = [f for f in findings if f["fatal"]]
            failed += bool(fatal)
            flagged += bool(findings) and not fatal
            opaque_n += bool(opaque)
            for reason in {str(f["reason"]) for f in findings}:
                per[reason] += 1
                examples.setdefault(reason, []).extend(
                    f"{sha[:10]} {f['path']}:{f['line']}: {f['text']}" for f in findings
                    if f["reason"] == reason)
            rows.append({"repo": str(repo), "commit": sha, "findings": findings,
                         "opaque": opaque})
        name = repo.resolve().parent.name if repo.name == "repo" else repo.name
        print(f"\n{name}: {len(picked)} commits, {failed} with a violation "
              f"({100 * failed / max(len(picked), 1):.1f}%), {flagged} with flags only, "
              f"{opaque_n} with opaque files dropped")
        for reason, n in per.most_common():
            print(f"  {reason}: {n} commits")
            for ex in examples[reason][: args.examples]:
                print(f"    {ex[:160]}")
        total.update({"commits": len(picked), "violations": failed, "flags_only": flagged})
    print(f"\nall: {total['commits']} commits, {total['violations']} with a violation "
          f"({100 * total['violations'] / max(total['commits'], 1):.1f}%), "
          f"{total['flags_only']} with flags only")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return rows


if __name__ == "__main__":
    main()
