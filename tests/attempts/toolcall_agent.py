"""A tool-calling scaffold in the style of mini-swe-agent (entry point `tests.attempts.
toolcall_agent:run`): the model gets a bash tool, each call's command runs in the sandbox, its
output goes back as the tool's result, and a command that echoes the submit marker ends it."""

from __future__ import annotations

import json

from evaluator.agents import SUBMIT, AgentContext, Submitted

BASH = {"type": "function", "function": {
    "name": "bash", "description": "Run one shell command in the repository.",
    "parameters": {"type": "object", "properties": {"command": {"type": "string"}},
                   "required": ["command"]}}}


def run(ctx: AgentContext) -> None:
    messages: list[dict] = [
        {"role": "system", "content": f"Fix the bug. Run `{SUBMIT}` when done."},
        {"role": "user", "content": [{"type": "text", "text": ctx.problem_statement}]}]
    while True:  # the harness's step limit ends a scaffold that never submits
        reply = ctx.model.complete(messages, seed=ctx.seed, temperature=ctx.temperature,
                                   tools=[BASH], stream=True)
        messages.append(reply.message)
        for call in reply.tool_calls:
            command = json.loads(call.arguments)["command"]
            if command == SUBMIT:
                ctx.record_step(command, "", {"tool_call_id": call.id})
                raise Submitted(f"after {len(messages) // 2} turns")
            result = ctx.sandbox.exec(command, timeout_s=ctx.limits.command_timeout_s)
            output = f"<returncode>{result.exit_code}</returncode>\n{result.output}"
            messages.append({"role": "tool", "tool_call_id": call.id, "content": output})
            ctx.record_step(command, output, {"tool_call_id": call.id})
