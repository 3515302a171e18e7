"""Where the remote store is and what this machine may do there, read from the environment."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal, cast

from evaluator.remote._errors import RemoteConfigError
from evaluator.settings import SettingError, Settings, settings

REMOTE_ENV = Settings.remote.env
MODE_ENV = Settings.remote_mode.env
ENDPOINT_ENV = Settings.remote_endpoint.env
READ: Final = "read"
READWRITE: Final = "readwrite"

Mode = Literal["read", "readwrite"]

# S3's own rule for bucket names (lower case, digits, dots, hyphens; 3 to 63 characters).
_BUCKET = re.compile(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")


@dataclass(frozen=True)
class RemoteConfig:
    """A bucket, a key prefix inside it ("" or ending in "/"), the mode and an optional endpoint.

    `endpoint` None leaves the endpoint to botocore, which reads AWS_ENDPOINT_URL_S3 and
    AWS_ENDPOINT_URL itself; credentials always come from botocore's usual chain (AWS_* variables,
    AWS_PROFILE, instance roles).
    """

    bucket: str
    prefix: str = ""
    mode: Mode = READWRITE
    endpoint: str | None = None

    @property
    def url(self) -> str:
        return f"s3://{self.bucket}/{self.prefix}".rstrip("/")

    @property
    def writable(self) -> bool:
        return self.mode == READWRITE

    @classmethod
    def parse(cls, url: str, mode: str = READWRITE, endpoint: str | None = None) -> RemoteConfig:
        m = re.fullmatch(r"s3://([^/]+)(?:/(.*))?", url.strip())
        if m is None:
            raise RemoteConfigError(f"${REMOTE_ENV} is {url!r}; set it to s3://bucket or "
                                    f"s3://bucket/prefix, or unset it to use the local store alone")
        bucket, prefix = m.group(1), (m.group(2) or "").strip("/")
        if not _BUCKET.match(bucket):
            raise RemoteConfigError(f"${REMOTE_ENV} names bucket {bucket!r}, which is not a valid "
                                    f"S3 bucket name (3-63 lower-case letters, digits, '.', '-')")
        if prefix and any(part in ("", ".", "..") for part in prefix.split("/")):
            raise RemoteConfigError(f"${REMOTE_ENV} has prefix {prefix!r} with an empty, '.' or "
                                    f"'..' part; write it as s3://{bucket}/team/cache")
        if mode not in (READ, READWRITE):
            raise RemoteConfigError(f"${MODE_ENV} is {mode!r}; set it to {READ!r} (never writes) "
                                    f"or {READWRITE!r} (the default)")
        if endpoint is not None and not re.match(r"^https?://[^/\s]+", endpoint):
            raise RemoteConfigError(f"${ENDPOINT_ENV} is {endpoint!r}; set it to a URL such as "
                                    f"http://127.0.0.1:9000, or unset it for AWS S3")
        return cls(bucket, prefix + "/" if prefix else "", cast(Mode, mode), endpoint)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> RemoteConfig | None:
        """The remote named by $EVAL_REMOTE (`settings.remote`; in `env` when given), or None
        when it is unset or empty."""
        of = settings if env is None else Settings(env)
        if of.remote is None:
            return None
        try:
            mode, endpoint = of.remote_mode, of.remote_endpoint
        except SettingError as exc:
            raise RemoteConfigError(str(exc)) from None
        return cls.parse(of.remote, mode, endpoint)
