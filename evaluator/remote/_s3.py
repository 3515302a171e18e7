"""The remote store's transport: blobs and write-once records in an S3-compatible bucket.

Layout under the configured prefix:

    blobs/<blake3 hex>              the blob's bytes
    records/<kind>/<key>.json       one record envelope per target, created once
    leases/<kind>/<key>             who is running that target now (see evaluator.store's
                                    _remote_lease): created if absent, renewed and released
                                    only by the ETag its holder last saw

This class moves bytes and nothing else; checking what comes back (hashes, envelopes) is the
store's job, so a misbehaving server or a poisoned object is caught in one place.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable
from typing import Any

from evaluator.remote._config import ENDPOINT_ENV, MODE_ENV, REMOTE_ENV, RemoteConfig
from evaluator.remote._errors import RemoteAccessError, RemoteConfigError, RemoteUnavailableError

_NAME = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9_.-]*$")
_DIGEST = re.compile(r"^[0-9a-f]{64}$")
_DENIED = {"AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "AllAccessDisabled"}
_CONFLICT_RETRIES = 5


def default_client(config: RemoteConfig) -> Any:
    """A boto3 S3 client for `config`: standard retries with backoff, bounded timeouts."""
    import boto3  # here, not at import time: a run without a remote never pays for boto3
    from botocore.config import Config

    settings = Config(retries={"mode": "standard", "max_attempts": 4}, connect_timeout=5,
                      read_timeout=60, max_pool_connections=16)
    return boto3.session.Session().client("s3", endpoint_url=config.endpoint, config=settings)


class S3Remote:
    """Blobs and records in one bucket under one prefix; `writable` False never sends a write.

    One client per process (botocore clients do not survive a fork); `client_factory` is the
    seam tests use to watch every request.
    """

    def __init__(self, config: RemoteConfig, *,
                 client_factory: Callable[[RemoteConfig], Any] = default_client,
                 page_size: int = 1000) -> None:
        self.config = config
        self.url = config.url
        self.writable = config.writable
        self._factory = client_factory
        self._page_size = page_size
        self._client: Any = None
        self._pid = 0
        self._lock = threading.Lock()

    # reads -----------------------------------------------------------------------------------
    def record_keys(self, kind: str) -> set[str]:
        """Every key of `kind` in the bucket: one paginated LIST (1,000 keys per request)."""
        base = self._record_prefix(kind)
        keys: set[str] = set()
        try:
            pages = self._s3().get_paginator("list_objects_v2").paginate(
                Bucket=self.config.bucket, Prefix=base,
                PaginationConfig={"PageSize": self._page_size})
            for page in pages:
                for obj in page.get("Contents", ()):
                    name = obj["Key"][len(base):]
                    if name.endswith(".json") and _NAME.match(name[:-5]):
                        keys.add(name[:-5])
        except Exception as exc:
            raise self._translate(f"list records/{kind}/", exc) from exc
        return keys

    def get_record(self, kind: str, key: str) -> bytes | None:
        return self._get(self._record_key(kind, key))

    def get_blob(self, digest: str) -> bytes | None:
        return self._get(self._blob_key(digest))

    # writes ----------------------------------------------------------------------------------
    def put_record(self, kind: str, key: str, data: bytes) -> bool:
        """Create the record only if none is there; False when one already is (it is kept)."""
        return self._put_once(self._record_key(kind, key), data)

    def put_blob(self, digest: str, data: bytes) -> None:
        """Upload a blob; one already there has the same bytes by its name, so it is kept."""
        self._put_once(self._blob_key(digest), data)

    # leases: conditional on absence (If-None-Match) or on the ETag last seen (If-Match) ---------
    def create_lease(self, kind: str, key: str, data: bytes) -> str | None:
        """Create the lease object if none is there; its ETag, or None when one already is."""
        return self._put_lease(kind, key, data, IfNoneMatch="*")

    def read_lease(self, kind: str, key: str) -> tuple[bytes, str] | None:
        """The lease's bytes and ETag, or None when there is none."""
        return self._get_tagged(self._lease_key(kind, key))

    def replace_lease(self, kind: str, key: str, data: bytes, etag: str) -> str | None:
        """Overwrite the lease only if it is still the one seen (`etag`); its new ETag, or None
        when it changed or went meanwhile (another machine renewed, took or released it)."""
        return self._put_lease(kind, key, data, IfMatch=etag)

    def delete_lease(self, kind: str, key: str, etag: str) -> bool:
        """Delete the lease only if it is still the one seen; False when it is not."""
        name = self._lease_key(kind, key)
        try:
            self._s3().delete_object(Bucket=self.config.bucket, Key=name, IfMatch=etag)
        except Exception as exc:
            if _code(exc) in ("PreconditionFailed", "412", "NoSuchKey", "404"):
                return False
            raise self._translate(f"delete {name}", exc) from exc
        return True

    # internals -------------------------------------------------------------------------------
    def _put_lease(self, kind: str, key: str, data: bytes, **condition: str) -> str | None:
        name = self._lease_key(kind, key)
        if not self.writable:
            raise RemoteAccessError(f"refusing to write {name} to {self.url}: ${MODE_ENV} is "
                                    f"'read'")
        try:
            resp = self._s3().put_object(Bucket=self.config.bucket, Key=name, Body=data,
                                         **condition)
        except Exception as exc:
            # 412: the condition failed; 404: If-Match on a lease gone; 409: a racing write
            if _code(exc) in ("PreconditionFailed", "412", "NoSuchKey", "404",
                              "ConditionalRequestConflict"):
                return None
            raise self._translate(f"put {name}", exc) from exc
        return str(resp["ETag"])

    def _s3(self) -> Any:
        with self._lock:
            if self._client is None or self._pid != os.getpid():
                try:
                    self._client = self._factory(self.config)
                except Exception as exc:
                    raise self._translate("connect", exc) from exc
                self._pid = os.getpid()
            return self._client

    def _get(self, name: str) -> bytes | None:
        got = self._get_tagged(name)
        return None if got is None else got[0]

    def _get_tagged(self, name: str) -> tuple[bytes, str] | None:
        """The object's bytes and ETag, or None when there is none."""
        try:
            resp = self._s3().get_object(Bucket=self.config.bucket, Key=name)
            data: bytes = resp["Body"].read()
        except Exception as exc:
            if _code(exc) in ("NoSuchKey", "404"):
                return None
            raise self._translate(f"get {name}", exc) from exc
        return data, str(resp["ETag"])

    def _put_once(self, name: str, data: bytes) -> bool:
        if not self.writable:
            raise RemoteAccessError(f"refusing to write {name} to {self.url}: ${MODE_ENV} is "
                                    f"'read' (set it to 'readwrite' with a write credential)")
        for _ in range(_CONFLICT_RETRIES):
            try:
                self._s3().put_object(Bucket=self.config.bucket, Key=name, Body=data,
                                      IfNoneMatch="*")
                return True
            except Exception as exc:
                code = _code(exc)
                if code in ("PreconditionFailed", "412"):
                    return False
                if code != "ConditionalRequestConflict":  # 409: a racing write is in flight
                    error = self._translate(f"put {name}", exc)
                    if isinstance(error, RemoteAccessError):
                        self.writable = False  # say it once, then stop trying for this run
                    raise error from exc
        return False  # still contended after the retries: another writer holds the key

    def _translate(self, op: str, exc: Exception) -> Exception:
        from botocore.exceptions import BotoCoreError, NoCredentialsError

        where = self.config.endpoint or f"AWS S3 (or $AWS_ENDPOINT_URL; ${ENDPOINT_ENV} unset)"
        code = _code(exc)
        if code == "NoSuchBucket":
            return RemoteConfigError(f"bucket {self.config.bucket!r} does not exist at {where}: "
                                     f"create it, or fix ${REMOTE_ENV}")
        if isinstance(exc, NoCredentialsError) or code in _DENIED or code == "403":
            return RemoteAccessError(
                f"{self.url} refused {op} ({code or type(exc).__name__}): check the credential "
                f"(AWS_ACCESS_KEY_ID / AWS_PROFILE); a credential that may only read needs "
                f"${MODE_ENV}=read")
        if code is not None or isinstance(exc, BotoCoreError):
            return RemoteUnavailableError(
                f"{self.url} at {where}: {op} failed ({code or type(exc).__name__}: {exc}); "
                f"check ${ENDPOINT_ENV} and the network, or unset ${REMOTE_ENV} to run on the "
                f"local store alone")
        return exc

    def _record_prefix(self, kind: str) -> str:
        if not _NAME.match(kind):
            raise ValueError(f"record kind {kind!r} is not a plain name")
        return f"{self.config.prefix}records/{kind}/"

    def _record_key(self, kind: str, key: str) -> str:
        if not _NAME.match(key):
            raise ValueError(f"record key {key!r} is not a plain name")
        return f"{self._record_prefix(kind)}{key}.json"

    def _lease_key(self, kind: str, key: str) -> str:
        if not _NAME.match(kind) or not _NAME.match(key):
            raise ValueError(f"lease {kind!r}/{key!r} is not named by plain names")
        return f"{self.config.prefix}leases/{kind}/{key}"

    def _blob_key(self, digest: str) -> str:
        if not _DIGEST.match(digest):
            raise ValueError(f"not a blake3 hex digest: {digest!r}")
        return f"{self.config.prefix}blobs/{digest}"


def _code(exc: Exception) -> str | None:
    """The S3 error code of a botocore ClientError (None for anything else)."""
    response = getattr(exc, "response", None)
    if not isinstance(response, dict):
        return None
    code = response.get("Error", {}).get("Code")
    return str(code) if code is not None else None
