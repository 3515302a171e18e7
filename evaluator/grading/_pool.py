"""What the gold gate learns of a task before its grades count: its calibration.

Four grades of the task, made once per calibration key (the task's pins, its gold patch and the
grader version):

- `plain`: the gold patch, no disguise, no twins: what the task's own command reports;
- `bare`: the gold patch under fresh names, no twins, with the second observation;
- `twins`: the gold patch under other fresh names with every twin the required tests can have
  (`_twins.candidates`), with the second observation;
- `empty`: the empty patch the same way, so each twin's outcome without a fix is known.

From them (`pool_from`):

- whether each run left a report: a calibration grade with none (a crash, a timeout, JUnit XML
  that does not parse) says nothing of the suite; the gate grades the task under its published
  names, without twins and weighing no second look, and says which grade and why (`silent`);
  an empty patch's run with no report leaves only the twins' outcomes without a fix unknown;

- whether the suite runs under other names: `bare`'s required outcomes must be `plain`'s (a
  suite that refers to its own test names does not): otherwise the task is graded under its
  published names, and its verdict and the report say so;
- the pool: the twins the gold patch fails in the scored run and in the second observation,
  less those in a file where a twin changed another test's outcome (`twins` against `bare`);
- which required tests the second observation reproduces under the gold patch (`looked`), and
  which keep their outcome in its varied environment (`varied`): only those are weighed in a
  grade, so a suite this runner cannot run, or one that depends on the working directory, never
  turns an honest fix into `tampered` or `environment-sensitive`.

A grade draws its twins from the pool with its own nonce (`Pool.draw`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evaluator.grading._junit import ERROR, FAILED, PASSED
from evaluator.grading._outcome import INCONSISTENT, NO_REPORT
from evaluator.grading._twins import Candidate
from evaluator.store import Record

PLAIN, BARE, TWINS, EMPTY = "plain", "bare", "twins", "empty"
# (mode of the spec, patch: gold or empty) of each calibration grade, in order.
GRADES = ((PLAIN, "gold"), (BARE, "gold"), (TWINS, "gold"), (EMPTY, "empty"))
_DRAW, _DRAW_PER_FILE = 6, 3


@dataclass(frozen=True)
class Pool:
    """A task's calibration as a grade uses it."""

    key: str
    renamed: bool = True
    twins: tuple[Candidate, ...] = ()
    looked: frozenset[str] | None = None  # required ids the second observation reproduces
    varied: frozenset[str] | None = None  # required ids that hold in its varied environment

    def draw(self, nonce: str) -> tuple[Candidate, ...]:
        """This grade's twins: FAIL_TO_PASS sources first, at most one per test until each has
        one, a few per file."""
        rng = random.Random(f"draw:{nonce}")
        pool = list(self.twins)
        rng.shuffle(pool)
        pool.sort(key=lambda c: not c.f2p)
        chosen: list[Candidate] = []
        for rounds in range(2):
            for c in pool:
                per_test = sum(x.path == c.path and x.name == c.name and x.classes == c.classes
                               for x in chosen)
                per_file = sum(x.path == c.path for x in chosen)
                if c in chosen or per_test > rounds or per_file >= _DRAW_PER_FILE:
                    continue
                if len(chosen) < _DRAW:
                    chosen.append(c)
        return tuple(chosen)


class CalibrationRecord(Record):
    """One task's calibration (see the module's docstring), keyed by its calibration key."""

    KIND = "calibration"

    task_set: str
    task_id: str
    renamed: bool = True
    why: str = ""  # what it could not do, for the verdict and a person
    twins: list[dict[str, Any]] = []  # the pool: each a `Candidate`
    rejected: dict[str, str] = {}  # candidate key -> why it is not in the pool
    empty: dict[str, str] = {}  # candidate key -> its outcome with the empty patch
    looked: list[str] = []
    varied: list[str] = []
    unlooked: dict[str, str] = {}  # required id -> why the second observation cannot weigh it
    silent: list[str] = []  # the calibration grades whose run left no report (`GRADES` names)
    grades: list[str] = []  # the calibration grades' keys, in `GRADES` order
    grader_version: str = ""

    def pool(self) -> Pool:
        return Pool(self.key, self.renamed, tuple(Candidate.from_dict(c) for c in self.twins),
                    frozenset(self.looked), frozenset(self.varied))


