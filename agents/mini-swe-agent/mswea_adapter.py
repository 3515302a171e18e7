"""mini-swe-agent's own DefaultAgent (the PyPI package, pinned in the lock) run by the evaluator.

Entry point `mswea_adapter:run` (this folder is on the agent's Python path). The agent loop,
its message history, its tool-call parsing and its observation formatting are mini-swe-agent's;
only the two seams it is built on are ours:

- `HarnessModel` (its `Model` protocol) asks `ctx.model`, offering mini-swe-agent's `bash` tool,
  so every call is counted, limited and recorded by the harness;
- `SandboxEnvironment` (its `Environment` protocol) runs each action in the task's sandbox
  through `ctx.sandbox` and records it as a step.

mini-swe-agent's own step, cost and time limits are off: the harness's limits end the attempt.
Settings (agent.yaml `settings`): `submit_markers` (first output lines that submit, default
mini-swe-agent's `COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`), `submission` (`tree`: the working
tree's changes are graded, as with mini-swe-agent's default config; `output`: the text after the
marker is the submitted patch and is graded, as in its SWE-bench config), `observation_template`
(a file in this folder), `env` (variables for every command), `stream` (stream replies).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from evaluator.agents import AgentContext, FormatErrors, Submitted

HERE = Path(__file__).resolve().parent
DEFAULT_MARKER = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"


def _calls(message: dict[str, Any]) -> list[SimpleNamespace]:
    """Tool calls as the objects mini-swe-agent's parser reads (`.id`, `.function.name`)."""
    return [SimpleNamespace(id=c["id"], function=SimpleNamespace(
        name=c["function"]["name"], arguments=c["function"]["arguments"]))
        for c in message.get("tool_calls") or []]


class HarnessModel:
    """mini-swe-agent's Model protocol over the harness's model client."""

    def __init__(self, ctx: AgentContext, observation_template: str) -> None:
        from minisweagent.models.utils.actions_toolcall import BASH_TOOL

        self.ctx, self.tool = ctx, BASH_TOOL
        self.config = SimpleNamespace(model_name="harness", observation_template=observation_template,
                                      format_error_template=ctx.prompts["format_error"])
        self.n_calls = 0

    def query(self, messages: list[dict[str, Any]], **kwargs: Any) -> dict[str, Any]:
        from minisweagent.exceptions import FormatError
        from minisweagent.models.utils.actions_toolcall import parse_toolcall_actions

        sent = [{k: v for k, v in m.items() if k != "extra"} for m in messages]
        reply = self.ctx.model.complete(
            sent, seed=self.ctx.seed + self.n_calls, temperature=self.ctx.temperature,
            max_tokens=self.ctx.max_tokens, tools=[self.tool],
            stream=bool(self.ctx.settings.get("stream", False)))
        self.n_calls += 1
        message = reply.message
        extra = {"cost": reply.cost_usd, "timestamp": time.time(),
                 "response": {"finish_reason": reply.finish_reason, "model": reply.model}}
        try:
            actions = parse_toolcall_actions(
                _calls(message), format_error_template=self.config.format_error_template,
                template_kwargs={"finish_reason": reply.finish_reason})
        except FormatError as exc:
            exc.messages[0]["extra"].update(extra)  # its protocol: cost kept on format errors
            raise
        return {**message, "extra": {"actions": actions, **extra}}

    def format_message(self, **kwargs: Any) -> dict[str, Any]:
        return dict(kwargs)

    def format_observation_messages(self, message: dict[str, Any], outputs: list[dict[str, Any]],
                                    template_vars: dict[str, Any] | None = None,
                                    ) -> list[dict[str, Any]]:
        from minisweagent.models.utils.actions_toolcall import (
            format_toolcall_observation_messages,
        )

        return format_toolcall_observation_messages(
            actions=message.get("extra", {}).get("actions", []), outputs=outputs,
            observation_template=self.config.observation_template, template_vars=template_vars)

    def get_template_vars(self, **kwargs: Any) -> dict[str, Any]:
        return {"model_name": self.config.model_name}

    def serialize(self) -> dict[str, Any]:
        return {"info": {"config": {"model_type": f"{__name__}.HarnessModel"}}}


