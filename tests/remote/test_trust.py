"""Who may write: the server holds the line (IAM on moto), the client stays out of its way."""

from __future__ import annotations

from pathlib import Path

from evaluator.remote import RemoteConfig, S3Remote
from evaluator.store import Store
from tests.remote.support import Requests, TeamBucket, s3_client

KEY = "ab" * 32


def as_user(team: TeamBucket, credential: tuple[str, str], mode: str = "readwrite",
            requests: Requests | None = None) -> S3Remote:
    config = RemoteConfig.parse(f"s3://{team.bucket}/cache", mode, team.endpoint)
    hook = requests.hook if requests is not None else None
    return S3Remote(config, client_factory=lambda c: s3_client(team.endpoint, hook, credential))


def test_only_the_write_credential_lands_records(tmp_path: Path, team_bucket: TeamBucket) -> None:
    lines: list[str] = []
    writer = Store(tmp_path / "ci", as_user(team_bucket, team_bucket.writer), notify=lines.append)
    laptop = Store(tmp_path / "laptop", as_user(team_bucket, team_bucket.reader),
                   notify=lines.append)
    assert writer.put("grade", KEY, {"status": "resolved"})
    assert laptop.put("grade", "cd" * 32, {"status": "resolved"})  # lands on the laptop only
    assert len(lines) == 1 and "refused put" in lines[0] and "EVAL_REMOTE_MODE=read" in lines[0]
    assert laptop.has("grade", KEY) and not writer.has("grade", "cd" * 32)


def test_a_refused_credential_stops_writing_for_the_run(tmp_path: Path,
                                                       team_bucket: TeamBucket) -> None:
    requests = Requests()
    laptop = Store(tmp_path, as_user(team_bucket, team_bucket.reader, requests=requests),
                   notify=lambda line: None)
    for i in range(5):
        laptop.put("grade", f"{i:064x}", {"status": "resolved"})
    assert requests.count("put") == 1 and laptop.remote is not None
    assert not laptop.remote.backend.writable and len(laptop.remote.problems) == 1
