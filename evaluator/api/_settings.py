"""Where the API reads and writes, who may call it, and how it runs doit."""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from evaluator.api._errors import UnsafeBindError
from evaluator.settings import PATH_SETTINGS
from evaluator.settings import Settings as Declared
from evaluator.settings import settings as in_force

_REPO = Path(__file__).resolve().parents[2]
TOKEN_ENV = Declared.api_token.env
DOIT_ENV = Declared.api_doit.env


def _default_doit() -> tuple[str, ...]:
    return Declared.api_doit.default()


@dataclass(frozen=True)
class Settings:
    """Absolute paths (a worker may run in another directory), the token and worker bounds."""

    store: Path
    tasks_root: Path
    lock_dir: Path
    evals_root: Path
    agents_root: Path
    cwd: Path
    token: str | None = None
    doit: tuple[str, ...] = field(default_factory=_default_doit)
    max_runs: int = 2  # runs whose doit processes may run at once, across servers on this store
    jobs: int = 2  # `doit -n`: targets of one run in parallel (sandboxes are bounded apart)
    poll_s: float = 1.0  # how often the supervisor checks workers and starts queued runs
    max_starts: int = 3  # worker starts of one run before a dying worker fails the run
    # Bytes of a request body the server reads at most; past them it answers 413.
    max_body: int = field(default_factory=lambda: in_force.api_max_body)

    @classmethod
    def from_env(cls, **overrides: Any) -> Settings:
        """The path settings in force (the same `doit` and `evaluator report` read, so all
        three agree on paths), made absolute; the token (`EVAL_API_TOKEN`) and the doit command
        (`EVAL_API_DOIT`) from the settings too; then `overrides`."""
        cwd = Path.cwd()
        path = {name: (cwd / getattr(in_force, name)).resolve() for name in PATH_SETTINGS}
        base = cls(store=path["store"], tasks_root=path["tasks_root"], lock_dir=path["lock_dir"],
                   evals_root=path["evals_root"], agents_root=path["agents_root"], cwd=cwd,
                   token=in_force.api_token, doit=in_force.api_doit)
        return replace(base, **overrides)

    @property
    def api_dir(self) -> Path:
        return self.store / "api"

    @property
    def db_path(self) -> Path:
        return self.api_dir / "runs.sqlite"

    def log_path(self, run_id: str) -> Path:
        return self.api_dir / "logs" / f"{run_id}.log"

    def worker_env(self) -> dict[str, str]:
        """The server's environment with every path made absolute and the harness importable."""
        env = {**os.environ, **{Declared.named(name).env: str(getattr(self, name))
                                for name in PATH_SETTINGS}}
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(_REPO), env.get("PYTHONPATH")) if p)
        env["PYTHONUNBUFFERED"] = "1"  # the run's progress is read from its log while it runs
        env.pop(TOKEN_ENV, None)  # doit and the agents never need it
        return env


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name may resolve anywhere: treat it as reachable from outside


def check_bind(host: str, token: str | None) -> None:
    """Refuse to listen beyond this machine without a token: runs spend real money."""
    if token is None and not is_loopback(host):
        raise UnsafeBindError(
            f"refusing to serve on {host!r} without a token: anyone who can reach it could start "
            f"runs; set {TOKEN_ENV} (or pass --token) or bind 127.0.0.1")
