"""`evals/<set>.yaml`: which agents run on a set, how often, within which budget and bounds."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, PrivateAttr

from evaluator.datafiles import StrictModel, load_model
from evaluator.errors import BadInputError
from evaluator.model import Prices


class Concurrency(StrictModel):
    sandboxes: int = Field(4, ge=1, le=256, description="sandboxes in use at once")
    model_requests: int = Field(8, ge=1, le=1024, description="model requests in flight at once")


class EvalSpec(StrictModel):
    """`evals/<set>.yaml`."""

    task_set: str = Field(description="the task set; must equal the file's name")
    agents: list[str] = Field(min_length=1, description="agent names under agents/")
    baseline: str | None = Field(None, description="agent every other is compared against")
    samples: int = Field(1, ge=1, le=100, description="attempts per agent and task")
    budget_usd: float | None = Field(None, gt=0, description="cap on dollars per invocation")
    retry_budget: int = Field(3, ge=1, description="infra errors before an attempt is quarantined")
    sandbox_usd_per_hour: float = Field(0.0, ge=0, description="price of one sandbox hour")
    prices: str | None = Field(None, description="price table file (YAML), relative to evals/")
    concurrency: Concurrency = Field(Concurrency(), description="bounds")
    isolation: Literal["namespace", "process"] | None = Field(
        None, description="the least isolation an agent's own process may run under; an agent's "
        "agent.yaml may ask for more, never less (default: the strongest this machine supports, "
        "namespace where bubblewrap works)")
    # The folder the file was read from: `prices` is relative to it.
    _root: Path = PrivateAttr(Path("evals"))

    @property
    def path(self) -> Path:
        return self._root / f"{self.task_set}.yaml"

    @property
    def price_file(self) -> Path | None:
        return self._root / self.prices if self.prices else None

    def price_table(self) -> Prices:
        """The price table the eval names, or an empty one."""
        return Prices.load(self.price_file) if self.price_file else Prices()


def load_eval(task_set: str, root: str | Path = "evals") -> EvalSpec:
    path = Path(root) / f"{task_set}.yaml"
    if not path.is_file():
        raise BadInputError(f"no eval config for task set {task_set!r}: create {path} "
                            "(see evals/demo.yaml)")
    spec = load_model(path, EvalSpec)
    if spec.task_set != task_set:
        raise BadInputError(f"{path}: field 'task_set': is {spec.task_set!r}, must be {task_set!r}")
    if spec.baseline is not None and spec.baseline not in spec.agents:
        raise BadInputError(f"{path}: field 'baseline': {spec.baseline!r} is not in agents")
    spec._root = Path(root)
    return spec
