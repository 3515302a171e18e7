from layerconf import Config


def test_env_overrides_string_and_int(defaults):
    env = {"APP_NAME": "billing", "APP_WORKERS": "8", "HOME": "/root"}
    cfg = Config(defaults).load_env("APP_", env)
    assert cfg.get("name") == "billing"
    assert cfg.get("workers") == 8
    assert cfg.source_of("workers") == "env:APP_WORKERS"


def test_env_float_override(defaults):
    cfg = Config(defaults).load_env("APP_", {"APP_TIMEOUT": "0.75"})
    assert cfg.get_float("timeout") == 0.75


def test_env_prefix_must_match(defaults):
    env = {"OTHER_WORKERS": "16", "APPWORKERS": "16", "app_workers": "16"}
    cfg = Config(defaults).load_env("APP_", env)
    assert cfg.get("workers") == 2


def test_env_new_keys_when_not_only_known(defaults):
    cfg = Config(defaults).load_env("APP_", {"APP_FEATURE_FLAGS": "a,b , c"}, only_known=False)
    assert cfg.get_list("feature_flags") == ["a", "b", "c"]


def test_env_beats_file(tmp_path, defaults):
    path = tmp_path / "app.ini"
    path.write_text("[DEFAULT]\nname = from-file\n")
    cfg = Config(defaults).load_file(path).load_env("APP_", {"APP_NAME": "from-env"})
    assert cfg.get("name") == "from-env"
