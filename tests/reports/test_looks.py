"""Repeated looks: the store counts how often a comparison was reported as samples grew."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.reports import compare, console_text, leaderboard_rows, report_summary
from tests.reports._world import World

TASKS = tuple(f"t{i:02d}" for i in range(1, 11))


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World(tmp_path, TASKS, samples=2)
    w.outcomes("base", dict.fromkeys(TASKS, "F-"))  # one sample graded, one pending
    w.outcomes("cand", dict.fromkeys(TASKS, "R-") | {"t01": "F-", "t02": "F-"})
    return w


def test_the_same_data_reported_again_is_the_same_look(world: World) -> None:
    first = compare("mini", "base", "cand", **world.kwargs)
    again = compare("mini", "base", "cand", **world.kwargs)
    swapped = compare("mini", "cand", "base", **world.kwargs)
    assert first["looks"] == again["looks"] == swapped["looks"] == {
        "count": 1, "samples": 20, "earlier_samples": []}
    [stored] = world.store.query("look", task_set="mini")
    assert first == again and stored["subject"].count("|") == 1 and stored["samples"] == 20
    assert set(stored) == {"task_set", "subject", "status", "subjects", "tasks", "samples",
                           "kind", "key", "created", "harness"}  # as a dict, and the build stamp


def test_a_verdict_after_more_samples_says_it_is_a_repeated_look(world: World) -> None:
    compare("mini", "base", "cand", **world.kwargs)
    for task in TASKS:
        world.outcome("base", task, 1, "failed")
        world.outcome("cand", task, 1, "resolved")
    s = report_summary("mini", **world.kwargs)
    (c,) = s["comparisons"]
    assert c["looks"] == {"count": 2, "samples": 40, "earlier_samples": [20]}
    assert "look 2 at this comparison as samples grew (earlier at 20 graded samples, now 40)" \
        in console_text(s)
    assert "`--sequential` lets it decide" in console_text(s)


def test_a_leaderboard_shows_no_verdict_and_is_no_look(world: World) -> None:
    leaderboard_rows("mini", **world.kwargs)
    assert world.store.query("look") == []
    assert report_summary("mini", **world.kwargs)["comparisons"][0]["looks"]["count"] == 1
