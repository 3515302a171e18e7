"""Why a planned target would run: which input of its key moved since the store's last record of
the same agent, task and sample ("sandbox observation v1 -> v2", "agent X: its prompts"), so
`doit plan` says what an upgrade or an edit costs before anything is paid for.

Each attempt record keeps its key's parts (`AttemptRecord.inputs`, from `input_digest`). The
explanation reads them back for the whole set in one indexed query, the parts only, and
reads a whole record only once per distinct old value whose details it names (an old agent's
identity parts, an old environment's distributions). Nothing here runs when nothing is stale.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from evaluator.attempts._key import (
    attempt_key,
    attempt_material,
    harness_environment,
    input_digest,
)
from evaluator.attempts._plan import EvalPlan, PlannedAttempt
from evaluator.errors import InfraError
from evaluator.store import Store
from evaluator.version import CONTRACTS, harness_version, parse_label

_ATTEMPT = ("agent.name", "task_id", "sample_idx", "created", "inputs")
_RESULT = ("attempt", "grader_version", "result_version", "grade", "created")
_SHOWN = 8  # reasons listed; the rest are counted
_ORDER = ["harness", "simulator", "agent"]  # what an upgrade moves first, then the task's inputs
# What a moved part of an attempt's key means, for a person.
_PARTS = {"image": "its task image (the lock pins another)",
          "commit": "its base commit (the lock pins another)",
          "problem": "its problem statement", "activate": "its `activate` line",
          "task": "its task id", "prompts": "the agent's prompts",
          "model": "the model id, sampling or price", "limits": "the agent's or sandbox limits"}
_IDENTITY = {"config": "its config", "prompts": "its prompts", "files": "files of its folder",
             "code": "its own code", "environment": "its distributions"}


def recorded_inputs(plan: EvalPlan, pa: PlannedAttempt) -> dict[str, Any]:
    """`pa`'s key, part by part, as its record keeps it (`input_digest`). The parts are made
    again here and must hash to the planned key: a record never says it stood on other inputs
    than the ones its key holds."""
    material = attempt_material(pa.agent, pa.task, plan.lock.pin(pa.task.id), pa.sample_idx,
                                pa.grade_spec.limits, plan.prices[pa.agent.name])
    if attempt_key(material) != pa.key:
        raise InfraError(f"attempt {pa.label}: its inputs do not hash to its planned key "
                         f"{pa.key[:16]}; the plan is out of date: run doit again")
    return input_digest(material)


def explain_stale(store: Store, plan: EvalPlan, todo: Sequence[PlannedAttempt]) -> list[str]:
    """One line per reason the attempts in `todo` would run, most common first, each with its
    count ("40 attempts stale: sandbox observation v1 -> v2")."""
    if not todo:
        return []
    newest: dict[tuple[str, str, int], tuple[Any, ...]] = {}
    tried: set[tuple[str, str]] = set()
    for row in store.fields("attempt", _ATTEMPT, task_set=plan.task_set.name):
        _, agent, task, sample, created, _inputs = row
        tried.add((agent, task))
        slot = (agent, task, sample)
        if slot not in newest or (created or 0) > (newest[slot][4] or 0):
            newest[slot] = row
    details = _Details(store)
    reasons: Counter[str] = Counter()
    for pa in todo:
        found = newest.get((pa.agent.name, pa.task.id, pa.sample_idx))
        if found is None:
            reasons["new: no earlier attempt of this agent, task and sample" if
                    (pa.agent.name, pa.task.id) in tried else
                    f"new: agent {pa.agent.name!r} has no earlier attempt on the task"] += 1
            continue
        reasons["; ".join(_moved(plan, pa, found, details))] += 1
    return _lines(reasons, "attempt", "stale")


def explain_results(store: Store, plan: EvalPlan) -> list[str]:
    """Why the results of the plan's stored attempts would be decided again: one line per reason
    ("40 results to decide again (their attempts are kept): grading v1 -> v2"). A result is
    current when one is stored for the attempt under the grader and result rule in force. Two
    indexed queries (the set's attempt keys, its results' versions), no record parsed."""
    grader, rule = harness_version("grader"), harness_version("result")
    stored = {row[0] for row in store.fields("attempt", (), task_set=plan.task_set.name)}
    done = [pa.key for pa in plan.attempts if pa.key in stored]
    newest: dict[str, tuple[Any, ...]] = {}
    current: set[str] = set()
    for row in store.fields("result", _RESULT, task_set=plan.task_set.name):
        _, attempt, grader_version, result_version, _grade, created = row
        if grader_version == grader and result_version == rule:
            current.add(attempt)
        if attempt not in newest or (created or 0) > (newest[attempt][5] or 0):
            newest[attempt] = row
    reasons: Counter[str] = Counter()
    for key in done:
        if key in current:
            continue
        old = newest.get(key)
        if old is None:
            reasons["not graded yet"] += 1
            continue
        moved = [*_contracts_moved(parse_label(old[2] or ""), parse_label(grader)),
                 *_contracts_moved(parse_label(old[3] or ""), parse_label(rule))]
        reasons[", ".join(moved) if moved else "its grade's inputs changed (hidden tests, test "
                "command, required tests or the gold gate's dropped tests)"] += 1
    return _lines(reasons, "result", "to decide again (their attempts are kept)")


def _moved(plan: EvalPlan, pa: PlannedAttempt, row: tuple[Any, ...],
           details: _Details) -> list[str]:
    key, agent, _task, _sample, _created, text = row
    old = json.loads(text) if text else None  # the index gives an object as its JSON text
    if not old:
        return ["made before attempt records kept their inputs (keys by harness source)"]
    new = details.inputs(plan, pa)
    out: list[str] = []
    said: set[str] = set()  # contracts named once, though the agent's code runs through them too
    parts: list[str] = _ORDER + sorted((set(old) | set(new)) - set(_ORDER))
    for part in parts:
        if old.get(part) == new.get(part):
            continue
        if part == "harness":
            was, now = old.get(part) or {}, new.get(part) or {}
            moved = _contracts_moved(was.get("contracts") or {}, now.get("contracts") or {})
            out += moved
            said.update(moved)
            if was.get("environment") != now.get("environment"):
                out.append("the harness's distributions the attempt imports: "
                           + details.environment(key, was.get("environment")))
        elif part == "simulator":
            out += _contracts_moved(old.get(part) or {}, new.get(part) or {})
        elif part == "agent":
            why = details.identity(key, old.get(part), pa, said)
            if why:
                out.append(f"agent {agent!r}: {why}")
        elif part == "prompts" and old.get("agent") != new.get("agent"):
            continue  # said with the agent's identity
        elif part == "isolation":
            out.append(f"isolation {old.get(part)} -> {new.get(part)}")
        else:
            out.append(_PARTS.get(part) or part)
    return out or ["its key moved, but no recorded part of it did"]


def _contracts_moved(was: dict[str, int], now: dict[str, int]) -> list[str]:
    """`sandbox observation v1 -> v2` for each contract whose version differs."""
    out = []
    for name in sorted(set(was) | set(now), key=lambda n: list(CONTRACTS).index(n)
                       if n in CONTRACTS else len(CONTRACTS)):
        if was.get(name) != now.get(name):
            title = CONTRACTS[name].title if name in CONTRACTS else name
            out.append(f"{title} {_v(was.get(name))} -> {_v(now.get(name))}")
    return out


def _v(version: int | None) -> str:
    return "(none)" if version is None else f"v{version}"


class _Details:
    """Whole records read once per distinct old value whose details a reason names (an old
    environment, an old agent identity), however many attempts share it."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._said: dict[tuple[str, ...], str] = {}
        self._inputs: dict[tuple[str, str], dict[str, Any]] = {}

    def inputs(self, plan: EvalPlan, pa: PlannedAttempt) -> dict[str, Any]:
        """`recorded_inputs`, made once per agent and task (it leaves out the per-sample parts,
        as the plan serializes the material once per agent and task): after an upgrade every
        stored attempt is stale, and 100,000 of them must not each build and hash its material."""
        slot = (pa.agent.name, pa.task.id)
        if slot not in self._inputs:
            self._inputs[slot] = recorded_inputs(plan, pa)
        return self._inputs[slot]

    def environment(self, key: str, old: str | None) -> str:
        memo = ("environment", str(old))
        if memo not in self._said:
            record = self._store.get("attempt", key) or {}
            was = (record.get("provenance") or {}).get("distributions") or []
            self._said[memo] = _dist_changes(was, harness_environment().get("distributions", []))
        return self._said[memo]

    def identity(self, key: str, old_identity: str | None, pa: PlannedAttempt,
                 said: set[str]) -> str:
        """Which parts of the agent's identity moved; contracts already `said` (the attempt's
        own) are not said again for the harness modules its code runs through."""
        memo = ("agent", pa.agent.name, str(old_identity), *sorted(said))
        if memo not in self._said:
            old = (self._store.get("attempt", key) or {}).get("agent") or {}
            parts = old.get("parts") or {}
            now = pa.agent.identity_parts
            if not parts:
                self._said[memo] = "its identity (config, prompts, code, folder or distributions)"
                return self._said[memo]
            out = []
            for p, h in now.items():
                if parts.get(p) == h:
                    continue
                if p == "harness":
                    out += [m for m in _contracts_moved(parse_label(parts.get(p) or ""),
                                                        parse_label(h)) if m not in said]
                elif p == "environment":
                    out.append("its distributions: " + _dist_changes(
                        old.get("distributions") or [],
                        pa.agent.environment.get("distributions", [])))
                else:
                    out.append(_IDENTITY.get(p, p))
            self._said[memo] = "; ".join(out)
        return self._said[memo]


def _dist_changes(old: list[list[str]], new: list[list[str]]) -> str:
    was: dict[str, str] = {n: v for n, v in old}
    now: dict[str, str] = {n: v for n, v in new}
    changes = [f"{n} {was.get(n, '(none)')} -> {now.get(n, '(none)')}"
               for n in sorted(set(was) | set(now)) if was.get(n) != now.get(n)]
    return ", ".join(changes[:6]) + (f" and {len(changes) - 6} more" if len(changes) > 6
                                     else "") if changes else "start-up code or interpreter"


def _lines(reasons: Counter[str], what: str, verb: str) -> list[str]:
    lines = [f"{n} {what}{'' if n == 1 else 's'} {verb}: {why}"
             for why, n in reasons.most_common(_SHOWN)]
    rest = sum(n for _, n in reasons.most_common()[_SHOWN:])
    if rest:
        lines.append(f"{rest} more {what}(s) {verb} for other reasons")
    return lines


__all__ = ["explain_results", "explain_stale", "recorded_inputs"]
