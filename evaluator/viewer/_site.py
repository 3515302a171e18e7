"""The site: every page by its path, rendered on demand (the API) or all written out (doit).

Paths are relative and the same in both, so a page links alike from disk and under `/ui/`:

    index.html  grid.html  style.css  <assets>  agreement.html (imported submissions)
    attempts/<key>.html    attempts/<key>/<file>     (step-N.txt, patch.diff.txt, test-output.txt, ..)
    tasks/<id>.html        tasks/<id>/<file>         (gold-N.txt, empty-N.txt)
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
from collections.abc import Iterator
from pathlib import Path

from evaluator.viewer._attempt import attempt_view
from evaluator.viewer._data import Limits, Records, RunData, TaskInfo
from evaluator.viewer._render import TEMPLATES, render
from evaluator.viewer._task import task_view
from evaluator.viewer._write import Rendered, Unit, stamp, write_site

AGREEMENT = "agreement.html"  # imported submissions re-verified (when there are any)
_ATTEMPT = re.compile(r"^attempts/([0-9a-f]{8,128})\.html$")
_ATTEMPT_FILE = re.compile(r"^attempts/([0-9a-f]{8,128})/([a-z0-9._-]{1,64})$")
_TASK = re.compile(r"^tasks/([a-z0-9][a-z0-9._-]*)\.html$")
_TASK_FILE = re.compile(r"^tasks/([a-z0-9][a-z0-9._-]*)/([a-z0-9._-]{1,64})$")
TYPES = {".html": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8",
         ".png": "image/png", ".json": "application/json; charset=utf-8",
         ".txt": "text/plain; charset=utf-8", ".diff": "text/plain; charset=utf-8"}


def _plain(info: TaskInfo) -> dict[str, object]:
    """`dataclasses.asdict(info)` with its verdict as a dict, however it is held (a mapping
    that reads the record on use: asdict would deep-copy the mapping, not its items)."""
    return {**{f.name: getattr(info, f.name) for f in dataclasses.fields(info)},
            "verdict": dict(info.verdict)}


def content_type(path: str) -> str:
    return TYPES.get(os.path.splitext(path)[1], "application/octet-stream")


def static_file(path: str) -> bytes | None:
    """The files that are the same for every run (the stylesheet), without any run's data."""
    return (TEMPLATES / "style.css").read_bytes() if path == "style.css" else None


