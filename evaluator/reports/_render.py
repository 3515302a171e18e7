"""Write a report's files: summary.json, report.md, index.html and the PNG plots.

Everything comes from the summary dict; nothing here reads a clock, a path outside the output
folder or the store, so re-rendering the same summary gives the same bytes.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import jinja2

from evaluator.reports import _plots
from evaluator.reports._text import (
    comparison_lines,
    comparison_title,
    family_line,
    leaderboard_table,
    left_out_lines,
    method_text,
    pass_ks,
)

TEMPLATES = Path(__file__).resolve().parents[2] / "reports" / "templates"
FILES = ("summary.json", "report.md", "index.html", "forest.png", "outcomes.png")


def summary_json(summary: dict[str, Any]) -> bytes:
    """Sorted keys, fixed indentation, no NaN: equal summaries give equal bytes."""
    return (json.dumps(summary, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False)
            + "\n").encode("utf-8")


def render(summary: dict[str, Any], out_dir: Path, *,
           templates: Path = TEMPLATES) -> dict[str, Path]:
    """Write every file of the report into `out_dir`; returns file name -> path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    context = {"s": summary, "table": leaderboard_table(summary["leaderboard"]),
               "ks": pass_ks(summary["leaderboard"]), "family": family_line(summary),
               "method": method_text(summary)}
    simulated = {r["agent"]: bool(r["simulated"]) for r in summary["leaderboard"]}
    paths = {
        "forest.png": _write(out_dir / "forest.png", _plots.forest_plot(summary["comparisons"])),
        "outcomes.png": _write(out_dir / "outcomes.png", _plots.outcome_grid(
            summary["outcomes"], summary["samples"], simulated)),
        "summary.json": _write(out_dir / "summary.json", summary_json(summary)),
        "report.md": _write(out_dir / "report.md",
                            _template(templates, "report.md.j2", False).render(context).encode()),
        "index.html": _write(out_dir / "index.html",
                             _template(templates, "index.html.j2", True).render(context)
                             .encode()),
    }
    return {name: paths[name] for name in FILES}


def _template(root: Path, name: str, html: bool) -> Any:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(root), autoescape=html, undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
    )
    env.filters.update(comparison_title=comparison_title, comparison_lines=comparison_lines,
                       left_out_lines=left_out_lines, md_cell=_md_cell)
    return env.get_template(name)


def _md_cell(text: object) -> str:
    # A pipe or a newline inside a cell would break the Markdown table around it.
    return str(text).replace("|", "\\|").replace("\n", " ")


def _write(path: Path, data: bytes) -> Path:
    # Atomic, so a browser or a CI step reading the report never sees half a file.
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)  # mkstemp's 0600 would hide the report from a web server
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
