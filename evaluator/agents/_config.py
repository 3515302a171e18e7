"""Agents are data: `agents/<name>/agent.yaml` plus prompt templates, validated strictly."""

from __future__ import annotations

import functools
import importlib
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import jinja2
from pydantic import Field, field_validator

from evaluator.agents._closure import Closure, code_closure, defines, missing
from evaluator.agents._environment import environment_identity
from evaluator.datafiles import StrictModel, load_model
from evaluator.errors import BadInputError
from evaluator.hashing import hash_file, hash_json, tree_files


class ModelSpec(StrictModel):
    endpoint: str = Field(description="OpenAI-compatible base URL (…/v1), or `simulated`")
    id: str = Field(description="model id sent to the endpoint")
    api_key_env: str | None = Field(None, description="env var holding the API key, if any")
    timeout_s: float = Field(60, gt=0, description="timeout of one model request")
    max_retries: int = Field(5, ge=0, description="retries on 429, 5xx and connection errors")
    price: Literal["table", "free", "unpriced"] = Field(
        "table", description="table: priced by the eval's price table (a missing entry is an "
        "error); free: costs nothing; unpriced: cost unknown, shown as unpriced, no cost limit")

    @field_validator("endpoint")
    @classmethod
    def _http(cls, value: str) -> str:
        # Checked when the agent is loaded: an ftp:// or host-less URL would otherwise pass the
        # plan and fail every attempt as an infrastructure error, retried on every run.
        if value != "simulated" and not re.match(r"^https?://[^/\s:]+", value):
            raise ValueError(f"{value!r} is not an http:// or https:// URL with a host (nor "
                             "`simulated`); write it as https://api.example.com/v1")
        return value


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
    agent_memory_mb: int = Field(
        2048, ge=256, description="address space of the scaffold's own process (RLIMIT_AS); "
        "past it allocations fail and the attempt ends as memory_limit")
    agent_cpu_s: float | None = Field(
        None, gt=0, description="CPU seconds of the scaffold's own process (RLIMIT_CPU; default: "
        "the wall-clock limit); past it the process is killed and the attempt ends as cpu_limit")


class AgentSpec(StrictModel):
    """`agents/<name>/agent.yaml`."""

    name: str = Field(description="agent name; must equal its folder name")
    entry_point: str = Field(description="module:callable that runs one attempt")
    extra_modules: list[str] = Field(
        [], description="modules the entry point imports by name at run time (importlib), "
        "hashed into the identity like the ones it imports statically")
    model: ModelSpec = Field(description="where and which model")
    sampling: SamplingSpec = Field(SamplingSpec(), description="sampling")
    prompts: PromptSpec = Field(description="prompt template files")
    limits: LimitSpec = Field(LimitSpec(), description="limits of one attempt")
    settings: dict[str, Any] = Field(
        {}, description="the scaffold's own settings, passed to it as `ctx.settings` as they are "
        "written (part of the identity)")
    isolation: Literal["namespace", "process"] | None = Field(
        None, description="the least isolation this agent asks for (namespace: own process "
        "under bubblewrap, seeing only its own code; process: own process, no credential, but "
        "the machine's files readable); the eval config sets the least allowed and this may "
        "only ask for more. Not part of the identity: the isolation an attempt ran under is in "
        "its key")


@dataclass(frozen=True)
class Agent:
    """A loaded agent: spec, prompt texts, and what its identity hashes.

    `code` is its own modules (the entry point's import closure), `files` every other file of
    its folder, `environment` the interpreter and installed distributions it runs with.
    """

    spec: AgentSpec
    dir: Path
    prompts: dict[str, str]
    code: Closure
    files: dict[str, str] = field(default_factory=dict)
    environment: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def simulated(self) -> bool:
        return self.spec.model.endpoint == "simulated"

    @property
    def prompt_hash(self) -> str:
        return hash_json(self.prompts)

    @functools.cached_property
    def identity_parts(self) -> dict[str, str]:
        """What the identity hashes, part by part: its config (less where the endpoint lives),
        prompts, own code, the versions of the contracts of the harness modules it runs through
        (a label, `reference-agent-v1+sandbox-v1+...`), the other files of its folder, and its
        environment. Attempt records keep them, so `doit plan` can say which part moved."""
        config = self.spec.model_dump()
        config["model"].pop("endpoint")
        # The isolation it runs under is the stronger of this ask and the operator's floor, and
        # that is in the attempt key; the ask alone changes nothing an attempt does.
        config.pop("isolation")
        config["model"]["simulated"] = self.simulated
        own = {m: h for m, h in self.code.modules.items() if not _harness(h)}
        return {"config": hash_json(config), "prompts": hash_json(self.prompts),
                "code": hash_json(own), "harness": _contracts_of(self.code.modules.values()),
                "files": hash_json(self.files), "environment": hash_json(self.environment)}

    @functools.cached_property
    def identity(self) -> str:
        """Hash of config, prompts, own code, folder and environment; where the endpoint lives
        is not part of it."""
        return hash_json(self.identity_parts)[:32]


