"""Every behaviour contract of the harness, its version and change log, and which targets' keys
hold which: the one place a version is bumped (docs/contracts.md says how, and what a bump
costs; `make contracts-doc` writes that page from here).

To bump a contract: add one line to its `log` saying what changed (the version is the log's
length), then `make goldens` to record its conformance goldens again, and commit both.
"""

from __future__ import annotations

from evaluator.version._contract import Contract, Neutral

FIRST = "the behaviour of the harness when keys moved from source hashes to contracts (issue 32)"

SANDBOX = Contract(
    "sandbox", "sandbox observation",
    "What a command run in a sandbox sees and returns, on every backend: the file system view "
    "(image, workdir, what is writable, owner and mode of files put in), user and environment, "
    "stdout and stderr interleaved, the output cap and how output is cut, exit codes, what a "
    "timeout and the sandbox's deadline return, limits, no network.",
    (FIRST,),
    ("sandbox/*",),
    "tests/contracts/test_sandbox_golden.py",
)
SEAL = Contract(
    "seal", "repository seal",
    "What the task repository's git shows inside a sandbox (history, refs, objects, the "
    "working tree at the base commit) and what the lock's `history` of a task says.",
    (FIRST,),
    ("images/_seal.py", "images/_seal_script.py", "images/_history.py"),
    "tests/contracts/test_seal_golden.py",
)
MODEL = Contract(
    "model", "model client",
    "What the harness's model client sends and reads: the request body and headers, retries, "
    "backoff and which failures are retried, errors, how choices, tool calls, usage and cost are "
    "read from a reply or a stream.",
    (FIRST,),
    ("model/*",),
    "tests/contracts/test_model_golden.py",
)
SCAFFOLD = Contract(
    "scaffold", "scaffold surface",
    "What an agent's process receives and how its attempt ends: the AgentContext (problem "
    "statement, prompts, limits, settings, seed), the sandbox and model calls over the wire, "
    "its process (environment, isolation, rlimits), the step, cost and clock limits and the "
    "exit reasons they give, and how the patch is taken (tree or submission).",
    (FIRST,),
    ("agents/_protocol.py", "agents/_wire.py", "agents/_child.py", "attempts/_drive.py",
     "attempts/_host.py", "attempts/_isolation.py", "attempts/_meter.py",
     "attempts/_activate.py", "attempts/_run.py", "attempts/_spend.py"),
    "tests/contracts/test_scaffold_golden.py",
)
REFERENCE_AGENT = Contract(
    "reference-agent", "reference agent",
    "The bundled bash-only loop: the messages it sends, how it reads a reply, the observation it "
    "makes of a command (exit code, note of a timeout, output cut to head and tail), format "
    "errors and submission. In the identity of every agent whose entry point runs it.",
    (FIRST,),
    ("agents/_reference.py",),
    "tests/contracts/test_reference_agent_golden.py",
)
GRADER = Contract(
    "grader", "grading",
    "What decides a grade: the patch filter (sections for tests, test configuration and import "
    "hooks dropped, pinned files restored, opaque files left out), hidden tests laid over, the "
    "hardened test run, canaries, the readers of JUnit and runner logs, the second observation, "
    "and the outcome and per-test statuses they give.",
    (FIRST,),
    ("grading/*",),
    "tests/contracts/test_grader_golden.py",
)
RESULT = Contract(
    "result", "result rule and policy",
    "The capability policy's findings on added code and trajectories, and the one rule that "
    "decides resolved, failed or policy from a grade and those findings.",
    (FIRST,),
    ("result/*", "policy/*"),
    "tests/contracts/test_result_golden.py",
)
VERDICT = Contract(
    "verdict", "gold verdict rule",
    "How the gold gate decides a task's verdict from its gold, empty-patch and exploit records: "
    "valid, flaky, broken-gold, passes-without-fix, exploitable; which PASS_TO_PASS tests are "
    "dropped as flaky.",
    ("verdicts from whole-run outcomes of the gold and empty patch",
     "per-test flakiness: a PASS_TO_PASS test that flips between gold reps is dropped",
     "a PASS_TO_PASS test's flips are looked for over the reps of both patches",
     "the exploit gate: a task one bundled exploit resolves unflagged on is exploitable",
     "reps with no report are no flips; skipped, unreported and no-report tests are named "
     "(issue 35)"),
    ("gold/_verdict.py", "gold/_gate.py"),
    "tests/contracts/test_verdict_golden.py",
)
EXPLOITS = Contract(
    "exploits", "exploit construction",
    "Which patch each bundled exploit family builds for a task (or why it does not apply), "
    "and how an exploit's record is decided from its grade.",
    (FIRST,),
    ("gold/_exploits.py", "gold/_payloads.py", "gold/_target.py", "gold/_exploitgate.py"),
    "tests/contracts/test_exploits_golden.py",
)
SIMULATOR = Contract(
    "simulator", "simulated model",
    "What the simulated endpoint answers to each request: its replies, tool calls, usage, "
    "errors and faults. In the keys of simulated agents' attempts only.",
    (FIRST,),
    ("simulated/*",),
    "tests/contracts/test_simulator_golden.py",
)

