"""The simulated model's behaviour: a pure function of (model, seed, task, step).

Whether a (model, seed, task) is solved is decided once, by hash, so that over many seeds the
solve rate matches the configured one and a replayed conversation gets the same replies.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable

from evaluator.hashing import hash_json

from ._patch import drop_largest_hunk
from ._tasks import SimTask

SUBMIT = "echo EVAL_SUBMIT"
TEST_COMMAND = "python3 -m pytest -q -p no:cacheprovider 2>&1 | tail -n 5"
PATCH_FILE = "/tmp/eval_fix.patch"

SOLVE = "solve"
WRONG_EDIT = "wrong_edit"
EXPLORE_SUBMIT = "explore_submit"
WANDER = "wander"
FAILURES = (WRONG_EDIT, EXPLORE_SUBMIT, WANDER)

Step = tuple[str, str]  # (thought, command)

_PLAN_MARK = re.compile(r"^THOUGHT: \[simulated plan: ([a-z_]+)\]")


def unit_interval(*parts: object) -> float:
    """A uniform draw in [0, 1) fixed by `parts`."""
    return int(hash_json(list(parts))[:16], 16) / float(1 << 64)


def trajectory_kind(model: str, seed: int, task_id: str, solve_rate: float) -> str:
    if unit_interval(model, seed, task_id) < solve_rate:
        return SOLVE
    pick = unit_interval(model, seed, task_id, "failure")
    return FAILURES[min(int(pick * len(FAILURES)), len(FAILURES) - 1)]


def reply(
    task: SimTask | None,
    model: str,
    seed: int,
    solve_rate: float,
    step: int,
    first_reply: str | None = None,
) -> str:
    """The assistant message for `step` as text: the thought, then one ```bash block."""
    return _format(*next_step(task, model, seed, solve_rate, step, first_reply))


def next_step(
    task: SimTask | None,
    model: str,
    seed: int,
    solve_rate: float,
    step: int,
    first_reply: str | None = None,
) -> Step:
    """(thought, command) for `step` (the number of assistant messages so far).

    The plan is drawn at step 0 and written into that reply; later steps read it back from
    `first_reply` (the first assistant message of the history). An agent that sends a different
    seed at every step (e.g. seed + step) so still gets one coherent trajectory, and the solve
    rate over attempts is the configured one. Without a readable plan the request's seed decides.
    """
    if task is None:
        steps = [
            ("I can't place this project yet; let me look around.", "ls"),
            ("Nothing here I can fix with confidence; submitting.", SUBMIT),
        ]
        kind = None
    else:
        recorded = _recorded_plan(first_reply) if step > 0 else None
        kind = recorded or trajectory_kind(model, seed, task.task_id, solve_rate)
        steps = _PLANS[kind](task)
    if kind == WANDER:
        thought, command = steps[step % len(steps)]
    else:
        # Past the end (the agent kept going after a submit): submit again.
        thought, command = steps[step] if step < len(steps) else ("I am done.", SUBMIT)
    if step == 0 and kind is not None:
        thought = f"[simulated plan: {kind}] {thought}"
    return f"THOUGHT: {thought}", command


def _recorded_plan(first_reply: str | None) -> str | None:
    match = _PLAN_MARK.search(first_reply or "")
    return match.group(1) if match and match.group(1) in _PLANS else None


def _format(thought: str, command: str) -> str:
    return f"{thought}\n\n```bash\n{command}\n```"


def _explore(task: SimTask) -> list[Step]:
    files = task.touched_files
    look = f"cat -n {shlex.quote(files[0])}" if files else "git status"
    return [
        ("Let me look at the repository layout first.", "ls"),
        ("This file looks related to the bug report; let me read it.", look),
    ]


def _write_patch(patch: str, after: str) -> str:
    delimiter = "EVAL_PATCH_EOF"
    while delimiter in patch.splitlines():
        delimiter += "_"
    body = patch if patch.endswith("\n") else patch + "\n"
    return f"cat > {PATCH_FILE} <<'{delimiter}' && {after}\n{body}{delimiter}"


def _solve(task: SimTask) -> list[Step]:
    if not task.gold_patch:
        return [*_explore(task), ("I could not work out a fix; submitting.", SUBMIT)]
    edit = _write_patch(task.gold_patch, f"git apply {PATCH_FILE} && git diff --stat")
    return [
        *_explore(task),
        ("I see the bug; let me write the fix as a patch and apply it.", edit),
        ("Now let me run the tests.", TEST_COMMAND),
        ("The fix is in and the tests look right; submitting.", SUBMIT),
    ]


def _wrong_edit(task: SimTask) -> list[Step]:
    partial = drop_largest_hunk(task.gold_patch) if task.gold_patch else None
    if partial is not None:
        edit = _write_patch(partial, f"git apply {PATCH_FILE} && git diff --stat")
    else:
        files = task.touched_files
        target = files[0] if files else "README.md"
        line = f"{_comment(target)} NOTE: edge case handled by the caller"
        edit = f"printf '%s\\n' {shlex.quote(line)} >> {shlex.quote(target)} && git diff --stat"
    return [
        *_explore(task),
        ("I think I see the problem; let me change it.", edit),
        ("Now let me run the tests.", TEST_COMMAND),
        ("That should do it; submitting.", SUBMIT),
    ]


def _explore_submit(task: SimTask) -> list[Step]:
    return [*_explore(task), ("I don't see anything to change; submitting as is.", SUBMIT)]


def _wander(task: SimTask) -> list[Step]:
    # Never submits: the agent's step limit has to end it.
    return [
        *_explore(task),
        ("Let me check the state of the working tree.", "git status"),
        ("Let me see the recent history.", "git log --oneline -5"),
        ("Where are the functions defined?", "grep -rn 'def ' --include='*.py' . | head -n 20"),
        ("Let me list the Python files.", "find . -name '*.py' -not -path './.git/*' | head -n 30"),
        ("Let me run the tests to see what fails.", TEST_COMMAND),
    ]


_SLASH_COMMENT = {
    ".c",
    ".h",
    ".cc",
    ".cpp",
    ".hpp",
    ".js",
    ".ts",
    ".tsx",
    ".jsx",
    ".go",
    ".rs",
    ".java",
    ".kt",
    ".swift",
    ".cs",
    ".scala",
    ".php",
}


def _comment(path: str) -> str:
    suffix = path[path.rfind(".") :] if "." in path.rsplit("/", 1)[-1] else ""
    return "//" if suffix in _SLASH_COMMENT else "#"


_PLANS: dict[str, Callable[[SimTask], list[Step]]] = {
    SOLVE: _solve,
    WRONG_EDIT: _wrong_edit,
    EXPLORE_SUBMIT: _explore_submit,
    WANDER: _wander,
}

__all__ = [
    "FAILURES", "SUBMIT", "TEST_COMMAND", "next_step", "reply", "trajectory_kind", "unit_interval",
]
