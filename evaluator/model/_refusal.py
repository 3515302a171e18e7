"""Telling a context-length refusal from any other 4xx, in each server's own words.

Servers say it differently and none uses a status of its own: OpenAI answers 400 with
`code: context_length_exceeded`; llama.cpp's server 400 with `type: exceed_context_size_error`
(and `n_prompt_tokens`, `n_ctx`); vLLM 400 with "This model's maximum context length is N
tokens. However, you requested M tokens ..."; SGLang and TGI with "... longer than the model's
context length" or "must have less than N tokens"; some proxies 413.
"""

from __future__ import annotations

import json
import re
from typing import Any

_CODES = {"context_length_exceeded", "exceed_context_size_error", "context_window_exceeded"}
_WORDS = re.compile(r"maximum context length|context length|context size|context window|"
                    r"must have less than \d+ tokens|too many tokens|prompt is too long", re.I)


def is_context_refusal(status: int, body: str) -> bool:
    """Whether an HTTP 400 or 413 answer says the request does not fit the context window."""
    if status not in (400, 413):
        return False
    error = _error(body)
    for field in ("code", "type"):
        if str(error.get(field, "")).lower() in _CODES:
            return True
    return bool(_WORDS.search(str(error.get("message", body))))


def _error(body: str) -> dict[str, Any]:
    try:
        data = json.loads(body)
    except ValueError:
        return {}
    error = data.get("error", data) if isinstance(data, dict) else None
    return error if isinstance(error, dict) else {"message": str(error)}


__all__ = ["is_context_refusal"]
