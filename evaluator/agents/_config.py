"""Agents are data: `agents/<name>/agent.yaml` plus prompt templates, validated strictly."""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field

from evaluator.datafiles import StrictModel, load_model
from evaluator.errors import BadInputError
from evaluator.hashing import hash_bytes, hash_json


class ModelSpec(StrictModel):
    endpoint: str = Field(description="OpenAI-compatible base URL (…/v1), or `simulated`")
    id: str = Field(description="model id sent to the endpoint")
    api_key_env: str | None = Field(None, description="env var holding the API key, if any")
    timeout_s: float = Field(60, gt=0, description="timeout of one model request")
    max_retries: int = Field(5, ge=0, description="retries on 429, 5xx and connection errors")


class SamplingSpec(StrictModel):
    temperature: float = Field(0.0, ge=0, description="sampling temperature")
    seed: int = Field(0, description="base seed; each sample derives its own from it")
    max_tokens: int | None = Field(None, gt=0, description="cap on reply tokens")


class PromptSpec(StrictModel):
    system: str = Field(description="jinja2 template of the system message (file in the agent)")
    instance: str = Field(description="jinja2 template of the first user message")
    format_error: str = Field(description="template sent back when a reply has no one command")


class LimitSpec(StrictModel):
    max_steps: int = Field(30, ge=1, description="model calls per attempt")
    wall_clock_s: float = Field(900, gt=0, description="wall-clock limit of an attempt")
    max_cost_usd: float = Field(3.0, gt=0, description="model dollars per attempt")
    command_timeout_s: float = Field(60, gt=0, description="timeout of one shell command")
    max_format_errors: int = Field(3, ge=1, description="replies without one command tolerated")
    output_head_chars: int = Field(4000, ge=100, description="output kept from the start")
    output_tail_chars: int = Field(4000, ge=100, description="output kept from the end")


class AgentSpec(StrictModel):
    """`agents/<name>/agent.yaml`."""

    name: str = Field(description="agent name; must equal its folder name")
    entry_point: str = Field(description="module:callable that runs one attempt")
    model: ModelSpec = Field(description="where and which model")
    sampling: SamplingSpec = Field(SamplingSpec(), description="sampling")
    prompts: PromptSpec = Field(description="prompt template files")
    limits: LimitSpec = Field(LimitSpec(), description="limits of one attempt")


@dataclass(frozen=True)
class Agent:
    """A loaded agent: spec, prompt texts, and its identity hash."""

    spec: AgentSpec
    dir: Path
    prompts: dict[str, str]
    code_hash: str

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def simulated(self) -> bool:
        return self.spec.model.endpoint == "simulated"

    @property
    def prompt_hash(self) -> str:
        return hash_json(self.prompts)

    @property
    def identity(self) -> str:
        """Hash of code, config and prompts; where the endpoint lives is not part of it."""
        config = self.spec.model_dump()
        config["model"].pop("endpoint")
        config["model"]["simulated"] = self.simulated
        return hash_json({"config": config, "prompts": self.prompts, "code": self.code_hash})[:32]


def resolve_entry_point(entry: str, where: str = "entry_point") -> Any:
    module_name, _, attr = entry.partition(":")
    if not module_name or not attr:
        raise BadInputError(f"{where}: {entry!r} must look like package.module:callable")
    try:
        fn = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise BadInputError(f"{where}: cannot load {entry!r}: {exc}") from None
    if not callable(fn):
        raise BadInputError(f"{where}: {entry!r} is not callable")
    return fn


def load_agent(name: str, root: str | Path = "agents") -> Agent:
    """Read and validate `root/<name>/agent.yaml` and its prompt files."""
    adir = Path(root) / name
    file = adir / "agent.yaml"
    if not file.is_file():
        known = sorted(p.parent.name for p in Path(root).glob("*/agent.yaml"))
        raise BadInputError(f"no agent {name!r}: {file} does not exist (known: {known})")
    spec = load_model(file, AgentSpec)
    if spec.name != name:
        raise BadInputError(f"{file}: field 'name': is {spec.name!r}, must be {name!r}")
    prompts = {}
    for field, rel in spec.prompts.model_dump().items():
        path = (adir / rel).resolve()
        if not path.is_relative_to(adir.resolve()) or not path.is_file():
            raise BadInputError(f"{file}: field 'prompts.{field}': {rel!r} is not a file in {adir}")
        prompts[field] = path.read_text()
    fn = resolve_entry_point(spec.entry_point, f"{file}: field 'entry_point'")
    try:
        source = inspect.getsource(inspect.getmodule(fn) or fn)
    except (OSError, TypeError):
        source = spec.entry_point
    return Agent(spec=spec, dir=adir, prompts=prompts, code_hash=hash_bytes(source.encode()))
