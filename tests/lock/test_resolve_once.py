"""Locking a set asks each distinct question once (a tag's digest, a ref's commit in an image),
several at a time, and not again where the previous lock answered it for the same image content
(issue 31: one container per task made `doit lock` of 1,000 tasks sharing an image 44 min)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
import yaml

from evaluator.errors import BadInputError, InfraError
from evaluator.lock import fan_out, known_commits, resolve_lock
from evaluator.taskset import load_task_set
from tests.lock.support import CountingResolver, FakeResolver, shared_set


def test_each_distinct_question_is_asked_once(tmp_path: Path) -> None:
    ts = shared_set(tmp_path, images=2, commits=3, tasks=24)
    resolver = CountingResolver()
    lock = resolve_lock(ts, resolver, jobs=4)
    assert len(lock.tasks) == 24
    assert sorted(resolver.images) == ["acme/img-0:1", "acme/img-1:1"]
    assert len(resolver.commits) == len(set(resolver.commits)) == 6  # 2 images x 3 refs
    one = resolve_lock(ts, CountingResolver(), jobs=1)
    assert one.version == lock.version  # in parallel or not, the same lock


def test_questions_run_at_once_up_to_jobs(tmp_path: Path) -> None:
    ts = shared_set(tmp_path, images=1, commits=4, tasks=8)
    met = threading.Barrier(4, timeout=30)  # four commit questions must be in flight together
    resolver = CountingResolver(on_commit=met.wait)
    resolve_lock(ts, resolver, jobs=4)
    assert len(resolver.commits) == 4


def test_the_previous_lock_answers_for_unchanged_tasks(tmp_path: Path) -> None:
    ts = shared_set(tmp_path, images=2, commits=3, tasks=12)
    first = resolve_lock(ts, CountingResolver(), jobs=2)
    again = CountingResolver()
    relocked = resolve_lock(ts, again, known=known_commits(ts, first), jobs=2)
    assert again.commits == [] and relocked.version == first.version
    # A task whose task.yaml changed (its workdir or user may have) is asked again.
    path = ts.dir / "t-000" / "task.yaml"
    spec = yaml.safe_load(path.read_text())
    path.write_text(yaml.safe_dump({**spec, "user": "2000:2000"}))
    changed = load_task_set(ts.name, ts.dir.parent)
    third = CountingResolver()
    resolve_lock(changed, third, known=known_commits(changed, first), jobs=2)
    assert third.commits == [(FakeResolver().image("acme/img-0:1"), "/testbed", "c0", "2000:2000")]


def test_bad_input_fails_only_the_tasks_it_concerns_and_names_each(tmp_path: Path) -> None:
    ts = shared_set(tmp_path, images=2, commits=2, tasks=8)
    resolver = CountingResolver(bad_ref="c1")
    with pytest.raises(BadInputError) as info:
        resolve_lock(ts, resolver, jobs=4)
    said = str(info.value)
    assert "4 task(s) have problems" in said  # the tasks at ref c1, on either image
    assert all(f"'t-{i:03d}'" in said for i in (2, 3, 6, 7))
    assert "'t-000'" not in said and len(resolver.commits) == 4  # every question asked once


def test_an_infra_error_is_raised_not_blamed_on_tasks() -> None:
    def ask(q: int) -> int:
        if q == 3:
            raise InfraError("engine went away")
        return q

    with pytest.raises(InfraError, match="engine went away"):
        fan_out(ask, range(8), jobs=3)
    assert fan_out(ask, [1, 2, 1, 2], jobs=3) == {1: 1, 2: 2}