class SandboxEnvironment:
    """mini-swe-agent's Environment protocol over the task's sandbox."""

    def __init__(self, ctx: AgentContext) -> None:
        self.ctx = ctx
        self.markers = list(ctx.settings.get("submit_markers") or [DEFAULT_MARKER])
        self.env = {str(k): str(v) for k, v in (ctx.settings.get("env") or {}).items()}
        self.config = SimpleNamespace(cwd=ctx.workdir, timeout=ctx.limits.command_timeout_s)

    def execute(self, action: dict[str, Any], cwd: str = "", *,
                timeout: float | None = None) -> dict[str, Any]:
        from minisweagent.exceptions import Submitted as MiniSubmitted

        command = str(action.get("command", ""))
        result = self.ctx.sandbox.exec(command, timeout_s=timeout or self.config.timeout,
                                       workdir=cwd or self.ctx.workdir, env=self.env or None)
        output: dict[str, Any] = {"output": result.output, "returncode": result.exit_code,
                                  "exception_info": ""}
        if result.timed_out:
            output.update(returncode=-1, exception_info=f"An error occurred while executing the "
                          f"command: it timed out after {self.config.timeout:g} seconds")
        self.ctx.record_step(command, result.output, {
            "exit_code": result.exit_code, "timed_out": result.timed_out,
            "truncated": result.truncated, "tool_call_id": action.get("tool_call_id")})
        lines = result.output.lstrip().splitlines(keepends=True)
        if lines and lines[0].strip() in self.markers and result.exit_code == 0:
            submission = "".join(lines[1:])
            raise MiniSubmitted({"role": "exit", "content": submission, "extra": {
                "exit_status": "Submitted", "submission": submission,
                "truncated": result.truncated}})
        return output

    def get_template_vars(self, **kwargs: Any) -> dict[str, Any]:
        return {"cwd": self.ctx.workdir, "workdir": self.ctx.workdir, "system": "Linux", **kwargs}

    def serialize(self) -> dict[str, Any]:
        return {"info": {"config": {"environment_type": f"{__name__}.SandboxEnvironment"}}}


def run(ctx: AgentContext) -> None:
    # Importing mini-swe-agent writes a config folder and prints a banner: keep both in /tmp.
    os.environ.setdefault("MSWEA_SILENT_STARTUP", "1")
    os.environ.setdefault("MSWEA_GLOBAL_CONFIG_DIR", "/tmp/mini-swe-agent")
    from minisweagent.agents.default import DefaultAgent

    settings = ctx.settings
    observation = (HERE / str(settings.get("observation_template", "observation.j2"))).read_text()
    agent = DefaultAgent(
        HarnessModel(ctx, observation), SandboxEnvironment(ctx),
        system_template=ctx.prompts["system"], instance_template=ctx.prompts["instance"],
        step_limit=0, cost_limit=0.0, wall_time_limit_seconds=0,
        max_consecutive_format_errors=ctx.limits.max_format_errors)
    info = agent.run(ctx.problem_statement, workdir=ctx.workdir,
                     problem_statement=ctx.problem_statement)
    status = info.get("exit_status")
    if status == "Submitted":
        patch = str(info.get("submission", "")) if settings.get("submission") == "output" else None
        note = " (its output was cut at the sandbox's output limit)" if info.get("truncated") else ""
        raise Submitted(f"mini-swe-agent submitted after {agent.n_calls} model calls{note}",
                        patch=patch)
    if status == "RepeatedFormatError":
        raise FormatErrors(f"{ctx.limits.max_format_errors} replies in a row without a valid "
                           "bash tool call")
    raise RuntimeError(f"mini-swe-agent ended with {status!r}: {json.dumps(info)[:500]}")