def _harness(digest: str) -> bool:
    return digest.startswith("contract:") or digest == "harness:neutral"


def _contracts_of(digests: Any) -> str:
    """The label of the contracts the stand-ins name (`contract:sandbox-v1` -> `sandbox-v1`)."""
    return "+".join(sorted({d.removeprefix("contract:") for d in digests
                            if d.startswith("contract:")}))


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


def _folder_files(adir: Path) -> dict[str, str]:
    """Every file of the agent's folder but agent.yaml (its parsed config is hashed instead, so
    that moving the endpoint does not change the identity), by relative path."""
    return {p.relative_to(adir).as_posix(): hash_file(p) for p in tree_files(adir)
            if p != adir / "agent.yaml"}


def _entry_module(spec: AgentSpec, file: Path, search_path: Sequence[str]) -> str:
    module_name, _, attr = spec.entry_point.partition(":")
    if not module_name or not attr:
        raise BadInputError(f"{file}: field 'entry_point': {spec.entry_point!r} must look like "
                            "package.module:callable")
    # Read, not imported: agent code runs only in the attempt, never while planning.
    problem = defines(module_name, attr, search_path)
    if problem:
        raise BadInputError(f"{file}: field 'entry_point': cannot load {spec.entry_point!r}: "
                            f"{problem}; put its package on PYTHONPATH or fix the name")
    return module_name


def _template(path: Path, where: str) -> str:
    """A prompt file's text, checked as a Jinja template now (a syntax error would otherwise
    pass the plan and end every attempt as an infrastructure error)."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise BadInputError(f"{where}: {path} is not UTF-8 text (byte {exc.start}); save it as "
                            "UTF-8") from None
    try:
        jinja2.Environment().parse(text)
    except jinja2.TemplateSyntaxError as exc:
        raise BadInputError(f"{path}:{exc.lineno}: {where}: Jinja syntax error: {exc.message}; "
                            "fix the template") from None
    return text


def load_agent(name: str, root: str | Path = "agents",
               search_path: Sequence[str] | None = None) -> Agent:
    """Read and validate `root/<name>/agent.yaml` and its prompt files.

    `search_path` is the Python path the agent runs with (default: this interpreter's).
    """
    adir = Path(root) / name
    file = adir / "agent.yaml"
    if not file.is_file():
        known = sorted(p.parent.name for p in Path(root).glob("*/agent.yaml"))
        raise BadInputError(f"no agent {name!r}: {file} does not exist (known: {known})")
    spec = load_model(file, AgentSpec)
    if spec.name != name:
        raise BadInputError(f"{file}: field 'name': is {spec.name!r}, must be {name!r}")
    prompts = {}
    for which, rel in spec.prompts.model_dump().items():
        path = (adir / rel).resolve()
        if not path.is_relative_to(adir.resolve()) or not path.is_file():
            raise BadInputError(f"{file}: field 'prompts.{which}': {rel!r} is not a file in {adir}")
        prompts[which] = _template(path, f"{file}: field 'prompts.{which}'")
    # The agent's folder comes first: a scaffold's glue module may live beside its config.
    search = [str(adir.resolve()), *(sys.path if search_path is None else search_path)]
    module = _entry_module(spec, file, search)
    for i, extra in enumerate(spec.extra_modules):
        problem = missing(extra, search)
        if problem:
            raise BadInputError(f"{file}: field 'extra_modules.{i}': {problem}; put its package "
                                "on PYTHONPATH or in the agent's folder, or fix the name")
    code = code_closure([module, *spec.extra_modules], search)
    return Agent(spec=spec, dir=adir, prompts=prompts, code=code, files=_folder_files(adir),
                 environment=environment_identity(code.external, search[1:]))
