"""Dollar prices per million tokens, loaded from data so a price change is a data change."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evaluator.errors import BadInputError

from ._types import Usage


class Price(BaseModel):
    """Dollars per million input (prompt) and output (completion) tokens."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input_per_mtok: float = Field(ge=0, description="dollars per million prompt tokens")
    output_per_mtok: float = Field(ge=0, description="dollars per million completion tokens")
    cached_input_per_mtok: float | None = Field(
        None, ge=0, description="dollars per million cached prompt tokens (default: input price)")


class Prices:
    """A price table `{model_id: Price}`; an unknown model costs 0 and is reported as unpriced."""

    def __init__(self, table: Mapping[str, Price] | None = None) -> None:
        self._table: dict[str, Price] = dict(table or {})

    @classmethod
    def from_mapping(cls, data: Any, *, source: str = "price table") -> Prices:
        """Build from `{model_id: {input_per_mtok, output_per_mtok}}`; errors name `source`."""
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise BadInputError(f"{source}: expected a mapping of model id to prices")
        table: dict[str, Price] = {}
        for model_id, entry in data.items():
            try:
                table[str(model_id)] = Price.model_validate(entry)
            except ValidationError as e:
                problems = "; ".join(
                    f"{'.'.join(str(p) for p in err['loc']) or 'value'}: {err['msg']}"
                    for err in e.errors()
                )
                raise BadInputError(f"{source}: model {model_id!r}: {problems}") from None
        return cls(table)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Prices:
        """Read a YAML or JSON price table."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
            data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
        except OSError as e:
            raise BadInputError(f"{path}: cannot read price table: {e.strerror}") from None
        except (json.JSONDecodeError, yaml.YAMLError) as e:
            raise BadInputError(f"{path}: not valid YAML/JSON: {e}") from None
        return cls.from_mapping(data, source=str(path))

    def get(self, model: str) -> Price | None:
        return self._table.get(model)

    def cost(self, model: str, usage: Usage) -> tuple[float, bool]:
        """`(dollars, priced)`; `priced` is False when `model` is not in the table."""
        price = self._table.get(model)
        if price is None:
            return 0.0, False
        cached = min(usage.cached_tokens, usage.prompt_tokens)
        cached_price = (price.input_per_mtok if price.cached_input_per_mtok is None
                        else price.cached_input_per_mtok)
        dollars = (
            (usage.prompt_tokens - cached) * price.input_per_mtok
            + cached * cached_price
            + usage.completion_tokens * price.output_per_mtok
        ) / 1_000_000
        return dollars, True

    def __contains__(self, model: object) -> bool:
        return model in self._table

    def __repr__(self) -> str:
        return f"Prices({sorted(self._table)})"


__all__ = ["Price", "Prices"]
