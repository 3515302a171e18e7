"""The site's pages as files: what each page kind holds, escaping, cuts and their full files."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evaluator.reports import render_site, report_site
from tests.viewer._world import HOSTILE, ViewerWorld


def _site(world: ViewerWorld, tmp_path: Path) -> Path:
    return render_site("mini", out_root=tmp_path / "out", **world.kwargs).parent


def _key(world: ViewerWorld, agent: str, task: str) -> str:
    return str(world.plan().find(f"{agent}/{task}/0").key)


def test_every_string_from_agents_and_tests_is_escaped(world: ViewerWorld, tmp_path: Path) -> None:
    site = _site(world, tmp_path)
    for page in [*site.glob("attempts/*.html"), *site.glob("tasks/*.html")]:
        html = page.read_text()
        assert "<script" not in html and "<img" not in html, page
    attempt = (site / "attempts" / f"{_key(world, 'base', 't1')}.html").read_text()
    assert "&lt;script&gt;document.title=&#34;pwned&#34;&lt;/script&gt;" in attempt


def test_attempt_page_holds_steps_diff_grade_flags_and_provenance(
        world: ViewerWorld, tmp_path: Path) -> None:
    site = _site(world, tmp_path)
    html = (site / "attempts" / f"{_key(world, 'cand', 't2')}.html").read_text()
    assert html.count('class="step"') == 3 and "101 + 7 tokens" in html
    assert '<span class="d-add">+    return a + b</span>' in html
    assert '<span class="d-del">-    return a - b</span>' in html
    assert re.search(r"tests/test_hidden.py::test_add</code></td><td class=\"role\">F → P</td>"
                     r"<td class=\"t-failed\">failed", html)
    assert "<strong>test_file_edit</strong>" in html and "policy" in html
    assert "c" * 40 in html and _key(world, "cand", "t2") in html


def test_a_tampered_grade_shows_its_evidence_and_the_flags_their_lines(
        world: ViewerWorld, tmp_path: Path) -> None:
    html = (_site(world, tmp_path) / "attempts" / f"{_key(world, 'cand', 't2')}.html").read_text()
    assert "<strong>tampered</strong>" in html and "canary test_kalo must fail and passed" in html
    assert "<code>calc/conftest.py</code>" in html
    assert "<strong>calls_os_exit</strong> at <code>calc/x.py:3</code>" in html


def test_a_long_observation_is_cut_and_linked_in_full(world: ViewerWorld, tmp_path: Path) -> None:
    site = _site(world, tmp_path)
    key = _key(world, "cand", "t1")
    html = (site / "attempts" / f"{key}.html").read_text()
    assert f'<a href="{key}/step-0.txt">the whole observation</a>' in html
    assert "x" * 10_000 not in html
    assert (site / "attempts" / key / "step-0.txt").read_text() == "x" * 10_000 + "0"


def test_conversation_is_rendered_with_its_call(world: ViewerWorld, tmp_path: Path) -> None:
    html = (_site(world, tmp_path) / "attempts" / f"{_key(world, 'base', 't2')}.html").read_text()
    assert html.count('class="msg role-') == 4
    assert 'bash({&#34;command&#34;: &#34;ls &lt;b&gt;bold&lt;/b&gt;&#34;})' in html
    assert "call 0: 120 + 30 tokens" in html


def test_grid_links_every_cell_and_task(world: ViewerWorld, tmp_path: Path) -> None:
    site = _site(world, tmp_path)
    grid = (site / "grid.html").read_text()
    links = re.findall(r'href="(attempts/[0-9a-f]+\.html)"', grid)
    assert len(links) == 4 and all((site / link).is_file() for link in links)
    assert all((site / f"tasks/{t}.html").is_file() for t in ("t1", "t2"))


def test_task_page_shows_each_rep_and_the_flaky_tests(tmp_path: Path) -> None:
    w = ViewerWorld(tmp_path / "w", ("t1",), agents=("base",))
    reps = []
    for rep, status in enumerate(("passed", "failed")):
        key = f"{rep:064x}"
        w.store.put("grade", key, {"task_id": "t1", "outcome": "resolved", "resolved": True,
                                   "tests": {"tests/test_visible.py::test_zero": status}})
        reps.append(key)
    verdict = next(iter(w.store.query("verdict")))
    path = w.store.record_path("verdict", verdict["key"])
    path.write_text(path.read_text().replace('"gold_grades":[]', f'"gold_grades":{reps}'
                                             .replace("'", '"')))
    html = (render_site("mini", out_root=tmp_path / "out", **w.kwargs).parent
            / "tasks" / "t1.html").read_text()
    assert '<th>gold 0</th><th>gold 1</th>' in html
    assert re.search(r'<ul id="flaky"><li><code>tests/test_visible.py::test_zero', html)


def test_an_attempt_without_a_record_shows_its_infra_errors(tmp_path: Path) -> None:
    w = ViewerWorld(tmp_path / "w", ("t1",), agents=("base",))
    w.outcome("base", "t1", 0, "error")
    html = (render_site("mini", out_root=tmp_path / "out", **w.kwargs).parent / "attempts"
            / f"{_key(w, 'base', 't1')}.html").read_text()
    assert "1 infra error(s)" in html and "No attempt record in the store yet" in html


@pytest.mark.parametrize("path", ["../index.html", "attempts/../../x.html", "attempts/zz.html",
                                  "tasks/nope.html", f"attempts/{'0' * 64}.html", "x.css"])
def test_unknown_paths_have_no_page(world: ViewerWorld, path: str) -> None:
    assert report_site("mini", **world.kwargs).page(path) is None


def test_rewriting_replaces_the_whole_site(world: ViewerWorld, tmp_path: Path) -> None:
    site = _site(world, tmp_path)
    (site / "stale.html").write_text("old")
    assert _site(world, tmp_path) == site and not (site / "stale.html").exists()
    assert not [p for p in site.parent.iterdir() if p.name.startswith(".")]


def test_hostile_text_reaches_the_page_as_text(world: ViewerWorld) -> None:
    body = report_site("mini", **world.kwargs).page(
        f"attempts/{_key(world, 'base', 't1')}/test-output.txt")
    assert body == f"test output {HOSTILE}\n".encode()


def test_records_with_only_the_fields_every_version_has_render(tmp_path: Path) -> None:
    from tests.reports._world import World

    w = World(tmp_path / "w", ("t1", "t2", "t3"), samples=2, verdicts={"t3": "broken-gold"})
    w.outcomes("base", {"t1": "RF", "t2": "PU"})
    w.outcomes("cand", {"t1": "EQ", "t2": "-R"})
    site = render_site("mini", out_root=tmp_path / "out", **w.kwargs).parent
    assert len(list(site.glob("attempts/*.html"))) == 2 * 2 * 2
    assert "broken-gold" in (site / "tasks" / "t3.html").read_text()


def test_doit_report_writes_the_site_and_prints_its_index(
        world: ViewerWorld, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from evaluator.reports import report_tasks

    for var, path in (("EVAL_STORE", world.store.root), ("EVAL_TASKS", world.tasks_root),
                      ("EVAL_LOCK_DIR", world.lock_dir), ("EVAL_EVALS", world.evals_root),
                      ("EVAL_AGENTS", world.agents_root), ("EVAL_REPORTS", tmp_path / "out")):
        monkeypatch.setenv(var, str(path))
    func, args = next(report_tasks(["mini"]))["actions"][0]
    assert func(*args) is None
    index = tmp_path / "out" / "mini" / "site" / "index.html"
    assert f"site: {index}" in capsys.readouterr().out.splitlines()
    assert (index.parent / "forest.png").read_bytes() == \
        (tmp_path / "out" / "mini" / "forest.png").read_bytes()


def test_the_report_command_writes_the_site_too(world: ViewerWorld, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    from evaluator.__main__ import main

    assert main(["report", "--set", "mini", "--reports", str(tmp_path / "out"),
                 "--store", str(world.store.root), "--tasks", str(world.tasks_root),
                 "--lock-dir", str(world.lock_dir), "--evals", str(world.evals_root),
                 "--agents", str(world.agents_root)]) == 0
    index = tmp_path / "out" / "mini" / "site" / "index.html"
    assert f"site: {index}" in capsys.readouterr().out and index.is_file()


def test_task_page_says_what_the_image_leaks(tmp_path: Path) -> None:
    import dataclasses

    w = ViewerWorld(tmp_path / "w", ("t1", "t2"), agents=("base",))
    history = {"leaks": True, "later_commits": 4, "later_objects": 9,
               "findings": {"ref": ["refs/heads/fix 1234"]}, "gold": []}
    pins = {**w.lock.tasks, "t1": dataclasses.replace(w.lock.pin("t1"), history=history)}
    (w.lock_dir / "mini.lock").write_bytes(dataclasses.replace(w.lock, tasks=pins).to_json())
    site = render_site("mini", out_root=tmp_path / "out", **w.kwargs).parent
    leaky = (site / "tasks" / "t1.html").read_text()
    assert "4 commit(s) beyond the base&#39;s history; refs refs/heads/fix" in leaky
    assert "saw only its seal" in leaky and 'id="leaks"' not in (site / "tasks" / "t2.html").read_text()


def test_task_page_says_its_exploits_were_not_checked(tmp_path: Path) -> None:
    """Issue 31: a valid task outside the set's exploit sample says so, and which families."""
    import json

    w = ViewerWorld(tmp_path / "w", ("t1", "t2"), agents=("base",))
    verdict = next(v for v in w.store.query("verdict") if v["task_id"] == "t1")
    path = w.store.record_path("verdict", verdict["key"])
    path.write_text(json.dumps({**json.loads(path.read_text()),
                                "exploits_not_checked": ["exit-zero", "known-ids"],
                                "exploit_sample": "not in the sample of 1 task(s) per runner and "
                                                  "layout (junit: package, tests beside it)"}))
    site = render_site("mini", out_root=tmp_path / "out", **w.kwargs).parent
    page = (site / "tasks" / "t1.html").read_text()
    assert re.search(r'id="exploits-not-checked">Not checked: .* this one is not in the sample '
                     r"of 1 task\(s\) per runner and layout \(junit: package, tests beside it\)\. "
                     r"The families not run on it: <code>exit-zero</code>, <code>known-ids</code>",
                     page), page
    assert "exploits-not-checked" not in (site / "tasks" / "t2.html").read_text()