CONTRACTS: dict[str, Contract] = {c.name: c for c in (
    SANDBOX, SEAL, MODEL, SCAFFOLD, REFERENCE_AGENT, GRADER, RESULT, VERDICT, EXPLOITS,
    SIMULATOR)}

# Which contracts each kind of target's key holds (as `harness_version(kind)`). A result key
# holds its grade's key, which holds the grader's; an exploit's holds the result rule and
# the grader too; a verdict's holds its grades' keys and its exploits'.
KINDS: dict[str, tuple[str, ...]] = {
    "attempt": ("sandbox", "seal", "model", "scaffold"),
    "grader": ("grader", "sandbox", "seal"),
    "result": ("result",),
    "exploits": ("exploits",),
    "verdict": ("verdict",),
    "simulated": ("simulator",),
    "seal": ("seal",),
}

# Harness files no contract speaks for, and why a change to them moves no outcome. A behaviour
# change that slips through one of these (say, a changed default in settings that the sandbox
# reads) still fails the conformance tests of the contract whose behaviour moved.
NEUTRAL: tuple[Neutral, ...] = (
    Neutral(("__init__.py", "__main__.py", "api/*", "export/*", "tracking/*"),
            "commands, the HTTP API and exports: they start targets and read records"),
    Neutral(("pipeline/*",), "doit targets: which targets run and in what order; what each "
            "does is its stage's"),
    Neutral(("reports/*", "viewer/*", "stats/*"), "reports and the site render from records; "
            "a change re-renders reports only"),
    Neutral(("executor/*", "subjects/*"), "where work runs and who is scored: the sandbox "
            "contract makes backends and nodes agree"),
    Neutral(("submissions/*",), "published submissions read and set beside our grades: they "
            "are graded through the grader; agreement is a report"),
    Neutral(("inference/*",), "the launcher of a real model server: what a model answers is "
            "the model's (its id is in the attempt key), where it is served is no outcome"),
    Neutral(("attempts/__init__.py", "attempts/README.md", "attempts/_config.py",
             "attempts/_conversation.py", "attempts/_key.py", "attempts/_plan.py",
             "attempts/_provenance.py", "attempts/_record.py", "attempts/_result.py",
             "attempts/_stale.py", "attempts/_state.py", "attempts/_summary.py"),
            "plans, keys, records of attempts and which are done: a change to what a key holds "
            "changes the keys themselves"),
    Neutral(("agents/__init__.py", "agents/_closure.py", "agents/_config.py",
             "agents/_distributions.py", "agents/_environment.py"),
            "agent configs and identities: what they compute is the identity, a key input"),
    Neutral(("gold/__init__.py", "gold/README.md", "gold/_why.py"),
            "the gold gate's exports, docs, and why a verdict is missing"),
    Neutral(("gold/_price.py",), "the exploit stage's price: sandbox grades counted and said, "
            "never run or recorded"),
    Neutral(("gold/_sample.py",), "which tasks an `exploit_sample` checks: a task it leaves out "
            "has the families not run, and why, in its verdict's key, so a change re-keys it"),
    Neutral(("images/*",), "images are pinned by id in the lock: a change that builds other "
            "bytes changes the pins"),
    Neutral(("lock/*", "taskset/*", "swebench/*"), "task sets and their pins: what they read "
            "is pinned in the lock, which keys hold"),
    Neutral(("store/*", "remote/*"), "where records and blobs live"),
    Neutral(("settings/*",), "settings as declared; a changed default that a contract's code "
            "reads is that contract's change"),
    Neutral(("version/*",), "these declarations: a version moves by its log"),
    Neutral(("errors.py", "hashing.py", "filelock.py", "console.py", "datafiles.py",
             "pysource.py"), "shared helpers: a change to hashing changes every key by itself"),
)

__all__ = ["CONTRACTS", "KINDS", "NEUTRAL"]
