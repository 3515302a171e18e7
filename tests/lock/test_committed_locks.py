"""Locks that stay true (issue 32): every committed lock of a task set is exactly what this
checkout writes for it, so `make demo` in a fresh clone leaves `git status` clean and its keys
are the committed ones. A change of the harness that moves a lock's bytes (how task images are
built, what the seal reads) fails here, and is committed with the lock it writes; a refactor of
the seal code moves nothing (its field is the seal contract's version, not a hash of the code).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evaluator.images import SEALER

pytestmark = pytest.mark.docker

REPO = Path(__file__).resolve().parents[2]
COMMITTED = sorted(p for p in (REPO / "lock").glob("*.lock") if p.name != "base.lock")


def test_the_lock_records_the_seal_contract_not_the_seal_code() -> None:
    for path in COMMITTED:
        lock = json.loads(path.read_text())
        sealers = {t["history"]["sealer"] for t in lock["tasks"].values() if t.get("history")}
        assert sealers <= {SEALER}, (f"{path}: its histories were read by {sealers}, the seal "
                                     f"contract is {SEALER}: `doit lock:{lock['task_set']}` and "
                                     "commit the lock")


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: p.stem)
def test_a_committed_lock_is_what_the_checkout_writes(path: Path, docker_client, base_image,
                                                      tmp_path: Path) -> None:
    """From scratch: no earlier lock to keep histories from, as on a clone whose lock was lost."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("EVAL_")}
    env.update(EVAL_LOCK_DIR=str(tmp_path / "lock"), EVAL_STORE=str(tmp_path / "store"),
               PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-m", "doit", "-f", str(REPO / "dodo.py"),
                           f"lock:{path.stem}"], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=1200)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    written = (tmp_path / "lock" / path.name).read_text()
    assert written == path.read_text(), (
        f"{path.relative_to(REPO)} differs from what this checkout writes: run "
        f"`doit lock:{path.stem}` and commit it (`git diff {path.relative_to(REPO)}` shows what "
        "moved)")
