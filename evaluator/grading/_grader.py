"""Grade a patch: a fresh sandbox from the image, the patch without its changes to tests, the
hidden tests, every test of their files under a fresh name beside the grade's twins, the run,
each check's evidence, and when the required tests look passed a second observation in another
fresh sandbox; then the judge (`_evidence.judge`).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from evaluator.errors import InfraError
from evaluator.grading._checks import ExitStatus, Guard, Seen, Setup, Stream, Summary, Twins
from evaluator.grading._disguise import STYLES, Disguise, disguise, parse_id, target_files
from evaluator.grading._evidence import Check, failing, judge
from evaluator.grading._ids import describe
from evaluator.grading._logs import official_keeps
from evaluator.grading._outcome import NO_REPORT, RESOLVED, TAMPERED, UNRESOLVED, GradeOutcome
from evaluator.grading._paths import is_protected
from evaluator.grading._run import NoReport, hardened_env, run
from evaluator.grading._second import SecondLook
from evaluator.grading._setup import Prepared, lay, prepare
from evaluator.grading._spec import GradeSpec
from evaluator.grading._twins import Candidate, TestFile, candidates
from evaluator.sandbox import Sandbox, Sandboxes


def new_nonce() -> str:
    """This grade's nonce: fresh names, canaries and twins are drawn from it, so a re-grade
    draws others (a seam: a conformance test fixes it to make a grade a function of its patch)."""
    return secrets.token_hex(8)


class DockerGrader:
    """Grades in fresh sandboxes from the pinned image digest, opened by `sandboxes` (any
    backend's, the name notwithstanding); infra failures raise InfraError."""

    def __init__(self, sandboxes: Sandboxes, *, hardened: bool = True) -> None:
        # `hardened=False` exists only so benchmarks/bench_grade.py can price the hardening
        # (disguise, twins, checks, the second observation); the pipeline never turns it off.
        self._sandboxes = sandboxes
        self._hardened = hardened

    def grade(self, spec: GradeSpec, patch: bytes, hidden: dict[str, bytes]) -> GradeOutcome:
        started = time.monotonic()
        prep = prepare(spec, patch, list(hidden))
        outcome = prep if isinstance(prep, GradeOutcome) else self._grade(spec, prep, hidden)
        return replace(outcome, duration_s=time.monotonic() - started,
                       backend=self._sandboxes.backend().to_record())

    @contextmanager
    def _open(self, spec: GradeSpec) -> Iterator[Sandbox]:
        with self._sandboxes.open(spec.image, spec.limits, user=spec.user, workdir=spec.workdir,
                                  purpose="grade", base_commit=spec.base_commit) as sb:
            yield sb

    def _grade(self, spec: GradeSpec, prep: Prepared, hidden: dict[str, bytes]) -> GradeOutcome:
        nonce = new_nonce()
        common: dict[str, Any] = {"dropped": prep.dropped, "opaque": prep.opaque, "nonce": nonce}
        with self._open(spec) as sb:
            gdir, refused, sources = lay(sb, spec, prep, hidden, self._hardened)
            if refused is not None:
                return replace(refused, nonce=nonce)
            d = self._disguise(sb, spec, nonce, hidden)
            checks = self._checks(spec, prep, hidden)
            setup = Setup(spec, gdir, d, sorted({*d.files, *_files(spec)}), nonce)
            notes = hardened_env(spec.results, gdir)[1] if self._hardened else ()
            try:
                seen = run(sb, setup, checks, self._hardened)
            except NoReport as exc:
                return GradeOutcome(NO_REPORT, exit_code=exc.exit_code, timed_out=exc.timed_out,
                                    output=exc.output, detail=str(exc), sources=sources,
                                    hardening=notes, **common)
            found = [e for c in checks if not isinstance(c, SecondLook) for e in c.evidence(seen)]
        # The second observation opens its own sandbox once this one is gone.
        found += [e for c in checks if isinstance(c, SecondLook) for e in c.evidence(seen)]
        kept = _kept(spec, d, seen.output)
        odd = seen.extra.get("ids", {})
        why = "; ".join(filter(None, [failing(seen.tests, kept), describe(odd)]))
        v = judge(seen.tests, found, kept=kept, why=why)
        outcome = TAMPERED if v.tampered else RESOLVED if v.resolved else UNRESOLVED
        return GradeOutcome(
            outcome, tests=v.tests, exit_code=seen.exit_code, timed_out=seen.timed_out,
            detail="; ".join(filter(None, [v.reason, *v.notes, *d.partial])), output=seen.output,
            evidence=tuple(e.text for e in v.evidence), sources=sources, ids=odd,
            hardening=notes, flags=v.flags, observed=_observed(spec, seen, checks), kept=kept,
            **common)

    def _disguise(self, sb: Sandbox, spec: GradeSpec, nonce: str,
                  hidden: dict[str, bytes]) -> Disguise:
        style = STYLES.get(spec.results, "pytest")
        required = (*spec.fail_to_pass, *spec.pass_to_pass)
        if not self._hardened or spec.mode == "plain":
            return disguise(nonce, {}, required, style, rename=False)
        texts = {}
        for path in target_files(required, list(hidden), style):
            if path not in hidden and not is_protected(path, spec.test_files):
                continue  # a module of the library holding doctests: not the tests' to rename
            if path in hidden:
                texts[path] = hidden[path]
                continue
            try:
                texts[path] = sb.read_file(f"{spec.workdir}/{path}")
            except (FileNotFoundError, OSError):
                continue
        twins: tuple[Candidate, ...] = ()
        if spec.mode == "twins":
            twins = tuple(c for p, t in sorted(texts.items())
                          for c in candidates(p, t, _groups(spec, p, t, style)))
        elif spec.mode == "grade" and spec.pool is not None:
            twins = spec.pool.draw(nonce)
        renamed = spec.pool.renamed if spec.pool is not None else True
        return disguise(nonce, texts, required, style, twins, rename=renamed)

    def _checks(self, spec: GradeSpec, prep: Prepared, hidden: dict[str, bytes]) -> list[Check]:
        if not self._hardened:
            return [ExitStatus(), Stream()]
        pool = spec.pool if spec.mode == "grade" else None

        @contextmanager
        def fresh() -> Iterator[tuple[Sandbox, str]]:
            with self._open(spec) as sb:
                gdir, refused, _ = lay(sb, spec, prep, hidden, True, sources=False)
                if refused is not None:  # it applied a moment ago: the engine is at fault
                    raise InfraError(f"the second observation could not lay the patch again: "
                                     f"{refused.detail[:300]}")
                yield sb, gdir

        judged = spec.mode == "grade"
        checks: list[Check] = [Guard(), ExitStatus(), Twins(judged=judged), Summary(), Stream()]
        if spec.mode != "plain":
            checks.append(SecondLook(fresh, forced=not judged, judged=judged,
                                     looked=pool.looked if pool else None,
                                     varied=pool.varied if pool else None))
        return checks


def _kept(spec: GradeSpec, d: Disguise, output: str) -> tuple[str, ...]:
    """The skipped PASS_TO_PASS tests SWE-bench's parser keeps for an imported row: those the
    run's log names (under this grade's fresh names, read back to the published ones)."""
    if spec.pass_to_pass_rule != "swebench":
        return ()
    run_ids = {d.run_id(t): t for t in spec.pass_to_pass}
    return tuple(sorted(run_ids[r] for r in official_keeps(spec.results, output, run_ids)))


def _files(spec: GradeSpec) -> set[str]:
    """The files every required pytest id names: the runner runs them whole."""
    out = set()
    for t in (*spec.fail_to_pass, *spec.pass_to_pass):
        ref = parse_id(t, "pytest") if spec.results not in STYLES else None
        if ref is not None and ref.file:
            out.add(ref.file)
    return out


def _groups(spec: GradeSpec, path: str, text: bytes, style: str
            ) -> list[tuple[tuple[str, ...], str, list[tuple[str, str]], bool]]:
    """The required tests of one file, as `candidates` takes them."""
    try:
        tf = TestFile(text)
    except (SyntaxError, ValueError):
        return []
    groups: dict[tuple[tuple[str, ...], str], tuple[list[tuple[str, str]], bool]] = {}
    for t in (*spec.fail_to_pass, *spec.pass_to_pass):
        ref = parse_id(t, style)
        if ref is None or (ref.file is not None and ref.file != path):
            continue
        if tf.find(ref.classes, ref.name) is None:
            continue
        cases, f2p = groups.get((ref.classes, ref.name), ([], False))
        groups[(ref.classes, ref.name)] = ([*cases, (ref.suffix, t)],
                                           f2p or t in spec.fail_to_pass)
    return [(k[0], k[1], v[0], v[1]) for k, v in groups.items()]


def _observed(spec: GradeSpec, seen: Seen, checks: list[Check]) -> dict[str, Any]:
    """What the gold gate's calibration reads of a grade (and a person, of any grade)."""
    second = next((c for c in checks if isinstance(c, SecondLook)), None)
    looked = second.seen if second is not None else None
    d = seen.setup.disguise
    twins: dict[str, Any] = {}
    for tw in d.twins:
        key = tw.candidate.key
        entry: dict[str, Any] = {"scored": seen.twins.get(key, []),
                                 "second": looked.twins.get(key) if looked else None}
        if spec.mode == "twins":
            entry["candidate"] = tw.candidate.to_dict()
        twins[key] = entry
    out: dict[str, Any] = {"renamed": d.renamed, "partial": d.partial, "twins": twins}
    if looked is not None:
        out.update(second=looked.independent, varied=looked.varied)
    if spec.mode in ("bare", "twins"):
        out["all"] = seen.original
    return out
