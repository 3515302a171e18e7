"""Agents: configs as data, the AgentContext seam, and the reference bash-only agent."""

from evaluator.agents._closure import Closure, code_closure
from evaluator.agents._config import (
    Agent,
    AgentSpec,
    LimitSpec,
    ModelSpec,
    PromptSpec,
    SamplingSpec,
    load_agent,
    resolve_entry_point,
)
from evaluator.agents._environment import (
    EnvironmentDriftError,
    check_environment,
    environment_drift,
    environment_identity,
    installed_distributions,
    locked_pins,
)
from evaluator.agents._protocol import (
    AgentContext,
    AgentFn,
    AgentSandbox,
    AttemptEnd,
    ContextLimit,
    CostLimit,
    CpuLimit,
    FormatErrors,
    MemoryLimit,
    StepLimit,
    Submitted,
    WallClockLimit,
)
from evaluator.agents._reference import SUBMIT, parse_action, reference_agent

from . import _wire as wire  # the harness <-> agent-process channel

__all__ = [
    "SUBMIT",
    "Agent",
    "AgentContext",
    "AgentFn",
    "AgentSandbox",
    "AgentSpec",
    "AttemptEnd",
    "Closure",
    "ContextLimit",
    "CostLimit",
    "CpuLimit",
    "EnvironmentDriftError",
    "FormatErrors",
    "LimitSpec",
    "MemoryLimit",
    "ModelSpec",
    "PromptSpec",
    "SamplingSpec",
    "StepLimit",
    "Submitted",
    "WallClockLimit",
    "check_environment",
    "code_closure",
    "environment_drift",
    "environment_identity",
    "installed_distributions",
    "locked_pins",
    "load_agent",
    "parse_action",
    "reference_agent",
    "resolve_entry_point",
    "wire",
]
