"""What an image's repository holds beyond its base commit's history, as the seal script reads
it (`inspect`): refs, reflogs, stashes, alternates, later objects, and where the files the gold
patch leaves are already there. The lock keeps it per task (`TaskPin.history`) and reports say
it in one line (`history_summary`); a leak here is what sealing hides from agents.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from evaluator.images._seal_script import SEALER


@dataclass(frozen=True)
class GoldFile:
    """One file the gold patch leaves, and where the image already holds that content."""

    path: str
    blob: str
    in_objects: bool  # an object of the repository (any ref, reflog, stash, dangling)
    in_history: bool  # reachable from the base commit: history the agent may see
    in_tree: bool  # the working tree already holds it
    untracked: str = ""  # an untracked file with that content


@dataclass(frozen=True)
class History:
    """What an image's repository holds beyond its base commit's history."""

    findings: tuple[tuple[str, str], ...] = ()
    gold: tuple[GoldFile, ...] = ()
    stats: dict[str, int] = field(default_factory=dict)
    gold_error: str = ""
    workdir: str = ""  # where the repository was read, for whoever keeps this record

    @property
    def gold_leaked(self) -> list[GoldFile]:
        """Gold results the image holds where the agent's history would not show them."""
        return [g for g in self.gold if (g.in_objects and not g.in_history) or g.in_tree
                or g.untracked]

    @property
    def leaks(self) -> bool:
        return bool(self.findings or self.gold_leaked)

    def to_dict(self) -> dict[str, Any]:
        kinds: dict[str, list[str]] = {}
        for kind, detail in self.findings:
            kinds.setdefault(kind, [])
            if detail not in kinds[kind]:
                kinds[kind].append(detail)
        return {
            "leaks": self.leaks,
            "sealer": SEALER,
            **({"workdir": self.workdir} if self.workdir else {}),
            "findings": {k: v[:20] + ([f"... {len(v) - 20} more"] if len(v) > 20 else [])
                         for k, v in sorted(kinds.items())},
            "later_objects": max(0, self.stats.get("objects", 0) - self.stats.get("reachable", 0)),
            "later_commits": max(0, self.stats.get("commits", 0) - self.stats.get("history", 0)),
            "gold": [{"path": g.path, "in_objects": g.in_objects, "in_history": g.in_history,
                      "in_tree": g.in_tree, "untracked": g.untracked} for g in self.gold],
            **({"gold_error": self.gold_error} if self.gold_error else {}),
        }


def history_summary(history: dict[str, Any]) -> str:
    """One line for a person: what the image leaks (from `History.to_dict`)."""
    parts = []
    found = history.get("findings") or {}
    if history.get("later_commits"):
        parts.append(f"{history['later_commits']} commit(s) beyond the base's history")
    elif history.get("later_objects"):
        parts.append(f"{history['later_objects']} object(s) beyond the base's history")
    names = {"ref": "refs", "packed-ref": "packed refs", "reflog": "reflogs", "head": "HEAD at",
             "state": "state files", "alternates": "alternates", "gitfile": ".git file",
             "common-dir": "shared git dir", "shallow": "shallow grafts",
             "commit-graph": "a commit-graph", "ref-file": "ref files"}
    for kind, details in found.items():
        if kind != "objects":
            shown = ", ".join(d.split(" ")[0] for d in details[:4])
            parts.append(f"{names.get(kind, kind)} {shown}")
    leaked = [g for g in history.get("gold") or [] if (g["in_objects"] and not g["in_history"])
              or g["in_tree"] or g["untracked"]]
    if leaked:
        where = sorted({w for g in leaked for w, on in (("objects", g["in_objects"]),
                        ("working tree", g["in_tree"]), ("untracked files", g["untracked"])) if on})
        parts.append(f"the gold patch's result for {len(leaked)} of {len(history['gold'])} "
                     f"file(s) is already in its {' and '.join(where)}")
    return "; ".join(parts) if parts else "nothing beyond the base commit's history"


def parse_history(out: str) -> History:
    """The `History` the seal script printed."""
    findings, gold, stats, error = [], [], {}, ""
    for line in out.splitlines():
        cols = line.split("\t")
        if cols[0] == "finding" and len(cols) >= 3:
            findings.append((cols[1], cols[2]))
        elif cols[0] == "gold" and len(cols) >= 7:
            gold.append(GoldFile(cols[1], cols[2], cols[3] == "1", cols[4] == "1",
                                 cols[5] == "1", "" if cols[6] == "-" else cols[6]))
        elif cols[0] == "gold-error" and len(cols) >= 2:
            error = cols[1].strip()
        elif cols[0] == "stats" and len(cols) >= 2:
            stats = {k: int(v) for k, _, v in (p.partition("=") for p in cols[1].split())
                     if v.isdigit()}
    return History(tuple(findings), tuple(gold), stats, error)
