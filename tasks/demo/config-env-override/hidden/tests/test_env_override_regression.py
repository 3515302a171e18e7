from layerconf import Config

DEFAULTS = {
    "debug": True,
    "metrics": {"enabled": True, "port": 9100},
    "db": {"host": "localhost", "port": 5432, "pool": {"size": 5}},
}


def test_env_false_strings_disable_boolean_defaults():
    for raw in ["0", "false", "False", "no", "off"]:
        cfg = Config(DEFAULTS).load_env("APP_", {"APP_DEBUG": raw})
        assert cfg.get_bool("debug") is False, raw
        assert cfg.get("debug") is False, raw


def test_env_double_underscore_overrides_nested_keys():
    env = {"APP_DB__HOST": "db.internal", "APP_DB__PORT": "6543", "APP_DB__POOL__SIZE": "20"}
    cfg = Config(DEFAULTS).load_env("APP_", env)
    assert cfg.get("db.host") == "db.internal"
    assert cfg.get("db.port") == 6543
    assert cfg.get_int("db.pool.size") == 20
    assert cfg.source_of("db.port") == "env:APP_DB__PORT"


def test_env_nested_boolean_override_after_json_file(tmp_path):
    path = tmp_path / "config.json"
    path.write_text('{"metrics": {"enabled": true, "port": 9200}}')
    env = {"APP_METRICS__ENABLED": "false", "APP_METRICS__PORT": "9300"}
    cfg = Config(DEFAULTS).load_file(path).load_env("APP_", env)
    assert cfg.get_bool("metrics.enabled") is False
    assert cfg.get_int("metrics.port") == 9300


def test_env_true_strings_enable_boolean_defaults():
    cfg = Config({"debug": False}).load_env("APP_", {"APP_DEBUG": "true"})
    assert cfg.get_bool("debug") is True


def test_unknown_env_variables_are_ignored():
    env = {"APP_NOPE": "1", "APP_DB__USER": "admin", "APP_": "x"}
    cfg = Config(DEFAULTS).load_env("APP_", env)
    assert "nope" not in cfg
    assert "db.user" not in cfg
    assert cfg.as_dict() == Config(DEFAULTS).as_dict()
