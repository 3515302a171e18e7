"""The base image's lock: every Debian package by name, version and sha256, in `lock/base.lock`.

Pinning asks debootstrap which packages a minimal bookworm with our extra packages needs (the
mirror's signed Release checked against Debian's keyring, as debootstrap always does) and keeps,
per package, the index fields debootstrap resolves with. A build then installs exactly those
files from any mirror that still serves them, each checked against its pinned hash, so two
machines that read the same lock install the same bytes. Only an explicit re-pin changes it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.errors import BadInputError, InfraError, StaleLockError
from evaluator.hashing import hash_json
from evaluator.settings import Settings, settings

BASE_LOCK_ENV = Settings.base_lock.env
PINS_FORMAT = 1
SUITE = "bookworm"
VARIANT = "minbase"
PACKAGES = ("python3", "python3-pytest", "git", "patch", "tzdata", "ca-certificates")
REPIN_HINT = "re-pin with `doit lock:<set> --repin` (or `python -m evaluator.images pin`)"
# The index fields debootstrap reads to choose and order packages; the rest is description.
_FIELDS = ("Priority", "Essential", "Multi-Arch", "Provides", "Pre-Depends", "Depends")


def base_lock_path() -> Path:
    """`$EVAL_BASE_LOCK`, else `lock/base.lock` of this checkout (one base for every set)."""
    return settings.base_lock


@dataclass(frozen=True)
class DebPin:
    """One package as the lock pins it."""

    package: str
    version: str
    architecture: str
    filename: str  # path under the mirror's root, e.g. pool/main/z/zlib/zlib1g_..._amd64.deb
    size: int
    sha256: str
    fields: dict[str, str]  # the index fields debootstrap resolves with (_FIELDS)

    def stanza(self) -> str:
        lines = [f"Package: {self.package}", f"Version: {self.version}",
                 f"Architecture: {self.architecture}"]
        lines += [f"{k}: {self.fields[k]}" for k in _FIELDS if k in self.fields]
        lines += [f"Filename: {self.filename}", f"Size: {self.size}", f"SHA256: {self.sha256}"]
        return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class BasePins:
    """What the base image is made of; `digest` names it (a label on the image)."""

    suite: str
    variant: str
    include: tuple[str, ...]
    architecture: str
    debootstrap: str  # the version that pinned it; another one may lay files out differently
    packages: tuple[DebPin, ...]

    def body(self) -> dict[str, Any]:
        return {"format": PINS_FORMAT, "suite": self.suite, "variant": self.variant,
                "include": list(self.include), "architecture": self.architecture,
                "debootstrap": self.debootstrap,
                "packages": [p.__dict__ for p in sorted(self.packages, key=lambda p: p.package)]}

    @property
    def digest(self) -> str:
        return hash_json(self.body())[:32]

    def to_json(self) -> bytes:
        return (json.dumps({**self.body(), "digest": self.digest}, indent=1, sort_keys=True)
                + "\n").encode()


def read_pins(path: Path) -> BasePins | None:
    """The pins in `path`, None when it does not exist; a damaged or hand-edited file is refused."""
    try:
        raw = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BadInputError(f"{path} is not valid JSON ({exc}); {REPIN_HINT}") from None
    try:
        if raw["format"] != PINS_FORMAT:
            raise BadInputError(f"{path} has format {raw['format']}, expected {PINS_FORMAT}; "
                                f"{REPIN_HINT}")
        pins = BasePins(raw["suite"], raw["variant"], tuple(raw["include"]), raw["architecture"],
                        raw["debootstrap"], tuple(DebPin(**p) for p in raw["packages"]))
    except (KeyError, TypeError) as exc:
        raise BadInputError(f"{path} is missing or has a malformed field ({exc}); "
                            f"{REPIN_HINT}") from None
    if raw.get("digest") != pins.digest:
        raise StaleLockError(f"{path} was edited by hand (its digest does not match its pins)",
                             [REPIN_HINT])
    return pins


def write_pins(path: Path, pins: BasePins) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_bytes(pins.to_json())
    os.replace(tmp, path)


def debootstrap_version() -> str:
    out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "debootstrap"],
                         capture_output=True, text=True, check=False)
    return out.stdout.strip() or "unknown"


def host_architecture() -> str:
    out = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True,
                         check=False)
    return out.stdout.strip() or "amd64"


def resolve_pins(mirror: str, workdir: Path, include: tuple[str, ...] = PACKAGES) -> BasePins:
    """Ask debootstrap (download only) what a base needs from `mirror` today; pin each file.

    The downloaded packages stay in `workdir`/var/cache/apt/archives for the caller to keep.
    """
    if shutil.which("debootstrap") is None:
        raise BadInputError("pinning the base image needs debootstrap: run "
                            "`apt-get install debootstrap`")
    cmd = ["debootstrap", "--download-only", "--keep-debootstrap-dir", f"--variant={VARIANT}",
           "--include=" + ",".join(include), SUITE, str(workdir), mirror]
    proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace", check=False)
    if proc.returncode != 0:
        raise InfraError(f"debootstrap could not resolve the base packages from {mirror} "
                         f"(exit {proc.returncode}):\n{(proc.stdout + proc.stderr)[-3000:]}")
    chosen = {}
    for line in (workdir / "debootstrap" / "deburis").read_text().splitlines():
        name, version, _uri = line.split(" ", 2)
        chosen[name] = version
    packages = []
    for index in sorted((workdir / "var/lib/apt/lists").glob("*_Packages")):
        for stanza in _stanzas(index, set(chosen)):
            if stanza.get("Version") == chosen.get(stanza["Package"]):
                packages.append(DebPin(
                    package=stanza["Package"], version=stanza["Version"],
                    architecture=stanza["Architecture"], filename=stanza["Filename"],
                    size=int(stanza["Size"]), sha256=stanza["SHA256"],
                    fields={k: stanza[k] for k in _FIELDS if k in stanza}))
    missing = sorted(set(chosen) - {p.package for p in packages})
    if missing:
        raise InfraError(f"debootstrap chose {', '.join(missing)} but the index it used does not "
                         f"describe them; try another mirror")
    return BasePins(SUITE, VARIANT, tuple(include), host_architecture(), debootstrap_version(),
                    tuple(sorted(packages, key=lambda p: p.package)))


def _stanzas(index: Path, wanted: set[str]) -> list[dict[str, str]]:
    """The stanzas of a Packages file for `wanted` packages (the file is 50 MB; most is skipped)."""
    out = []
    with index.open(errors="replace") as f:
        text = f.read()
    for block in re.split(r"\n\n+", text):
        if not block.startswith("Package: "):
            continue
        name = block[9:block.find("\n")] if "\n" in block else block[9:]
        if name.strip() not in wanted:
            continue
        fields: dict[str, str] = {}
        key = ""
        for line in block.splitlines():
            if line[:1].isspace() and key:
                fields[key] += "\n" + line
            elif ":" in line:
                key, value = line.split(":", 1)
                fields[key] = value.strip()
        out.append(fields)
    return out
