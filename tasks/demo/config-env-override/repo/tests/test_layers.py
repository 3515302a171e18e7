import json

import pytest

from layerconf import Config, ConfigError, MissingKeyError


def test_defaults_and_dotted_access(defaults):
    cfg = Config(defaults)
    assert cfg.get("name") == "inventory"
    assert cfg.get("db.port") == 5432
    assert cfg.get("DB.Pool.Size") == 5
    assert "db.host" in cfg
    assert "db.user" not in cfg
    assert cfg.source_of("db.host") == "defaults"


def test_missing_key(defaults):
    cfg = Config(defaults)
    with pytest.raises(MissingKeyError):
        cfg.get("db.user")
    assert cfg.get("db.user", "postgres") == "postgres"


def test_json_file_deep_merges(tmp_path, defaults):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"debug": True, "db": {"port": 6432}}))
    cfg = Config(defaults).load_file(path)
    assert cfg.get("debug") is True
    assert cfg.get("db.port") == 6432
    assert cfg.get("db.host") == "localhost"
    assert cfg.source_of("db.port") == f"file:{path}"


def test_ini_sections_become_nested_keys(tmp_path, defaults):
    path = tmp_path / "config.ini"
    path.write_text("[DEFAULT]\ndebug = no\nworkers = 4\n\n[db]\nhost = db.internal\n\n[db.pool]\nsize = 20\n")
    cfg = Config(defaults).load_file(path)
    assert cfg.get_bool("debug") is False
    assert cfg.get_int("workers") == 4
    assert cfg.get("db.host") == "db.internal"
    assert cfg.get_int("db.pool.size") == 20
    assert cfg.get_int("db.port") == 5432


def test_missing_optional_file_is_skipped(tmp_path, defaults):
    cfg = Config(defaults).load_file(tmp_path / "nope.ini", required=False)
    assert cfg.as_dict() == Config(defaults).as_dict()
    with pytest.raises(ConfigError):
        Config(defaults).load_file(tmp_path / "nope.ini")


def test_section_view(defaults):
    db = Config(defaults).section("db")
    assert db.get_int("port") == 5432
    assert db.get_int("pool.size") == 5
    assert db.source_of("host") == "defaults"
