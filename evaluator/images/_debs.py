"""Pinned packages on disk: a cache by sha256, downloads checked against the pins, a local repo.

debootstrap is pointed at a repository made here from the pinned files alone, so whatever the
mirror serves today cannot slip in: the only packages it can see are the pinned ones.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from evaluator.errors import InfraError, StaleLockError
from evaluator.images._pins import REPIN_HINT, BasePins, DebPin
from evaluator.settings import Settings, settings

DEB_CACHE_ENV = Settings.deb_cache.env
_WORKERS = 8
_TIMEOUT_S = 60
# A mirror or its DNS that stops answering for half a minute (seen in CI: "Temporary failure in
# name resolution" on one package of 143) is ridden out; a network that is down stays an error.
_RETRY_DELAYS_S = (1.0, 2.0, 4.0, 8.0, 16.0)
_RETRY_HTTP = frozenset({408, 429, 500, 502, 503, 504})


def deb_cache() -> Path:
    """`settings.deb_cache`: `$EVAL_DEB_CACHE`, else `$XDG_CACHE_HOME/evaluator/debs`
    (~/.cache by default)."""
    return settings.deb_cache


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def keep(cache: Path, path: Path) -> None:
    """Add a downloaded package to the cache under its sha256 (e.g. after a pin)."""
    cache.mkdir(parents=True, exist_ok=True)
    digest = _sha256(path)
    dest = cache / f"{digest}.deb"
    if not dest.exists():
        tmp = cache / f".{digest}.{os.getpid()}"
        shutil.copyfile(path, tmp)
        os.replace(tmp, dest)


def fetch(pins: BasePins, mirror: str, cache: Path,
          retry_delays_s: tuple[float, ...] = _RETRY_DELAYS_S) -> dict[str, Path]:
    """Every pinned package as a checked file in `cache`, downloading what is not there.

    A download that fails for the network's sake (no answer, a reset, HTTP 5xx, 408 or 429) is
    tried again after each of `retry_delays_s`; once one package has run out of tries, the
    others stop at their next try, so a machine with no network hears so in half a minute.

    Every package the mirror no longer serves, or serves with other bytes, is named in one
    StaleLockError; nothing is installed from a partial set.
    """
    cache.mkdir(parents=True, exist_ok=True)
    net = _Network(tuple(retry_delays_s))
    with ThreadPoolExecutor(_WORKERS) as pool:
        results = list(pool.map(lambda p: _one(p, mirror, cache, net), pins.packages))
    problems = [problem for _, problem in results if problem]
    if problems:
        raise StaleLockError(
            f"the base image's pinned packages cannot all be had from {mirror}; the build stops "
            f"here ({REPIN_HINT}; the base image and every task image built on it change)",
            problems)
    return {p.package: path for p, (path, _) in zip(pins.packages, results, strict=True)}


class _Network:
    """What a fetch's downloads share: the delays between tries, and the error that ended one
    package's tries, after which no download tries again."""

    def __init__(self, delays_s: tuple[float, ...]) -> None:
        self.delays_s = delays_s
        self._down: BaseException | None = None
        self._lock = threading.Lock()

    def down(self) -> BaseException | None:
        with self._lock:
            return self._down

    def give_up(self, e: BaseException) -> None:
        with self._lock:
            self._down = self._down or e


def _one(pin: DebPin, mirror: str, cache: Path, net: _Network) -> tuple[Path, str]:
    dest = cache / f"{pin.sha256}.deb"
    if dest.exists() and _sha256(dest) == pin.sha256:
        return dest, ""
    what = f"{pin.package}={pin.version} ({pin.filename})"
    url = f"{mirror.rstrip('/')}/{pin.filename}"
    tmp = cache / f".{pin.sha256}.{os.getpid()}.part"
    tries = len(net.delays_s) + 1
    for attempt in range(tries):
        if (down := net.down()) is not None:
            raise InfraError(f"cannot download {what} from {url}: stopped, as another "
                             f"package failed {tries} tries over {sum(net.delays_s):.0f} s "
                             f"({down}); check the network or set $EVAL_DEBIAN_MIRROR") from down
        try:
            with urllib.request.urlopen(url, timeout=_TIMEOUT_S) as resp, \
                    tmp.open("wb") as out:
                shutil.copyfileobj(resp, out)
            break
        except (urllib.error.URLError, OSError) as e:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
            code = e.code if isinstance(e, urllib.error.HTTPError) else None
            if code in (404, 410):
                return dest, f"{what}: the mirror no longer serves it (HTTP {code} for {url})"
            if code is not None and code not in _RETRY_HTTP:
                return dest, f"{what}: HTTP {code} for {url}"
            if attempt == tries - 1:
                net.give_up(e)
                raise InfraError(f"cannot download {what} from {url} in {tries} tries over "
                                 f"{sum(net.delays_s):.0f} s: {e}; check the network or set "
                                 f"$EVAL_DEBIAN_MIRROR") from e
        time.sleep(net.delays_s[attempt])
    got = _sha256(tmp)
    if got != pin.sha256:
        tmp.unlink()
        return dest, f"{what}: the mirror serves other bytes (sha256 {got}, pinned {pin.sha256})"
    os.replace(tmp, dest)
    return dest, ""


def local_repo(pins: BasePins, files: dict[str, Path], root: Path) -> str:
    """A minimal apt repository under `root` holding exactly the pinned packages; its file: URL."""
    arch = pins.architecture
    for pin in pins.packages:
        dest = root / pin.filename
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.link(files[pin.package], dest) if _same_fs(files[pin.package], dest.parent) \
            else shutil.copyfile(files[pin.package], dest)
    # Every stanza ends in a blank line: debootstrap drops a last one that does not.
    index = "".join(p.stanza() + "\n" for p in sorted(pins.packages, key=lambda p: p.package))
    rel = f"main/binary-{arch}/Packages"
    dists = root / "dists" / pins.suite
    (dists / rel).parent.mkdir(parents=True, exist_ok=True)
    (dists / rel).write_text(index)
    digest = hashlib.sha256(index.encode()).hexdigest()
    (dists / "Release").write_text(
        f"Suite: {pins.suite}\nCodename: {pins.suite}\nArchitectures: {arch}\n"
        f"Components: main\nSHA256:\n {digest} {len(index.encode())} {rel}\n")
    return f"file://{root}"


def _same_fs(a: Path, b: Path) -> bool:
    return a.stat().st_dev == b.stat().st_dev
