"""One chat-completions request to the simulated model: validated strictly, answered as a pure
function of it. What the simulator cannot honour is refused with an OpenAI-shaped 400, never
ignored: an agent tested against it must not pass only because a field went unread.

Sampling knobs (temperature, top_p, penalties) are accepted and have no effect: the simulated
model's replies depend on the seed alone, at any temperature.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from evaluator.hashing import hash_json

from ._policy import next_step
from ._tasks import TaskIndex

_NO_EFFECT = {"temperature", "top_p", "presence_penalty", "frequency_penalty", "user", "metadata"}
_HONOURED = {"model", "messages", "seed", "max_tokens", "max_completion_tokens", "n", "stream",
             "stream_options", "tools", "tool_choice", "parallel_tool_calls", "stop"}
_ROLES = {"system", "developer", "user", "assistant", "tool"}
MAX_N = 8


class RequestError(ValueError):
    """A 400 with the OpenAI error fields."""

    def __init__(self, message: str, param: str | None = None,
                 code: str | None = "invalid_value") -> None:
        super().__init__(message)
        self.param, self.code = param, code


@dataclass(frozen=True)
class ChatRequest:
    model: str
    messages: list[dict[str, Any]]
    seed: int
    max_tokens: int | None
    n: int
    stream: bool
    include_usage: bool
    tool: tuple[str, str] | None  # (function name, its string parameter) when replying by tool
    tools_json: str
    stop: tuple[str, ...]


def text_of(message: dict[str, Any]) -> str:
    """A message's text: its content (string or text parts) and its tool calls' arguments."""
    content = message.get("content")
    parts = [content] if isinstance(content, str) else [
        p["text"] for p in content or [] if isinstance(p, dict) and p.get("type") == "text"]
    parts += [c["function"]["arguments"] for c in message.get("tool_calls") or []]
    return "".join(parts)


def parse_request(raw: Any) -> ChatRequest:
    if not isinstance(raw, dict):
        raise RequestError("request body must be a JSON object")
    for key in raw:
        if key not in _HONOURED | _NO_EFFECT:
            raise RequestError(f"the simulated endpoint does not support '{key}'; remove it from "
                               "the request", key, "unsupported_parameter")
    if not isinstance(raw.get("model"), str):
        raise RequestError("'model' must be a string", "model")
    messages = raw.get("messages")
    if not isinstance(messages, list) or not messages:
        raise RequestError("'messages' must be a non-empty list", "messages")
    for i, m in enumerate(messages):
        _check_message(i, m)
    seed = raw.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise RequestError("'seed' must be an integer", "seed")
    max_tokens = raw.get("max_completion_tokens", raw.get("max_tokens"))
    if max_tokens is not None and (not isinstance(max_tokens, int) or max_tokens < 1):
        raise RequestError("'max_tokens' must be a positive integer", "max_tokens")
    n = raw.get("n", 1)
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= MAX_N:
        raise RequestError(f"'n' must be an integer from 1 to {MAX_N}", "n")
    stream = raw.get("stream", False)
    options = raw.get("stream_options")
    if not isinstance(stream, bool) or (options is not None and not (
            stream and isinstance(options, dict) and set(options) <= {"include_usage"})):
        raise RequestError("'stream' must be a boolean; 'stream_options' ({include_usage}) only "
                           "with stream: true", "stream_options" if options else "stream")
    stop = raw.get("stop") or []
    stop = [stop] if isinstance(stop, str) else stop
    if not isinstance(stop, list) or len(stop) > 4 or not all(isinstance(s, str) for s in stop):
        raise RequestError("'stop' must be a string or a list of up to 4 strings", "stop")
    tools = raw.get("tools")
    return ChatRequest(raw["model"], messages, seed, max_tokens, n, stream,
                       bool((options or {}).get("include_usage")),
                       _pick_tool(tools, raw.get("tool_choice")),
                       json.dumps(tools) if tools else "", tuple(stop))


def _check_message(i: int, m: Any) -> None:
    where = f"messages[{i}]"
    if not isinstance(m, dict) or m.get("role") not in _ROLES:
        raise RequestError(f"{where} must have a 'role' of {sorted(_ROLES)}", where)
    content = m.get("content")
    if isinstance(content, list):
        for part in content:
            if not isinstance(part, dict) or part.get("type") != "text" or not isinstance(
                    part.get("text"), str):
                raise RequestError(f"{where}: the simulated model reads text content parts only",
                                   where)
    elif not isinstance(content, str) and not (content is None and m.get("tool_calls")):
        raise RequestError(f"{where} must have string 'content' (or text parts)", where)
    calls = m.get("tool_calls")
    if calls is not None and (m["role"] != "assistant" or not isinstance(calls, list) or not all(
            isinstance(c, dict) and isinstance(c.get("function"), dict)
            and isinstance(c["function"].get("arguments"), str) for c in calls)):
        raise RequestError(f"{where}: tool_calls belong to assistant messages, each with "
                           "function.arguments as text", where)
    if m["role"] == "tool" and not isinstance(m.get("tool_call_id"), str):
        raise RequestError(f"{where}: a tool message needs its 'tool_call_id'", where)


def _pick_tool(tools: Any, choice: Any) -> tuple[str, str] | None:
    """The function the simulated model calls for its shell command, or None for text replies."""
    if tools is None:
        if choice not in (None, "none"):
            raise RequestError("'tool_choice' needs 'tools'", "tool_choice")
        return None
    if not isinstance(tools, list) or not tools or not all(
            isinstance(t, dict) and t.get("type") == "function"
            and isinstance(t.get("function"), dict) and isinstance(t["function"].get("name"), str)
            for t in tools):
        raise RequestError("'tools' must be a non-empty list of function tools", "tools")
    if choice == "none":
        return None
    named = choice["function"].get("name") if isinstance(choice, dict) and isinstance(
        choice.get("function"), dict) else None
    if choice not in (None, "auto", "required") and named is None:
        raise RequestError("'tool_choice' must be none, auto, required or a function",
                           "tool_choice")
    usable = [(t["function"]["name"], p) for t in tools
              if (p := _string_param(t["function"])) and named in (None, t["function"]["name"])]
    if not usable:
        raise RequestError("the simulated model plays a shell agent: offer a function tool with "
                           "a string parameter for the command, e.g. bash(command)", "tools")
    return next((u for u in usable if u[0] in ("bash", "shell")), usable[0])


def _string_param(function: dict[str, Any]) -> str | None:
    props = (function.get("parameters") or {}).get("properties") or {}
    strings = [k for k, v in props.items() if isinstance(v, dict) and v.get("type") == "string"]
    return next((k for k in strings if k in ("command", "cmd")), strings[0] if strings else None)


def answer(req: ChatRequest, solve_rate: float, tasks: TaskIndex) -> dict[str, Any]:
    """The chat.completion body; everything in it is a function of the request."""
    first_user = next((text_of(m) for m in req.messages if m["role"] == "user"), "")
    assistants = [m for m in req.messages if m["role"] == "assistant"]
    task = tasks.match(first_user)
    first_reply = text_of(assistants[0]) if assistants else None
    key = hash_json([req.model, req.seed, req.messages, req.tools_json, req.n])
    choices = []
    for i in range(req.n):
        seed = req.seed if i == 0 else int(hash_json([req.seed, i])[:8], 16)
        thought, command = next_step(task, req.model, seed, solve_rate, len(assistants),
                                     first_reply)
        choices.append(_choice(req, i, thought, command, f"call_{key[:16]}{i}"))
    prompt = tokens(req.tools_json) + sum(tokens(text_of(m)) for m in req.messages)
    completion = sum(tokens(text_of(c["message"])) for c in choices)
    return {"id": f"chatcmpl-sim-{key[:24]}", "object": "chat.completion", "created": 0,
            "model": req.model, "choices": choices,
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                      "total_tokens": prompt + completion,
                      "prompt_tokens_details": {"cached_tokens": 0}}}


def _choice(req: ChatRequest, index: int, thought: str, command: str,
            call_id: str) -> dict[str, Any]:
    calls: list[dict[str, Any]] = []
    if req.tool is None:
        content = f"{thought}\n\n```bash\n{command}\n```"
    else:
        name, param = req.tool
        content = thought
        calls.append({"id": call_id, "type": "function",
                      "function": {"name": name, "arguments": json.dumps({param: command})}})
    finish = "tool_calls" if calls else "stop"
    cut = min((content.find(s) for s in req.stop if s in content), default=-1)
    if cut >= 0:
        content, calls, finish = content[:cut], [], "stop"
    if req.max_tokens is not None and tokens(content + "".join(
            c["function"]["arguments"] for c in calls)) > req.max_tokens:
        content, calls, finish = content[: req.max_tokens * 4], [], "length"
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = calls
    return {"index": index, "message": message, "finish_reason": finish}


def tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


__all__ = ["MAX_N", "ChatRequest", "RequestError", "answer", "parse_request", "text_of", "tokens"]
