"""Errors of the HTTP API, one class per HTTP answer so the app maps cause to status code."""

from __future__ import annotations

from evaluator.errors import BadInputError


class UnknownNameError(BadInputError):
    """A task set or agent that does not exist (422)."""


class RunNotFoundError(BadInputError):
    """No run has this id (404)."""


class AgentVersionError(BadInputError):
    """The pinned agent identity is not the agent's current config (409)."""


class NotReadyError(BadInputError):
    """The set cannot be evaluated yet: missing or stale lock, undecided gold gate (409)."""


class UnauthorizedError(BadInputError):
    """No bearer token, or the wrong one (401)."""


class UnsafeBindError(BadInputError):
    """Serving beyond loopback without a token."""


__all__ = [
    "AgentVersionError",
    "NotReadyError",
    "RunNotFoundError",
    "UnauthorizedError",
    "UnknownNameError",
    "UnsafeBindError",
]
