"""Two CI jobs, each with a local store of its own, on one team remote (moto's S3 server on
loopback): `doit eval` pays for each attempt once between them."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from evaluator.store import Store
from tests.pipeline.support import Project, new_project
from tests.remote.support import s3_client, start_moto

pytestmark = pytest.mark.docker

BUCKET = "team-evals"


@pytest.fixture
def team_remote(tmp_path: Path) -> Iterator[dict[str, str]]:
    """The environment that points a job at the team's remote: a bucket on a moto server."""
    proc, endpoint = start_moto(tmp_path / "moto.log")
    s3_client(endpoint).create_bucket(Bucket=BUCKET)
    yield {"EVAL_REMOTE": f"s3://{BUCKET}/ci", "EVAL_REMOTE_ENDPOINT": endpoint,
           "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
           "AWS_DEFAULT_REGION": "us-east-1"}
    proc.terminate()
    proc.wait(timeout=10)


def spent(job: Project) -> float:
    """What a job paid the model, as its budget files account it."""
    return sum(json.loads(f.read_text())["spent"]
               for f in (job.root / "store" / "budget").iterdir())


def test_two_jobs_on_one_remote_pay_for_each_attempt_once(gated: Project, tmp_path: Path,
                                                          team_remote: dict[str, str]) -> None:
    gated.eval_config(samples=2)
    shutil.copytree(gated.root, tmp_path / "job-2", symlinks=True)
    jobs = [gated, new_project(tmp_path / "job-2", files=False)]
    for job in jobs:
        job.env.update(team_remote)
    runs = [job.popen("-n", "2", "-P", "process", "eval:mini") for job in jobs]
    outputs = [p.communicate(timeout=600)[0] for p in runs]
    log = "\n".join(outputs)
    assert all(p.returncode == 0 for p in runs), log
    listed = s3_client(team_remote["EVAL_REMOTE_ENDPOINT"]).list_objects_v2(
        Bucket=BUCKET, Prefix="ci/records/attempt/")
    assert len(listed.get("Contents", [])) == 8, log  # 2 agents x 2 tasks x 2 samples, one each
    stores = [Store(job.root / "store", None) for job in jobs]
    records = [{r["key"]: r for r in s.iter_records("attempt")} for s in stores]
    assert records[0] == records[1] and len(records[0]) == 8  # both keep the team's records
    paid = sum(r["cost"]["total_usd"] for r in records[0].values())
    assert paid > 0 and spent(jobs[0]) + spent(jobs[1]) == pytest.approx(paid), log
    # Started together, the two meet on the first attempts at least: one waits on the other's
    # lease in the bucket (in the runs measured, one job waited on every attempt and most grades).
    assert f"(through s3://{BUCKET}/ci); waiting" in log, log
    s3 = s3_client(team_remote["EVAL_REMOTE_ENDPOINT"])
    assert "Contents" not in s3.list_objects_v2(Bucket=BUCKET, Prefix="ci/leases/")  # all released
