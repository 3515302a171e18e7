"""The base lock: pins round-trip, hand edits are refused, and a build fetches only what the pins
name, from a real HTTP mirror on loopback, stopping with every package it cannot get named."""

from __future__ import annotations

import hashlib
import http.server
import shutil
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import pytest

from evaluator.errors import InfraError, StaleLockError
from evaluator.images import BasePins, DebPin, base_lock_path, read_pins, repin
from evaluator.images._debs import _WORKERS, fetch, local_repo
from evaluator.images._pins import PACKAGES, write_pins

_DEBS = {"pkg-a": b"package a bytes", "pkg-b": b"package b bytes"}


def _pin(name: str, data: bytes) -> DebPin:
    return DebPin(name, "1.0", "all", f"pool/main/p/{name}/{name}_1.0_all.deb", len(data),
                  hashlib.sha256(data).hexdigest(), {"Priority": "required"})


PINS = BasePins("bookworm", "minbase", ("pkg-a",), "amd64", "1.0",
                tuple(_pin(n, d) for n, d in _DEBS.items()))


@dataclass(frozen=True)
class Mirror:
    root: Path
    url: str


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


class _Flaky(_Quiet):
    """Each path's first request gets a 503, its second a dropped connection; then the file."""

    seen: dict[str, int] = {}

    def do_GET(self) -> None:
        n = self.seen[self.path] = self.seen.get(self.path, 0) + 1
        if n == 1:
            self.send_error(503)
        elif n == 2:
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
        else:
            super().do_GET()


@pytest.fixture
def mirror(tmp_path: Path) -> Iterator[Mirror]:
    """A directory served over HTTP on loopback; the test decides which files it holds."""
    root = tmp_path / "mirror"
    root.mkdir()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             partial(_Quiet, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield Mirror(root, f"http://127.0.0.1:{server.server_address[1]}")
    server.shutdown()
    server.server_close()


def _serve(mirror: Mirror, name: str, data: bytes) -> None:
    path = mirror.root / _pin(name, data).filename
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def test_pins_round_trip_and_refuse_hand_edits(tmp_path: Path) -> None:
    path = tmp_path / "base.lock"
    write_pins(path, PINS)
    assert read_pins(path) == PINS
    path.write_text(path.read_text().replace('"version": "1.0"', '"version": "1.1"', 1))
    with pytest.raises(StaleLockError, match="edited by hand"):
        read_pins(path)
    assert read_pins(tmp_path / "absent.lock") is None


def test_committed_base_lock_pins_every_included_package() -> None:
    pins = read_pins(base_lock_path())
    assert pins is not None
    names = {p.package for p in pins.packages}
    assert set(PACKAGES) <= names and all(len(p.sha256) == 64 for p in pins.packages)


def test_fetch_downloads_checks_and_caches(mirror: Mirror, tmp_path: Path) -> None:
    for name, data in _DEBS.items():
        _serve(mirror, name, data)
    files = fetch(PINS, mirror.url, tmp_path / "cache")
    assert {n: p.read_bytes() for n, p in files.items()} == _DEBS
    for path in list(mirror.root.rglob("*.deb")):
        path.unlink()
    assert fetch(PINS, mirror.url, tmp_path / "cache") == files


def test_missing_or_changed_packages_are_named_and_stop_the_build(
    mirror: Mirror, tmp_path: Path
) -> None:
    _serve(mirror, "pkg-a", b"package a, rebuilt with other bytes")
    with pytest.raises(StaleLockError) as err:
        fetch(PINS, mirror.url, tmp_path / "cache")
    text = str(err.value)
    assert "pkg-b=1.0 (pool/main/p/pkg-b/pkg-b_1.0_all.deb): the mirror no longer serves" in text
    assert "pkg-a=1.0" in text and "other bytes" in text
    assert "--repin" in text
    assert not list((tmp_path / "cache").glob("*.deb"))  # nothing unchecked is kept


def test_fetch_rides_out_a_mirror_that_fails_for_a_while(mirror: Mirror, tmp_path: Path) -> None:
    for name, data in _DEBS.items():
        _serve(mirror, name, data)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             partial(_Flaky, directory=str(mirror.root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        files = fetch(PINS, f"http://127.0.0.1:{server.server_address[1]}", tmp_path / "cache",
                      retry_delays_s=(0.01, 0.01))
    finally:
        server.shutdown()
        server.server_close()
    assert {n: p.read_bytes() for n, p in files.items()} == _DEBS
    assert sorted(_Flaky.seen.values()) == [3, 3]


def test_a_dead_mirror_is_one_error_after_one_package_s_tries(tmp_path: Path) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    accepted = []

    def drop_every_connection() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            accepted.append(conn)
            conn.close()

    threading.Thread(target=drop_every_connection, daemon=True).start()
    pins = BasePins("bookworm", "minbase", (), "amd64", "1.0",
                    tuple(_pin(f"pkg-{i}", b"x%d" % i) for i in range(40)))
    with pytest.raises(InfraError, match=r"3 tries over .*check the network or set"):
        fetch(pins, f"http://127.0.0.1:{listener.getsockname()[1]}", tmp_path / "cache",
              retry_delays_s=(0.05, 0.05))
    listener.close()
    assert len(accepted) <= _WORKERS * 3 < len(pins.packages) * 3  # the others stopped


def test_local_repo_holds_exactly_the_pins(mirror: Mirror, tmp_path: Path) -> None:
    for name, data in _DEBS.items():
        _serve(mirror, name, data)
    files = fetch(PINS, mirror.url, tmp_path / "cache")
    url = local_repo(PINS, files, tmp_path / "repo")
    index = (tmp_path / "repo/dists/bookworm/main/binary-amd64/Packages").read_text()
    assert url == f"file://{tmp_path / 'repo'}"
    assert index.count("Package: ") == 2 and index.endswith("\n\n")
    assert (tmp_path / "repo" / PINS.packages[1].filename).read_bytes() == _DEBS["pkg-b"]


def test_repin_resolves_todays_packages_from_the_real_mirror(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]
                                                             ) -> None:
    # Debian's mirror is reachable wherever the harness installs its packages (CI included).
    assert shutil.which("debootstrap"), "needs debootstrap (.ci/docker-up installs it)"
    path = tmp_path / "base.lock"
    shutil.copyfile(base_lock_path(), path)
    pins = repin(path)
    assert read_pins(path) == pins
    assert set(PACKAGES) <= {p.package for p in pins.packages}
    assert all(p.fields.get("Priority") for p in pins.packages)
    assert "wrote" in capsys.readouterr().err
