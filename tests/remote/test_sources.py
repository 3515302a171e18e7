"""A report given a Store reads through that store's remote, not one named by the environment."""

from __future__ import annotations

import pytest

from evaluator.reports._sources import Sources
from tests.remote.support import KEY, MakeStore, put_attempt


def test_an_injected_store_keeps_its_remote(make_store: MakeStore,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EVAL_REMOTE", raising=False)
    first, second = make_store(), make_store()
    put_attempt(first)
    opened = Sources.of(store=second).open_store()
    assert opened is second and opened.get("attempt", KEY) is not None  # read through its remote
    assert Sources.of(store=second.root).open_store().remote is None  # a path: $EVAL_REMOTE's
