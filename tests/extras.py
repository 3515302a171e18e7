"""Fresh venvs of one extra each: requirements.lock plus requirements-<extra>.lock, nothing else.

They install from the wheels `make venv` downloaded for the dev install ($VENV/wheels, the same
pins and hashes), with `--no-index --require-hashes`: a lock that misses a distribution or a hash
fails the install. The venv of requirements.lock alone is made once per machine and lock (under a
file lock, as xdist workers ask at once) and copied for each extra.
"""

from __future__ import annotations

import fcntl
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from evaluator.hashing import hash_bytes
from tests.helpers import unavailable

REPO = Path(__file__).resolve().parents[1]
WHEELS = Path(sys.prefix) / "wheels"


def _pip(python: Path, *locks: str) -> None:
    # --no-compile: byte-compiling every installed module made the ray extra's install 74 s
    # instead of 26 s; Python compiles what a test imports as it imports it.
    argv = [str(python), "-m", "pip", "install", "-q", "--no-compile", "--disable-pip-version-check",
            "--no-index", "--find-links", str(WHEELS), "--require-hashes"]
    for lock in locks:
        argv += ["-r", str(REPO / lock)]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, f"pip install -r {' -r '.join(locks)}:\n{out.stderr[-3000:]}"


def _on_path(python: Path) -> None:
    """The checkout on the venv's path, as `make venv` puts it (it is not installed)."""
    site = subprocess.run([str(python), "-c", "import site; print(site.getsitepackages()[0])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    (Path(site) / "evaluator-local.pth").write_text(str(REPO) + "\n")


def _core() -> Path:
    """The venv of requirements.lock alone (made once per machine, checkout and lock: its .pth
    names the checkout, and another clone's code must not stand in for this one's)."""
    key = hash_bytes((REPO / "requirements.lock").read_bytes() + bytes(REPO))[:16]
    root = Path(tempfile.gettempdir()) / "evaluator-extra-venvs"
    root.mkdir(exist_ok=True)
    core = root / f"core-{key}"
    with (root / f"core-{key}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (core / ".done").exists():
            shutil.rmtree(core, ignore_errors=True)
            subprocess.run([sys.executable, "-m", "venv", str(core)], check=True)
            _pip(core / "bin" / "python", "requirements.lock")
            _on_path(core / "bin" / "python")
            (core / ".done").touch()
    return core


def core_python() -> Path:
    """The interpreter of the venv of requirements.lock alone: what `make demo` installs."""
    if not WHEELS.is_dir():
        unavailable(f"{WHEELS} is missing: `make venv` downloads the dev lock's wheels there")
    return _core() / "bin" / "python"


def extra_python(extra: str, into: Path) -> Path:
    """The interpreter of a fresh venv under `into` with requirements.lock and the extra's lock."""
    if not WHEELS.is_dir():
        unavailable(f"{WHEELS} is missing: `make venv` downloads the dev lock's wheels there")
    venv = into / f"venv-{extra}"
    shutil.copytree(_core(), venv, symlinks=True)
    (venv / ".done").unlink()
    python = venv / "bin" / "python"
    _pip(python, "requirements.lock", f"requirements-{extra}.lock")
    return python
