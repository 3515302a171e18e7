"""The task-set schema: every field typed, documented and strict (unknown keys are errors)."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from evaluator.datafiles import StrictModel
from evaluator.images import TASK_USER, TASK_WORKDIR

_ID = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
_PINNED = re.compile(r"^[^@\s]+@sha256:[0-9a-f]{64}$")


class BuildSpec(StrictModel):
    """How to build a task image locally from files in the task folder."""

    repo: str = Field(description="folder in the task copied to `workdir` and committed once")


class SandboxSpec(StrictModel):
    """Limits for every sandbox of the set."""

    cpus: float = Field(1.0, gt=0, description="CPU cores a sandbox may use")
    memory_mb: int = Field(1024, ge=64, description="memory cap in MiB, swap included")
    pids: int = Field(256, ge=16, description="most processes and threads at once")
    disk_mb: int = Field(512, ge=16, description="MiB a sandbox may write: its own layer, and each tmpfs")
    exec_timeout_s: float = Field(120, gt=0, description="wall-clock limit of one command")
    sandbox_timeout_s: float = Field(1800, gt=0, description="wall-clock limit of one sandbox")
    output_limit_bytes: int = Field(100_000, ge=1024, description="output kept per command")


class SetSpec(StrictModel):
    """`tasks/<set>/set.yaml`."""

    name: str = Field(description="the set's name; must equal its folder name")
    description: str = Field("", description="one line for people")
    gold_reps: int = Field(3, ge=1, le=50, description="times gold and empty patches are graded")
    exploits: Literal["all"] | list[str] = Field(
        "all", description="the gold gate's bundled exploit families run on each valid task: "
        "`all`, or a list of their names (`[]` for none; see evaluator/gold/README.md)")
    sandbox: SandboxSpec = Field(SandboxSpec(), description="sandbox limits")


class TaskSpec(StrictModel):
    """`tasks/<set>/<task>/task.yaml`."""

    id: str = Field(description="task id; must equal the folder name")
    image: str = Field(description="image tag, or a pinned reference name@sha256:<64 hex>")
    build: BuildSpec | None = Field(None, description="how to build `image` locally")
    fetch: str = Field("", description="a command that pulls or builds `image`, named when the "
                       "engine lacks it (the SWE-bench importer writes one)")
    workdir: str = Field(TASK_WORKDIR, description="where the repository lives in the image")
    base_commit: str = Field("HEAD", description="git ref or sha of the base commit")
    user: str = Field(TASK_USER, description="user the sandbox runs as")
    problem_statement: str = Field(description="file with the bug report the agent sees")
    hidden_tests: str = Field(description="folder laid over the repository before grading")
    gold_patch: str = Field(description="file with the reference patch")
    activate: str = Field("", description="shell lines that activate the environment the tests "
                          "run in (e.g. `. /opt/miniconda3/bin/activate && conda activate "
                          "testbed`): run before the test command, and once for the agent, whose "
                          "every command gets the variables they leave")
    test_command: str = Field(description="shell command; must contain {junit_xml} when "
                              "results is junit")
    results: Literal["junit", "pytest-log", "django", "sympy"] = Field(
        "junit", description="how results are read: pytest's JUnit report, or a runner's log")
    pytest_plugins: list[str] = Field(
        default_factory=list, description="pytest plugins the tests need, loaded with -p "
        "(plugin autoloading is off at grading)")
    fail_to_pass: list[str] = Field(min_length=1, description="ids that must go fail -> pass")
    pass_to_pass: list[str] = Field(default_factory=list, description="ids that must keep passing")
    pass_to_pass_rule: Literal["passed", "swebench"] = Field(
        "passed", description="what keeps a PASS_TO_PASS test: `passed` only, or `swebench`: "
        "as SWE-bench's harness counts it (imported rows): passed, or skipped or xfail where the "
        "runner's log names the skip as the official parser reads it")
    test_files: list[str] = Field(default_factory=list, description="extra globs restored")
    fixture: Literal["flaky", "broken-gold"] | None = Field(None, description="gold-gate fixture")

    @field_validator("id")
    @classmethod
    def _id_shape(cls, v: str) -> str:
        if not _ID.match(v):
            raise ValueError("must match [a-z0-9][a-z0-9._-]* (lower case, digits, . _ -)")
        return v

    @field_validator("workdir")
    @classmethod
    def _absolute(cls, v: str) -> str:
        if not v.startswith("/") or ".." in v.split("/"):
            raise ValueError("must be an absolute path inside the image without '..'")
        return v

    @model_validator(mode="after")
    def _junit_needs_placeholder(self) -> TaskSpec:
        if self.results == "junit" and "{junit_xml}" not in self.test_command:
            raise ValueError("test_command must contain {junit_xml} (where pytest writes its "
                             "JUnit report), or set results: to the runner's log format")
        return self

    @field_validator("pytest_plugins")
    @classmethod
    def _plugin_names(cls, v: list[str]) -> list[str]:
        bad = [p for p in v if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", p)]
        if bad:
            raise ValueError(f"not a module or entry-point name: {bad}; write e.g. pytest_asyncio")
        return v

    @field_validator("fail_to_pass", "pass_to_pass")
    @classmethod
    def _unique_ids(cls, v: list[str]) -> list[str]:
        dupes = sorted({t for t in v if v.count(t) > 1})
        if dupes:
            raise ValueError(f"duplicate test ids: {', '.join(dupes)}")
        return v

    @property
    def image_is_pinned(self) -> bool:
        return bool(_PINNED.match(self.image))


def field_docs(model: type[BaseModel]) -> dict[str, str]:
    """One line of documentation per field, for README tables and error messages."""
    return {name: f.description or "" for name, f in model.model_fields.items()}
