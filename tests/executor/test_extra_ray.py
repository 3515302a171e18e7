"""The ray extra alone (a fresh venv of requirements.lock and requirements-ray.lock) drives the
test cluster as EVAL_EXECUTOR=ray://HOST:PORT."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.executor.cluster import Cluster
from tests.extras import extra_python


def test_the_ray_extra_alone_reaches_the_nodes_through_ray_client(cluster: Cluster,
                                                                   tmp_path: Path) -> None:
    python = extra_python("ray", tmp_path)
    code = ("from evaluator.executor import executor_from_env as f; "
            "print(sorted(d['capacity'] for d in f(lambda *a: None).describe()))")
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True,
                         env={**cluster.env(), "EVAL_EXECUTOR": cluster.address}, timeout=300)
    assert out.returncode == 0 and out.stdout.split("\n")[-2] == "[1, 1]", out.stderr[-3000:]
