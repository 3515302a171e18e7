"""Choosing the sandbox backend: a setting, checked, and the seam every backend fills."""

import pytest

from evaluator.errors import BadInputError
from evaluator.executor import WarmPool
from evaluator.sandbox import DockerSandboxes, Sandboxes, open_backend
from evaluator.settings import SettingError


def test_the_default_backend_is_docker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EVAL_SANDBOX_BACKEND", raising=False)
    assert isinstance(open_backend(), DockerSandboxes)


def test_an_unknown_backend_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVAL_SANDBOX_BACKEND", "lxc")
    with pytest.raises(SettingError, match="EVAL_SANDBOX_BACKEND"):
        open_backend()
    with pytest.raises(BadInputError, match="lxc"):
        open_backend("lxc")


def test_a_warm_pool_is_sandboxes_of_the_backend_it_wraps() -> None:
    inner = DockerSandboxes()
    pool: Sandboxes = WarmPool(0, sandboxes=inner)
    assert pool.sandboxes is inner  # type: ignore[attr-defined]
