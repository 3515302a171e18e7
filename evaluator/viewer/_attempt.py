"""The attempt page's content: problem, steps, final diff, grade, policy flags, provenance.

Each text that may be long is cut (`Limits`) and the whole of it is a file beside the page
(`files`: name -> blob digest), so the page stays small and the full text is one click away.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from evaluator.viewer._data import Limits, Records, RunData
from evaluator.viewer._text import decode, diff_lines, shorten

_STEP_KEYS = ("n", "action", "observation", "t")


@dataclass
class AttemptView:
    """The template's context for one attempt, and the blobs its links point to."""

    context: dict[str, Any]
    files: dict[str, str] = field(default_factory=dict)  # file name beside the page -> digest


def attempt_view(data: RunData, records: Records, key: str, limits: Limits) -> AttemptView | None:
    """None when `key` is not an attempt of this run."""
    cell = data.cell(key)
    if cell is None:
        return None
    view = AttemptView({})
    attempt = records.get("attempt", key)
    task = data.tasks.get(str(cell["task_id"]))
    result = records.get("result", str(cell["result"])) if cell.get("result") else None
    grade = records.get("grade", str(cell["grade"])) if cell.get("grade") else None
    trajectory = _json_blob(records, (attempt or {}).get("trajectory"))
    view.context.update(
        cell=cell, attempt=attempt, task=task, result=result,
        errors=records.errors("attempt", key),
        steps=_steps(records, attempt or {}, trajectory, limits, view.files),
        calls=trajectory.get("model_calls") or [],
        messages=_messages(_json_blob(records, (attempt or {}).get("conversation")), limits),
        patch=_patch(records, attempt or {}, limits, view.files),
        grade=_grade(records, grade, task.required if task else (), limits, view.files),
        violations=(result or {}).get("violations") or [],
        flags=(result or {}).get("flags") or [],
        # Checked on read: a blob that is gone shows as nothing, so the page says which.
        missing=[{"what": f"the {kind}'s {what.removeprefix('its ')}", "digest": digest}
                 for kind, rec in (("attempt", attempt), ("grade", grade)) if rec
                 for what, digest in records.missing_blobs(rec)],
    )
    for name, field_ in (("trajectory.json", "trajectory"), ("conversation.json", "conversation")):
        if attempt and isinstance(attempt.get(field_), str):
            view.files[name] = str(attempt[field_])
    view.context["aligned"] = len(view.context["calls"]) == len(view.context["steps"])
    view.context["files"] = view.files
    view.context["fail_to_pass"] = task.fail_to_pass if task else ()
    return view


def _json_blob(records: Records, digest: object) -> dict[str, Any]:
    if not isinstance(digest, str):
        return {}
    try:
        value = json.loads(decode(records.local_blob(digest)) or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _steps(records: Records, attempt: Mapping[str, Any], trajectory: Mapping[str, Any],
           limits: Limits, files: dict[str, str]) -> list[dict[str, Any]]:
    calls = trajectory.get("model_calls") or []
    steps = trajectory.get("steps") or []
    aligned = len(calls) == len(steps)
    previous = attempt.get("started")
    out = []
    for i, step in enumerate(steps):
        ref = step.get("observation")
        text = decode(records.local_blob(ref)) if isinstance(ref, str) else str(ref or "")
        shown = shorten(text, limits.observation_chars)
        name = f"step-{i}.txt"
        if shown.cut and isinstance(ref, str):
            files[name] = ref
        t = step.get("t")
        dt = t - previous if isinstance(t, int | float) and isinstance(previous, int | float) else None
        previous = t if isinstance(t, int | float) else previous
        out.append({
            "n": step.get("n", i), "action": str(step.get("action", "")), "observation": shown,
            "file": name if shown.cut else None, "dt": dt,
            "call": calls[i] if aligned else None,
            "extra": {k: v for k, v in step.items() if k not in _STEP_KEYS},
        })
    return out


def _messages(conversation: Mapping[str, Any], limits: Limits) -> list[dict[str, Any]]:
    """The conversation's thread (format evaluator-conversation/1: messages kept once each,
    `thread` indexing them), each assistant message beside the model call that replied it."""
    messages = conversation.get("messages") or []
    thread = conversation.get("thread")
    order = thread if isinstance(thread, list) else list(range(len(messages)))
    replied = {c.get("reply"): c for c in conversation.get("calls") or [] if isinstance(c, dict)}
    out = []
    for i in order:
        m = messages[i] if isinstance(i, int) and 0 <= i < len(messages) else None
        if not isinstance(m, dict):
            continue
        content = m.get("content")
        if isinstance(content, list):  # content parts: keep their text, name the others
            content = "\n".join(str(p.get("text", f"[{p.get('type', 'part')}]"))
                                if isinstance(p, dict) else str(p) for p in content)
        calls = [{"name": str((c.get("function") or {}).get("name", "")),
                  "arguments": str((c.get("function") or {}).get("arguments", "")),
                  "id": str(c.get("id", ""))}
                 for c in m.get("tool_calls") or [] if isinstance(c, dict)]
        call = replied.get(i)
        out.append({"index": i, "role": str(m.get("role", "")),
                    "content": shorten(str(content or ""), limits.message_chars),
                    "tool_calls": calls, "tool_call_id": m.get("tool_call_id"),
                    "call": call, "usage": (call or {}).get("usage") or {}})
    return out


def _patch(records: Records, attempt: Mapping[str, Any], limits: Limits,
           files: dict[str, str]) -> dict[str, Any] | None:
    digest = attempt.get("patch")
    if not isinstance(digest, str):
        return None
    text = decode(records.local_blob(digest))
    shown = shorten(text, limits.patch_chars)
    files["patch.diff.txt"] = digest
    return {"lines": diff_lines(shown.head), "cut": shown.cut, "total": shown.total,
            "bytes": attempt.get("patch_bytes", len(text.encode())), "file": "patch.diff.txt"}


def _grade(records: Records, grade: Mapping[str, Any] | None, required: tuple[str, ...],
           limits: Limits, files: dict[str, str]) -> dict[str, Any] | None:
    if grade is None:
        return None
    return {"record": grade, "tests": test_rows(grade, required),
            "output": output_of(records, grade, limits, files, "test-output.txt")}


def test_rows(grade: Mapping[str, Any], required: tuple[str, ...]) -> list[dict[str, Any]]:
    """Every required test with its status (missing when the run did not report it), then
    every other test the run reported."""
    tests = grade.get("tests") or {}
    rows = [{"id": t, "required": True, "status": str(tests.get(t, "missing"))} for t in required]
    rows += [{"id": t, "required": False, "status": str(s)}
             for t, s in sorted(tests.items()) if t not in required]
    return rows


def output_of(records: Records, grade: Mapping[str, Any], limits: Limits,
              files: dict[str, str], name: str) -> dict[str, Any] | None:
    digest = grade.get("output")
    if not isinstance(digest, str):
        return None
    shown = shorten(decode(records.local_blob(digest)), limits.output_chars)
    files[name] = digest
    return {"shown": shown, "file": name}
