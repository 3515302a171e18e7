"""The Jinja2 environment of the pages: autoescaped, strict, filters for numbers and money."""

from __future__ import annotations

import functools
import io
import json
from pathlib import Path
from typing import Any

import jinja2

from evaluator.viewer._text import money, rate

TEMPLATES = Path(__file__).resolve().parent / "templates"


@functools.cache
def environment(root: Path = TEMPLATES) -> Any:
    # Autoescape for every template: model output, test output and agent names reach them all,
    # and none of it may become markup. Records of older harness versions lack newer fields:
    # a missing field renders empty rather than failing the page.
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(root), autoescape=True, undefined=jinja2.ChainableUndefined,
        trim_blocks=True, lstrip_blocks=True,
    )
    env.filters.update(money=money, rate=rate, seconds=_seconds, tojson_text=_json_text)
    return env


def render(name: str, **context: Any) -> bytes:
    # Written piece by piece as the template yields them: `Template.render` joins every
    # piece into one string first, and the grid of a 100,000-attempt run (17 MB) took
    # 150 MB of pieces to make that way.
    out = io.BytesIO()
    for piece in environment().get_template(name).generate(**context):
        out.write(piece.encode("utf-8"))
    return out.getvalue()


def _seconds(value: object) -> str:
    return "–" if not isinstance(value, int | float) else f"{value:.2f} s"


def _json_text(value: object) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=str)
