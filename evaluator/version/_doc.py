"""docs/contracts.md, written from the declarations (`make contracts-doc`; a test checks it)."""

from __future__ import annotations

from evaluator.version._declared import CONTRACTS, KINDS, NEUTRAL

# What a bump of a contract held by each kind makes stale.
_EFFECT = {
    "attempt": "every attempt (agents run again: the expensive part), then its grade and result",
    "grader": "every grade (the gold gate, exploit and eval grades run again; attempts are "
              "kept), then results and verdicts",
    "result": "every result and exploit record, decided again from the stored grades",
    "exploits": "every exploit record (built and graded again), then verdicts",
    "verdict": "every verdict, decided again from the stored grades (no sandbox work)",
    "simulated": "the attempts of simulated agents",
    "seal": "the lock's `history` of each task (read again by the next `doit lock:<set>`) and "
            "the seals on each engine (made again on first use)",
}
# What the keys of each kind are, for people.
KIND_NAMES = {"attempt": "attempts", "grader": "grades", "result": "results",
              "exploits": "exploit records", "verdict": "verdicts",
              "simulated": "simulated agents' attempts", "seal": "lock histories and seals"}
_IDENTITY = ("the identity of every agent whose code imports a module it speaks for (the "
             "reference agents), so their attempts")

_INTRO = """\
# Behaviour contracts: what keys hold of the harness

<!-- Written by `make contracts-doc` from evaluator/version/_declared.py; a test checks it. -->

A target's key holds the *declared behaviour versions* of the harness code it depends on, never
that code's source. Each contract below is a named version that a person bumps on purpose, with
a line in its change log; conformance tests (`tests/contracts/`) pin its behaviour with golden
transcripts and outcomes recorded for that version, and fail when the behaviour moves while the
version does not. So a refactor, a comment, a log line or a dependency no attempt imports
re-runs nothing, and a change an agent or a grade could see re-runs exactly what depends on it.

Every record still says which build made it: the store stamps `harness.source` (a hash of every
file of the `evaluator` package and of `requirements.lock`) on each record it lands, and an
attempt's `provenance` has the git commit and whether the checkout had changes. That hash is
provenance, in no key.

## Changing behaviour

1. Change the code. `make test` (or the contract's own test file) fails in `tests/contracts/`,
   naming the contract whose goldens moved and the first difference.
2. Bump it: add one line to its `log` in `evaluator/version/_declared.py` saying what changed
   (the version is the length of the log).
3. Record its goldens again: `make goldens` (all contracts; it needs Docker, podman and
   bubblewrap for the sandbox transcripts, like the tests) or
   `make goldens CONTRACT=grader`. Recording refuses to overwrite a golden of the version in
   force with a different one: a bump comes first.
4. `make contracts-doc`, and commit the code, the log line, the goldens and this page together.

`doit plan:<set>` then says what the bump costs before anything runs ("attempts stale: sandbox
observation v1 -> v2"); `evaluator contracts` prints the versions in force.

A change that only looks like a behaviour change to a test (a golden that recorded something
accidental: a path, a clock) is fixed in the test, not by a bump.

A new harness file needs a decision: add it to a contract's `paths` (globs under `evaluator/`;
`*` crosses folders, so `sandbox/*` covers a backend's subpackage too) or to `NEUTRAL` with the
reason its changes move no outcome; `tests/version/test_contracts.py` fails until it has one.
Moving files keeps their contract as long as a glob still matches (the same test fails when a
glob matches nothing).
"""


def markdown() -> str:
    lines = [_INTRO, "## The contracts", "",
             "| contract | version | held by the keys of | a bump makes stale | speaks for "
             "(under `evaluator/`) | conformance tests |",
             "| --- | --- | --- | --- | --- | --- |"]
    for c in CONTRACTS.values():
        kinds = [k for k, names in KINDS.items() if c.name in names]
        effect = "; ".join(_EFFECT[k] for k in kinds) or _IDENTITY
        held = ", ".join(KIND_NAMES[k] for k in kinds) or "agent identities"
        paths = ", ".join(f"`{p}`" for p in c.paths)
        lines.append(f"| `{c.name}` ({c.title}) | {c.version} | {held} | {effect} | {paths} | "
                     f"`{c.goldens}` |")
    lines += ["", "## What each promises, and its change log", ""]
    for c in CONTRACTS.values():
        lines += [f"### `{c.name}`: {c.title} (version {c.version})", "", c.promise, ""]
        lines += [f"{i}. {entry}" for i, entry in enumerate(c.log, 1)] + [""]
    lines += ["## Files no contract speaks for", "",
              "A change to these moves no key. Each is listed with the reason; a file in neither "
              "list fails `tests/version/test_coverage.py`, so a new module gets a decision.", ""]
    for n in NEUTRAL:
        lines.append(f"- {', '.join(f'`{p}`' for p in n.paths)}: {n.why}")
    return "\n".join(lines) + "\n"


__all__ = ["KIND_NAMES", "markdown"]