@dataclass(frozen=True)
class Calibrated:
    """The outcome of `pool_from`: the fields of a calibration record."""

    renamed: bool
    why: str
    twins: list[dict[str, Any]] = field(default_factory=list)
    rejected: dict[str, str] = field(default_factory=dict)
    empty: dict[str, str] = field(default_factory=dict)
    looked: list[str] = field(default_factory=list)
    varied: list[str] = field(default_factory=list)
    unlooked: dict[str, str] = field(default_factory=dict)
    silent: list[str] = field(default_factory=list)


def pool_from(grades: Mapping[str, Any], required: Sequence[str]) -> Calibrated:
    """The calibration from its four grades (records or outcomes: `.tests`, `.observed`), by
    name (`PLAIN`, `BARE`, `TWINS`, `EMPTY`)."""
    plain, bare, twins, empty = (grades[n] for n in (PLAIN, BARE, TWINS, EMPTY))
    silent = {n: getattr(g, "detail", "") or "" for n, g in grades.items()
              if getattr(g, "outcome", None) in (NO_REPORT, INCONSISTENT)}
    said = "; ".join(f"{n}: {d[:160]}" if d else n for n, d in sorted(silent.items()))
    if silent.keys() - {EMPTY}:
        # Nothing is known of the suite under fresh names: compared, a run with no report
        # would read as every required test changing, and the task as not renamable.
        return Calibrated(False, f"calibration grade(s) left no report ({said}): nothing is "
                          "known of the suite under fresh names, so it is graded under its "
                          "published names, without twins and weighing no second look",
                          unlooked=dict.fromkeys(required, "a calibration grade left no "
                                                           "report"), silent=sorted(silent))
    why: list[str] = []
    if silent:
        why.append(f"the empty patch's calibration grade left no report ({said}): the twins' "
                   "outcomes without a fix are unknown")
    changed = sorted(t for t in required if plain.tests.get(t) != bare.tests.get(t))
    renamed = not changed
    if changed:
        why.append("the suite does not run under other names (these required tests change: "
                   + ", ".join(f"{t} {plain.tests.get(t)} -> {bare.tests.get(t)}"
                               for t in changed[:5]) + "): graded under its published names")
    before, after = bare.observed.get("all", {}), twins.observed.get("all", {})
    moved = sorted(t for t in before if t in after and before[t] != after[t])
    dirty = {t.split("::")[0] for t in moved}
    seen = twins.observed.get("twins", {})
    pool, rejected = [], {}
    for key, entry in sorted(seen.items()):
        c = Candidate.from_dict(entry["candidate"])
        scored, second = entry.get("scored", []), entry.get("second")
        if not scored or any(s not in (FAILED, ERROR) for s in scored):
            rejected[key] = f"the gold patch does not fail it ({', '.join(scored) or 'not run'})"
        elif second is not None and any(s == PASSED for s in second):
            rejected[key] = "the gold patch passes it in the second observation"
        elif moved and (c.path in dirty or not dirty & {x.split("::")[0] for x in seen}):
            rejected[key] = "twins changed other tests of its file: " + ", ".join(moved[:3])
        else:
            pool.append(c.to_dict())
    if moved:
        why.append(f"twins changed the outcome of {len(moved)} other test(s) "
                   f"({', '.join(moved[:3])}): the twins of their files are left out")
    empty_seen = {k: "/".join(v.get("scored", [])) or "not run"
                  for k, v in empty.observed.get("twins", {}).items()}
    looked, varied, unlooked = [], [], {}
    for t in required:
        want = [g.tests.get(t) for g in (bare, twins)]
        second = [g.observed.get("second", {}).get(t) for g in (bare, twins)]
        var = [g.observed.get("varied", {}).get(t) for g in (bare, twins)]
        # Only an outcome the run reported can be reproduced: a suite that does not run under
        # other names reports none in these grades, and "missing" twice says nothing of the
        # second look (it would then weigh, against the published-name grades, a test it
        # cannot run).
        if any(w in (None, "missing") for w in want):
            unlooked[t] = "the run under fresh names does not report it"
        elif second == want:
            looked.append(t)
        else:
            unlooked[t] = f"the second observation says {'/'.join(map(str, second))} where " \
                          f"the run says {'/'.join(map(str, want))}"
        if t in looked and var == want:
            varied.append(t)
    return Calibrated(renamed, "; ".join(why), pool, rejected, empty_seen, looked, varied,
                      unlooked, sorted(silent))
