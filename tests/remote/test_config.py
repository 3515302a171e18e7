from pathlib import Path

import pytest

from evaluator.remote import RemoteConfig, RemoteConfigError, remote_from_env
from evaluator.store import Store


def test_url_gives_bucket_and_prefix() -> None:
    c = RemoteConfig.parse("s3://team-cache/evals/v1/", "read", "http://127.0.0.1:9000")
    assert (c.bucket, c.prefix, c.writable, c.url) == ("team-cache", "evals/v1/", False,
                                                        "s3://team-cache/evals/v1")
    assert RemoteConfig.parse("s3://team-cache").prefix == ""


@pytest.mark.parametrize("url, mode, match", [
    ("team-cache/x", "read", "s3://bucket"),
    ("s3://Team_Cache", "read", "not a valid S3 bucket name"),
    ("s3://team-cache/a/../b", "read", "'..'"),
    ("s3://team-cache", "write", "EVAL_REMOTE_MODE"),
])
def test_bad_settings_name_the_variable(url: str, mode: str, match: str) -> None:
    with pytest.raises(RemoteConfigError, match=match):
        RemoteConfig.parse(url, mode)


def test_environment_names_the_remote_and_its_mode() -> None:
    env = {"EVAL_REMOTE": "s3://team-cache/p", "EVAL_REMOTE_MODE": "read"}
    config = RemoteConfig.from_env(env)
    assert config is not None and config.mode == "read" and config.endpoint is None
    assert RemoteConfig.from_env({}) is None and RemoteConfig.from_env({"EVAL_REMOTE": " "}) is None


def test_store_reads_its_remote_from_the_environment(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVAL_REMOTE", "s3://team-cache/p")
    monkeypatch.setenv("EVAL_REMOTE_MODE", "read")
    store = Store(tmp_path)
    assert store.remote is not None and store.remote.backend.url == "s3://team-cache/p"
    assert not store.remote.backend.writable
    assert Store(tmp_path, None).remote is None  # None: the local store alone, whatever the env
    monkeypatch.delenv("EVAL_REMOTE")
    assert Store(tmp_path).remote is None


def test_one_remote_per_configuration_and_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVAL_REMOTE", "s3://team-cache/p")
    first = remote_from_env()
    assert first is not None and remote_from_env() is first
    monkeypatch.setenv("EVAL_REMOTE_MODE", "read")
    assert remote_from_env() is not first