class Site:
    """The pages of one run over one store."""

    def __init__(self, data: RunData, records: Records, limits: Limits | None = None) -> None:
        self.data, self.records, self.limits = data, records, limits or Limits()
        self.counts: dict[str, int] = {}  # pages rendered and kept by the last `write`
        self.problems: list[str] = []  # what `write` found missing, one line per attempt

    def page(self, path: str) -> bytes | None:
        """The bytes at `path`, or None when the site has no such path."""
        if path in ("", "index.html"):
            return render("index.html.j2", **self._common(0), s=self.data.summary,
                          tasks=self.data.tasks, assets=self.data.assets)
        if path == "grid.html":
            return render("grid.html.j2", **self._common(0), grid=self._grid())
        if path == AGREEMENT:
            return render("agreement.html.j2", **self._common(0),
                          tables=self.data.agreement) if self.data.agreement else None
        if (fixed := static_file(path)) is not None:
            return fixed
        if m := _ATTEMPT.match(path):
            view = attempt_view(self.data, self.records, m[1], self.limits)
            return None if view is None else render("attempt.html.j2", **self._common(1),
                                                    **view.context)
        if m := _TASK.match(path):
            got = task_view(self.data, self.records, m[1], self.limits)
            return None if got is None else render("task.html.j2", **self._common(1), **got[0])
        if m := _ATTEMPT_FILE.match(path):
            view = attempt_view(self.data, self.records, m[1], self.limits)
            return self._blob(view.files.get(m[2]) if view else None)
        if m := _TASK_FILE.match(path):
            got = task_view(self.data, self.records, m[1], self.limits)
            return self._blob(got[1].get(m[2]) if got else None)
        if "/" not in path and path in self.data.assets:  # last: assets may take a while
            return self.data.assets[path]
        return None

    def write(self, out_dir: Path, jobs: int | None = None) -> Path:
        """Bring `out_dir` to this site (see `_write`: a page is rendered only when what it is
        made from changed; what the site no longer has is removed); returns the index page's
        path. `jobs`: processes rendering pages at once (default: one per CPU)."""
        self.problems = []
        always = {path: self.page(path) or b""
                  for path in ("index.html", "grid.html", "style.css", *self.data.assets,
                               *([AGREEMENT] if self.data.agreement else []))}
        self.counts = write_site(out_dir, self._units(), always, jobs, self.problems)
        return out_dir / "index.html"

    def _units(self) -> Iterator[Unit]:
        """Every page's unit, made one at a time as `write_site` asks (a list of 100,000 of
        them, with their stamps and renderers, was 80 MB of a report's memory)."""
        common = self._common(1)
        tasks = {tid: stamp(_plain(info)) for tid, info in self.data.tasks.items()}
        seen: set[str] = set()
        for cell in self.data.cells:
            key = cell["attempt"]
            if key and key not in seen:
                seen.add(key)
                page = f"attempts/{key}.html"
                yield (page, stamp(common, dict(cell), tasks.get(str(cell["task_id"]))),
                       functools.partial(self._attempt_files, str(key)))
        for task_id in self.data.tasks:
            page = f"tasks/{task_id}.html"
            yield (page, stamp(common, tasks[task_id],
                               [dict(c) for c in self.data.cells_of(task_id)]),
                   functools.partial(self._task_files, task_id))

    def _attempt_files(self, key: str) -> Rendered:
        view = attempt_view(self.data, self.records, key, self.limits)
        if view is None:
            return Rendered()
        files = Rendered({f"attempts/{key}.html": render("attempt.html.j2", **self._common(1),
                                                         **view.context)})
        for name, digest in view.files.items():
            files[f"attempts/{key}/{name}"] = self._blob(digest) or b""
        if view.context["missing"]:  # said by `doit report`; the page is rendered again next time
            cell = self.data.cell(key) or {}
            files.notes.append(
                f"attempt {key} ({cell.get('agent')}/{cell.get('task_id')}/"
                f"{cell.get('sample_idx')}): "
                + "; ".join(f"{m['what']} (blob {m['digest']})" for m in view.context["missing"])
                + " missing from the store; its page says so, and `evaluator store verify` "
                  "names every such record and what to do")
        return files

    def _task_files(self, task_id: str) -> dict[str, bytes]:
        got = task_view(self.data, self.records, task_id, self.limits)
        if got is None:
            return {}
        files = {f"tasks/{task_id}.html": render("task.html.j2", **self._common(1), **got[0])}
        for name, digest in got[1].items():
            files[f"tasks/{task_id}/{name}"] = self._blob(digest) or b""
        return files

    def _common(self, depth: int) -> dict[str, object]:
        return {"root": "../" * depth, "task_set": self.data.task_set,
                # From the rows, not the summary: attempt pages need no summary at all.
                "simulated": self.data.simulated}

    def _grid(self) -> dict[str, object]:
        agents = [str(r["agent"]) for r in self.data.summary.get("leaderboard", [])]
        agents += sorted({str(c["agent"]) for c in self.data.cells} - set(agents))
        tasks = sorted(self.data.tasks)
        cells: dict[tuple[str, str], list[object]] = {}
        for c in sorted(self.data.cells, key=lambda c: c["sample_idx"]):
            cells.setdefault((str(c["agent"]), str(c["task_id"])), []).append(c)
        valid = {t for t, info in self.data.tasks.items() if info.verdict.get("verdict") == "valid"}
        return {"agents": agents, "tasks": tasks, "cells": cells, "valid": valid}

    def _blob(self, digest: str | None) -> bytes | None:
        return None if digest is None else self.records.local_blob(digest)
