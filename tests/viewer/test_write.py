"""The site on disk is brought up to date, not rewritten: a page is rendered again only when
what it is made from changed, and the folder holds exactly what a full render would."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from evaluator.reports import report_site
from evaluator.viewer import _write
from tests.viewer._world import ViewerWorld, make_world


def _write_site(world: ViewerWorld, out: Path) -> dict[str, int]:
    site = report_site("mini", **world.kwargs)
    site.write(out, jobs=1)
    return site.counts


def _files(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in out.rglob("*") if p.is_file()}


def test_a_second_write_renders_nothing_and_changes_no_file(tmp_path: Path) -> None:
    world = make_world(tmp_path / "w")
    out = tmp_path / "site"
    assert _write_site(world, out) == {"rendered": 6, "kept": 0}  # 4 attempts, 2 tasks
    before = {p: p.stat().st_mtime_ns for p in out.rglob("*.html")}
    assert _write_site(world, out) == {"rendered": 0, "kept": 6}
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*.html")} == before


def test_a_new_attempt_renders_its_page_and_its_task_page_only(tmp_path: Path) -> None:
    world = ViewerWorld(tmp_path / "w", ("t1", "t2"), samples=2)
    world.attempt("base", "t1", 0, "failed")
    world.attempt("cand", "t2", 0, "resolved")
    out = tmp_path / "site"
    _write_site(world, out)
    key = world.attempt("base", "t1", 1, "resolved")
    assert _write_site(world, out)["rendered"] == 2
    assert (out / "attempts" / f"{key}.html").is_file()
    fresh = tmp_path / "fresh"
    _write_site(world, fresh)
    assert _files(out) == _files(fresh)  # what a full render gives, byte for byte


def test_what_the_site_no_longer_has_is_removed_and_a_lost_page_is_rendered_again(
        tmp_path: Path) -> None:
    world = make_world(tmp_path / "w")
    out = tmp_path / "site"
    _write_site(world, out)
    page = next((out / "attempts").glob("*.html"))
    page.unlink()
    (out / "attempts" / "foreign.html").write_text("not ours")
    (out / "old" / "deep").mkdir(parents=True)
    (out / "old" / "deep" / "x.txt").write_text("left by an older site")
    assert _write_site(world, out)["rendered"] == 1
    assert page.is_file() and not (out / "attempts" / "foreign.html").exists()
    assert not (out / "old").exists()


def test_a_new_viewer_renders_every_page_again(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    world = make_world(tmp_path / "w")
    out = tmp_path / "site"
    _write_site(world, out)
    monkeypatch.setattr(_write, "viewer_version", lambda: "another viewer")
    assert _write_site(world, out) == {"rendered": 6, "kept": 0}


def test_many_pages_render_in_a_pool_to_the_same_bytes(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    world = make_world(tmp_path / "w")
    monkeypatch.setattr(_write, "_POOL_FROM", 1)
    pooled, serial = tmp_path / "pooled", tmp_path / "serial"
    site = report_site("mini", **world.kwargs)
    site.write(pooled, jobs=2)
    site.write(serial, jobs=1)
    assert _files(pooled) == _files(serial) and len(_files(pooled)) > 10
    assert not [p for p in os.listdir(pooled) if p.startswith(".w-")]


def _unit(i: int, note: bool) -> _write.Unit:
    def render() -> dict[str, bytes]:
        files = _write.Rendered({f"p{i}.html": b"page"})
        if note:
            files.notes.append(f"page {i} lacks a blob")
        return files

    return f"p{i}.html", "stamp", render


def test_what_a_render_notes_comes_back_from_the_pool_and_its_page_is_not_kept(
        tmp_path: Path) -> None:
    """A page rendered without a blob it needed says so (`doit report` prints the note), from
    a forked renderer too, and is rendered again next time rather than kept as done."""
    units = [_unit(i, i == 3) for i in range(_write._POOL_FROM + 6)]
    notes: list[str] = []
    counts = _write.write_site(tmp_path, units, {}, jobs=2, notes=notes)
    assert counts == {"rendered": len(units), "kept": 0} and notes == ["page 3 lacks a blob"]
    notes.clear()
    counts = _write.write_site(tmp_path, units, {}, jobs=2, notes=notes)
    assert counts == {"rendered": 1, "kept": len(units) - 1} and notes == ["page 3 lacks a blob"]


def test_units_made_one_at_a_time_and_a_manifest_written_in_pieces_keep_the_format(
        tmp_path: Path) -> None:
    """A site's units are handed over as they are made (a list of 100,000 was 80 MB of a
    report) and the manifest is written piece by piece: the same JSON as one `json.dumps`,
    so a site written before is read as current (no page rendered again)."""
    import json

    made: list[int] = []

    def units() -> Iterator[_write.Unit]:
        for i in range(5):
            made.append(i)
            yield _unit(i, False)

    assert _write.write_site(tmp_path, units(), {"index.html": b"<p>"}) == \
        {"rendered": 5, "kept": 0}
    assert made == list(range(5))
    text = (tmp_path / _write.MANIFEST).read_bytes()
    assert text == json.dumps(json.loads(text), sort_keys=True).encode()
    assert json.loads(text)["format"] == 3 and len(json.loads(text)["pages"]) == 6
    assert _write.write_site(tmp_path, units(), {"index.html": b"<p>"}) == \
        {"rendered": 0, "kept": 5}
