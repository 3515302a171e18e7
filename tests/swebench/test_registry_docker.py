"""A row whose image lives in a registry (Debian's docker-registry on loopback): the importer
pulls it to read the base files, the lock pins it by the registry's digest, and the gold gate
grades in it as SWE-bench builds its images (root, a root-owned repository)."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest
import yaml

from tests.swebench.support import SweProject

pytestmark = pytest.mark.docker


def test_a_registry_image_is_pulled_pinned_by_digest_and_graded(
        swe_project: SweProject, docker_client: Any, registry: str) -> None:
    iid = "acme__calc-pytest"
    context = swe_project.root / "taskrepo" / "tasks" / iid
    ref = f"{registry}/swe/{iid}:1"
    subprocess.run(["docker", "build", "-q", "--network", "none", "-t", ref, str(context)],
                   check=True, capture_output=True)
    docker_client.images.push(f"{registry}/swe/{iid}", "1")
    docker_client.images.remove(ref)  # only the registry has it under that name now
    row = {**swe_project.rows[iid], "image": ref}
    (swe_project.root / "rows.json").write_text(json.dumps([row]))
    out = swe_project.evaluator("import", "swebench", "rows.json", "--set", "reg")
    assert out.returncode == 0, out.stdout + out.stderr
    assert swe_project.doit("lock:reg").returncode == 0
    pin = yaml.safe_load((swe_project.root / "lock" / "reg.lock").read_text())
    assert f"{registry}/swe/{iid}@sha256:" in json.dumps(pin)
    gold = swe_project.doit("gold:reg")
    docker_client.images.remove(ref)  # the tag the lock pulled (the registry's port is new each run)
    assert f"{iid}                  valid" in gold.stdout, gold.stdout + gold.stderr
