"""Which Debian mirror the base image is bootstrapped from: apt's own configuration."""

from __future__ import annotations

from pathlib import Path

from evaluator.images import debian_mirror

_DEB822 = """\
Types: deb
URIs: http://mirror.example/debian-security
Suites: bookworm-security
Components: main

Types: deb
# a snapshot, kept as a comment
URIs: http://mirror.example/debian/
Suites: bookworm bookworm-updates
Components: main
"""


def test_mirror_from_deb822_sources(tmp_path: Path) -> None:
    (tmp_path / "debian.sources").write_text(_DEB822)
    assert debian_mirror(tmp_path, tmp_path / "none") == "http://mirror.example/debian"


def test_mirror_from_sources_list_then_default(tmp_path: Path) -> None:
    listing = tmp_path / "sources.list"
    listing.write_text("# x\ndeb [arch=amd64] http://old.example/debian bookworm main\n")
    assert debian_mirror(tmp_path, listing) == "http://old.example/debian"
    listing.write_text("deb http://old.example/debian bullseye main\n")
    assert debian_mirror(tmp_path, listing) == "http://deb.debian.org/debian"
