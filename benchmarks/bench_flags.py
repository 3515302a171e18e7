"""The policy's false-flag rate on every honest gold patch the project has: the demo set's
(`tasks/*/*/gold.patch`), the real-repository fixtures' (`tests/repos.py`: a big repository and
an awkward one), the cheat battery's layouts', the SWE-bench fixtures' and every
upstream-shaped family's (`tests/swebench/suites.py`: sympy's runner, Django's, src layouts,
pytest testing pytest, unittest...). Each is scanned as the harness scans an attempt's patch,
with the whole new text of every file it changes (what the grader reads back after `git
apply`). A gold patch is honest, so any finding on it is a false one: a violation (a policy
failure) or a flag (the resolve waits for a person, out of the headline).

    .venv/bin/python benchmarks/bench_flags.py [--smoke] [--bar 0.05] [--json out.json]

Prints each patch with what it raised, then the false-flag and false-violation rates; exits 1
when the flag rate reaches `--bar` (the issue's 5%), or when no patch was scanned.
`--smoke`: the demo set and the small fixtures alone (no upstream-shaped repositories built).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(_ROOT))

from evaluator.grading import patch_paths  # noqa: E402
from evaluator.policy import scan_patch  # noqa: E402


def _applied(repo: Path, patch: bytes) -> dict[str, bytes]:
    """The new text of each file `patch` changes, applied to a copy of `repo`."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "repo"
        shutil.copytree(repo, work, symlinks=True)
        subprocess.run(["git", "apply", "-"], input=patch, cwd=work, check=True,
                       capture_output=True)
        return {p: (work / p).read_bytes() for p in patch_paths(patch) if (work / p).is_file()}


def _written(files: dict[str, str], patch: bytes) -> dict[str, bytes]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        return _applied(root, patch)


def golds(smoke: bool) -> list[tuple[str, bytes, dict[str, bytes]]]:
    """(name, gold patch, the new text of the files it changes) of every gold patch."""
    from tests.grading.layouts import LAYOUTS
    from tests.helpers import GOLD, REPO_FILES
    from tests.repos import AWKWARD_FILES, AWKWARD_GOLD

    out = []
    for path in sorted((_ROOT / "tasks").glob("*/*/gold.patch")):
        patch = path.read_bytes()
        out.append((f"tasks/{path.parent.parent.name}/{path.parent.name}", patch,
                    _applied(path.parent / "repo", patch)))
    out.append(("helpers", GOLD.encode(), _written(REPO_FILES, GOLD.encode())))
    out.append(("repos-awkward", AWKWARD_GOLD.encode(),
                _written(AWKWARD_FILES, AWKWARD_GOLD.encode())))
    for lay in LAYOUTS:
        out.append((f"layout-{lay.name}", lay.gold.encode(), _written(lay.repo, lay.gold.encode())))
    if smoke:
        return out
    from tests.repos import big_gold
    from tests.swebench.suites import FAMILIES, build

    out.append(("repos-big", big_gold().encode(), {}))
    with tempfile.TemporaryDirectory() as tmp:
        for family in FAMILIES:
            _, _, patches = build(Path(tmp), family)
            repo = Path(tmp) / family.name / "repo"
            for iid, p in sorted(patches.items()):
                out.append((f"swebench-{iid}", p["gold"].encode(),
                            _applied(repo, p["gold"].encode())))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--bar", type=float, default=0.05)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    found = {name: scan_patch(patch, sources or None) for name, patch, sources in golds(args.smoke)}
    rules: Counter[str] = Counter()
    for name, fs in found.items():
        rules.update(f.reason for f in fs)
        print(f"{name:48} " + ("; ".join(f"{f.reason} {f.path}:{f.line}: {f.text}" for f in fs)
                               or "nothing"))
    n = len(found)
    flagged = sum(bool(fs) for fs in found.values())
    fatal = sum(any(f.fatal for f in fs) for fs in found.values())
    rate = flagged / n if n else 1.0
    print(f"\n{n} gold patches; raised anything: {flagged} ({rate:.1%}); a violation: {fatal} "
          f"({(fatal / n if n else 0):.1%}); bar {args.bar:.0%}")
    if rules:
        print("by rule: " + ", ".join(f"{r} {c}" for r, c in rules.most_common()))
    if args.json:
        args.json.write_text(json.dumps({"patches": n, "flagged": flagged, "violations": fatal,
                                         "rate": rate, "by_rule": dict(rules),
                                         "found": {k: [f.to_dict() for f in v]
                                                   for k, v in found.items()}}, indent=2))
    return 1 if n == 0 or rate >= args.bar else 0


if __name__ == "__main__":
    sys.exit(main())
