"""Shared by the simulated-model tests and those that drive an agent against it: the task's problem,
its gold patch, a faults config, a bash block."""

from __future__ import annotations

import re

PROBLEM = "calc.add subtracts instead of adding, and calc.mul is wrong for negative numbers."


# A real `git diff` with two hunks, so a wrong edit can drop one of them.
GOLD = "\n".join([
    "diff --git a/calc.py b/calc.py",
    "index 469d71e..58616c6 100644",
    "--- a/calc.py",
    "+++ b/calc.py",
    "@@ -1,5 +1,5 @@",
    " def add(a, b):",
    "-    return a - b",
    "+    return a + b",
    *[" "] * 3,
    "@@ -9,5 +9,7 @@ def add(a, b):",
    *[" "] * 2,
    " def mul(a, b):",
    "-    return a * b + 0",
    "+    if a < 0:",
    "+        return -(-a * b)",
    "+    return a * b",
    " ",
    "",
])  # fmt: skip


FAULTS = """\
faults: {latency_ms: 1, rate_429: 0.2, retry_after_s: 0.5, rate_500: 0.1, rate_malformed: 0.1,
         rate_drop: 0.1, seed: 7}
"""


def bash_block(reply: str) -> str:
    """The one bash command in a reply, as the agent would extract it."""
    blocks = re.findall(r"```bash\n(.*?)\n```", reply, re.DOTALL)
    assert len(blocks) == 1, reply
    return blocks[0]
