"""doit's task loading reads each planned attempt through its typed record, and one record that
does not parse leaves its own grade target to fail, not every command."""

from __future__ import annotations

from pathlib import Path

from evaluator.pipeline._evaljobs import _stored_attempt
from evaluator.store import Store

KEY = "ab" * 32
ATTEMPT = {"task_set": "s", "task_id": "t", "sample_idx": 0, "subject": "a", "patch": "0" * 64,
           "exit_reason": "submitted", "cost": {"total_usd": 0.0}}


def test_an_attempt_that_does_not_parse_is_stored_but_unread(tmp_path: Path) -> None:
    store = Store(tmp_path / "store")
    assert _stored_attempt(store, KEY) == (False, None)
    store.put("attempt", KEY, {**ATTEMPT, "patch": None})  # the KeyError of task loading once
    assert _stored_attempt(store, KEY) == (True, None)


def test_an_attempt_with_a_field_this_code_does_not_know_reads(tmp_path: Path) -> None:
    store = Store(tmp_path / "store")
    store.put("attempt", KEY, {**ATTEMPT, "later": "a newer harness's field"})
    stored, attempt = _stored_attempt(store, KEY)
    assert stored and attempt is not None and attempt.patch == "0" * 64
