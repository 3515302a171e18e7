"""A git index without the writer's stat data still reads as a clean tree."""

from __future__ import annotations

import os
import struct
import subprocess
from pathlib import Path

from evaluator.images._gitindex import without_stat


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True,
                          text=True).stdout


def test_zeroed_index_is_clean_and_machine_independent(tmp_path: Path) -> None:
    for rel in ("a.py", "dir/with a long name/b.txt", "c"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(rel)
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    index = tmp_path / ".git/index"
    zeroed = without_stat(index.read_bytes())
    assert zeroed != index.read_bytes() and len(zeroed) == len(index.read_bytes())
    index.write_bytes(zeroed)
    assert without_stat(zeroed) == zeroed
    first = zeroed[12:12 + 62]
    assert struct.unpack(">10I", first[:40])[:6] == (0, 0, 0, 0, 0, 0)
    assert _git(tmp_path, "ls-files") == "a.py\nc\ndir/with a long name/b.txt\n"
    assert _git(tmp_path, "status", "--porcelain") == ""  # compared by content, then refreshed
