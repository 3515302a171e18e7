"""The reference agent: a flat bash-only loop over an append-only message list.

Each reply holds one ```bash block; it runs as one exec with a timeout; the observation is the
exit code plus the output cut to head and tail. `echo EVAL_SUBMIT` ends the attempt. The loop has
no step, cost or clock checks of its own: the harness's model and sandbox end it at its limits.
"""

from __future__ import annotations

import itertools
import re

import jinja2

from evaluator.agents._protocol import AgentContext, FormatErrors, Submitted

SUBMIT = "echo EVAL_SUBMIT"
_BLOCK = re.compile(r"```bash\s*\n(.*?)\n?```", re.DOTALL)
_ENV = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True)


def render(template: str, **values: object) -> str:
    return _ENV.from_string(template).render(**values)


def parse_action(reply: str) -> str | None:
    """The one command of a reply, or None when it has zero or several bash blocks."""
    blocks = _BLOCK.findall(reply)
    return blocks[0].strip() if len(blocks) == 1 and blocks[0].strip() else None


def cut(output: str, head: int, tail: int) -> str:
    if len(output) <= head + tail:
        return output
    skipped = len(output) - head - tail
    return f"{output[:head]}\n[... {skipped} characters elided ...]\n{output[-tail:]}"


def reference_agent(ctx: AgentContext) -> None:
    lim = ctx.limits
    messages = [
        {"role": "system", "content": render(ctx.prompts["system"], submit=SUBMIT)},
        {"role": "user", "content": render(ctx.prompts["instance"], workdir=ctx.workdir,
                                           problem_statement=ctx.problem_statement)},
    ]
    format_errors = 0
    for step in itertools.count():
        reply = ctx.model.complete(messages, seed=ctx.seed + step, temperature=ctx.temperature,
                                   max_tokens=ctx.max_tokens)
        messages.append({"role": "assistant", "content": reply.content})
        command = parse_action(reply.content)
        if command is None:
            format_errors += 1
            observation = render(ctx.prompts["format_error"], submit=SUBMIT)
            messages.append({"role": "user", "content": observation})
            ctx.record_step(reply.content, observation, {"format_error": True})
            if format_errors >= lim.max_format_errors:
                raise FormatErrors(f"{format_errors} replies without exactly one bash block")
            continue
        if command == SUBMIT:
            ctx.record_step(command, "", {})
            raise Submitted(f"after {step + 1} steps")
        result = ctx.sandbox.exec(command, timeout_s=lim.command_timeout_s)
        note = " (timed out)" if result.timed_out else ""
        observation = (f"<returncode>{result.exit_code}{note}</returncode>\n<output>\n"
                       f"{cut(result.output, lim.output_head_chars, lim.output_tail_chars)}\n"
                       f"</output>")
        messages.append({"role": "user", "content": observation})
        ctx.record_step(command, observation, {"exit_code": result.exit_code})
