"""The simulated endpoint's settings: which models it plays and which faults it injects."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from evaluator.errors import BadInputError

DEFAULT_CONFIG_PATH = Path(__file__).resolve().parent / "default.yaml"


class SimModel(BaseModel):
    """One simulated model: the share of (seed, task) pairs it solves."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    solve_rate: float = Field(ge=0.0, le=1.0)


class Faults(BaseModel):
    """Faults injected before the normal answer; the rates are shares of all chat requests."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    latency_ms: int = Field(default=0, ge=0)
    rate_429: float = Field(default=0.0, ge=0.0, le=1.0)
    retry_after_s: float = Field(default=1.0, ge=0.0)
    rate_500: float = Field(default=0.0, ge=0.0, le=1.0)
    rate_malformed: float = Field(default=0.0, ge=0.0, le=1.0)
    rate_drop: float = Field(default=0.0, ge=0.0, le=1.0)
    seed: int = 0

    @model_validator(mode="after")
    def _rates_fit(self) -> Faults:
        total = self.rate_429 + self.rate_500 + self.rate_malformed + self.rate_drop
        if total > 1.0 + 1e-9:
            raise ValueError(
                f"rate_429 + rate_500 + rate_malformed + rate_drop is {total:g}; must be <= 1"
            )
        return self


def _default_models() -> dict[str, SimModel]:
    return {"sim-strong": SimModel(solve_rate=0.7), "sim-weak": SimModel(solve_rate=0.35)}


class SimConfig(BaseModel):
    """`models` replaces the defaults when given; `faults` defaults to none."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    models: dict[str, SimModel] = Field(default_factory=_default_models)
    faults: Faults = Field(default_factory=Faults)


def load_config(path: str | os.PathLike[str] | None = None) -> SimConfig:
    """Read and validate a config file; None reads the shipped `default.yaml`."""
    path = Path(path) if path is not None else DEFAULT_CONFIG_PATH
    try:
        data: Any = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise BadInputError(
            f"{path}: cannot read simulated endpoint config: {e.strerror}"
        ) from None
    except yaml.YAMLError as e:
        raise BadInputError(f"{path}: not valid YAML: {e}") from None
    try:
        return SimConfig.model_validate(data if data is not None else {})
    except ValidationError as e:
        problems = "\n".join(
            f"  - {'.'.join(str(p) for p in err['loc']) or '(top level)'}: {err['msg']}"
            for err in e.errors()
        )
        raise BadInputError(f"{path}: invalid simulated endpoint config:\n{problems}") from None


__all__ = ["DEFAULT_CONFIG_PATH", "Faults", "SimConfig", "SimModel", "load_config"]
