"""Model errors, typed by whose fault they are (see evaluator.errors)."""

from __future__ import annotations

from evaluator.errors import BadInputError, InfraError


class ModelUnavailableError(InfraError):
    """The endpoint kept failing (connection, timeout, 429, 5xx, garbled body) past the retries.

    Never the agent's fault: the attempt is retried on the next run.
    """

    def __init__(self, endpoint: str, attempts: int, cause: str) -> None:
        self.endpoint = endpoint
        self.attempts = attempts
        self.cause = cause
        super().__init__(
            f"model endpoint {endpoint} unavailable after {attempts} attempt(s); "
            f"last cause: {cause}"
        )


class ModelRequestError(BadInputError):
    """The endpoint refused the request itself (4xx other than 429): retrying cannot help."""

    def __init__(self, message: str, status: int | None = None) -> None:
        self.status = status
        super().__init__(message)


class ContextLengthError(ModelRequestError):
    """The endpoint refused the request because the conversation no longer fits the model's
    context window. The agent's own outcome (its history grew too long), not an infrastructure
    fault: the harness ends the attempt with it, and retrying cannot help."""


__all__ = ["ContextLengthError", "ModelRequestError", "ModelUnavailableError"]
