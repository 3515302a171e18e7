"""Config and task files are YAML validated by strict pydantic models; one reader for all of them,
so every bad file gets the same kind of message: the file, the field, and what to do."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from evaluator.errors import BadInputError

M = TypeVar("M", bound=BaseModel)


class StrictModel(BaseModel):
    """Base of every data-file model: unknown keys are errors, values are not coerced."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

# libyaml's loader when present: ten times faster, and a no-op run parses every task.yaml.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def parse_model(file: Path, model: type[M], problems: list[str]) -> M | None:
    """Validate `file` against `model`; append each problem to `problems` and return None."""
    try:
        data: Any = yaml.load(file.read_text(encoding="utf-8"), Loader=_LOADER)
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        problems.append(f"{file}: not valid YAML: {exc}")
        return None
    if not isinstance(data, dict):
        problems.append(f"{file}: must be a YAML mapping of fields, got {type(data).__name__}")
        return None
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        for err in exc.errors():
            field = ".".join(str(p) for p in err["loc"]) or "(top level)"
            unknown = err["type"] == "extra_forbidden"
            msg = "unknown field; remove it or fix its spelling" if unknown else err["msg"]
            problems.append(f"{file}: field '{field}': {msg}")
        return None


def load_model(file: Path, model: type[M]) -> M:
    """Like `parse_model`, but raise one BadInputError listing every problem."""
    problems: list[str] = []
    parsed = parse_model(file, model, problems)
    if parsed is None:
        raise BadInputError("\n".join(problems))
    return parsed


__all__ = ["StrictModel", "load_model", "parse_model"]
