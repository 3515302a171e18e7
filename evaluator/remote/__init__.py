"""The remote store: an S3-compatible bucket that the local store fronts as a cache.

Nothing here runs at import time: boto3 is imported when the first client is made.
"""

import functools

from evaluator.remote._config import (
    ENDPOINT_ENV,
    MODE_ENV,
    READ,
    READWRITE,
    REMOTE_ENV,
    RemoteConfig,
)
from evaluator.remote._errors import RemoteAccessError, RemoteConfigError, RemoteUnavailableError
from evaluator.remote._s3 import S3Remote, default_client


def remote_from_env() -> S3Remote | None:
    """The remote named by $EVAL_REMOTE (mode $EVAL_REMOTE_MODE), or None when unset.

    One per configuration and process: code that opens a Store per request (the HTTP API)
    reuses its client instead of paying for a new one each time.
    """
    config = RemoteConfig.from_env()
    return _remote(config) if config is not None else None


@functools.cache
def _remote(config: RemoteConfig) -> S3Remote:
    return S3Remote(config)


__all__ = [
    "ENDPOINT_ENV",
    "MODE_ENV",
    "READ",
    "READWRITE",
    "REMOTE_ENV",
    "RemoteAccessError",
    "RemoteConfig",
    "RemoteConfigError",
    "RemoteUnavailableError",
    "S3Remote",
    "default_client",
    "remote_from_env",
]
