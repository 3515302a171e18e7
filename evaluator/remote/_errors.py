"""Remote store errors, typed by cause (see evaluator.errors); each message says what to do."""

from __future__ import annotations

from evaluator.errors import BadInputError, InfraError


class RemoteConfigError(BadInputError):
    """EVAL_REMOTE, EVAL_REMOTE_MODE or the endpoint is malformed, or the bucket does not exist."""


class RemoteUnavailableError(InfraError):
    """The object store could not be reached or kept failing past botocore's retries."""


class RemoteAccessError(InfraError):
    """The object store refused this credential (no credential, wrong key, no permission)."""


__all__ = ["RemoteAccessError", "RemoteConfigError", "RemoteUnavailableError"]
