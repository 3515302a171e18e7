"""Small real wheels, built in a test's folder, for pip to install (offline, no build backend)."""

from __future__ import annotations

import base64
import hashlib
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path


def build_wheel(out: Path, name: str, version: str, modules: dict[str, str],
                requires: tuple[str, ...] = (), extras: tuple[str, ...] = ()) -> Path:
    """A pure-Python wheel of `modules` (relative path -> source) with the given metadata."""
    info = f"{name}-{version}.dist-info"
    metadata = "".join([f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
                        *(f"Provides-Extra: {e}\n" for e in extras),
                        *(f"Requires-Dist: {r}\n" for r in requires)])
    files = {**modules, f"{info}/METADATA": metadata,
             f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\n"
                              "Tag: py3-none-any\n"}
    record = [f"{p},sha256={_digest(t)},{len(t.encode())}" for p, t in files.items()]
    files[f"{info}/RECORD"] = "\n".join([*record, f"{info}/RECORD,,"]) + "\n"
    out.mkdir(parents=True, exist_ok=True)
    wheel = out / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        for path, text in files.items():
            z.writestr(path, text)
    return wheel


def pip_install(target: Path, *wheels: Path, fresh: bool = False) -> None:
    """`pip install --target` from local wheels only; `fresh` empties the folder first (pip
    leaves an upgraded distribution's old dist-info there)."""
    if fresh:
        shutil.rmtree(target)
        target.mkdir()
    done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-index",
                           "--no-deps", "--disable-pip-version-check", "--upgrade", "--target",
                           str(target), *map(str, wheels)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]


def _digest(text: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
