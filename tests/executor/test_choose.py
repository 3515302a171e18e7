"""`$EVAL_EXECUTOR` and its knobs: the default, the Ray forms, clear errors for the rest."""

import pytest

from evaluator.errors import BadInputError
from evaluator.executor import executor_from_env


def test_unset_or_local_is_the_local_executor(monkeypatch: pytest.MonkeyPatch) -> None:
    for value in ("", "local"):
        monkeypatch.setenv("EVAL_EXECUTOR", value)
        assert executor_from_env(lambda size, idle: (size, idle)) == (0, 30.0)  # no warm pool
    monkeypatch.setenv("EVAL_WARM_POOL", "3")
    monkeypatch.setenv("EVAL_WARM_MAX_IDLE_S", "7.5")
    assert executor_from_env(lambda size, idle: (size, idle)) == (3, 7.5)


def test_ray_forms_name_the_address(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVAL_EXECUTOR", "ray://10.0.0.1:10001")
    assert executor_from_env(lambda size, idle: None).address == "ray://10.0.0.1:10001"
    monkeypatch.setenv("EVAL_EXECUTOR", "ray:10.0.0.1:6379")
    ex = executor_from_env(lambda size, idle: None)
    assert ex.address == "10.0.0.1:6379" and ex.tries == 3 and ex._pool_size == 2


@pytest.mark.parametrize("var,value", [("EVAL_EXECUTOR", "slurm://x"),
                                       ("EVAL_WARM_POOL", "two"),
                                       ("EVAL_RAY_TRIES", "0"), ("EVAL_RAY_PULLS", "1.5")])
def test_bad_values_are_named(monkeypatch: pytest.MonkeyPatch, var: str, value: str) -> None:
    monkeypatch.setenv("EVAL_EXECUTOR", "ray://h:1")
    monkeypatch.setenv(var, value)
    with pytest.raises(BadInputError, match=var.removeprefix("EVAL_")):
        executor_from_env(lambda size, idle: None)
