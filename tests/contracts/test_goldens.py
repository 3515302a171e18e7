"""The goldens themselves, without an engine: each contract has its conformance test and goldens
recorded for the version in force (a bump that was not followed by `make goldens` fails here
on every machine), and recording refuses to replace a golden of the version in force."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from evaluator.version import CONTRACTS
from tests.contracts import golden

REPO = Path(__file__).resolve().parents[2]


def test_every_contract_has_its_test_and_goldens_of_its_version() -> None:
    for c in CONTRACTS.values():
        assert (REPO / c.goldens).is_file(), f"{c.name}: no conformance test {c.goldens}"
        files = sorted((golden.GOLDENS / c.name).glob("*.json"))
        assert files, f"{c.name}: no goldens under {golden.GOLDENS / c.name}: `make goldens`"
        for f in files:
            stored = json.loads(f.read_text())
            assert (stored["contract"], stored["version"]) == (c.name, c.version), (
                f"{f} was recorded for version {stored['version']} of {c.name!r}, which is at "
                f"{c.version}: `make goldens CONTRACT={c.name}`")


def test_no_golden_belongs_to_no_contract() -> None:
    assert {d.name for d in golden.GOLDENS.iterdir()} <= set(CONTRACTS)


@pytest.fixture
def goldens(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(golden, "GOLDENS", tmp_path / "tests" / "contracts" / "goldens")
    monkeypatch.delenv("EVAL_RECORD_GOLDENS", raising=False)
    return golden.GOLDENS


def test_a_moved_behaviour_fails_until_bumped_and_recorded(goldens: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(pytest.fail.Exception, match="no golden"):
        golden.check("verdict", "case", {"a": 1})
    monkeypatch.setenv("EVAL_RECORD_GOLDENS", "verdict")
    golden.check("verdict", "case", {"a": 1})  # recorded for the version in force
    with pytest.raises(pytest.fail.Exception, match="never replaced"):
        golden.check("verdict", "case", {"a": 2})  # recording does not hide a moved behaviour
    monkeypatch.delenv("EVAL_RECORD_GOLDENS")
    golden.check("verdict", "case", {"a": 1})
    v = CONTRACTS["verdict"].version
    with pytest.raises(pytest.fail.Exception, match=rf"behaviour moved.*version {v} -> {v + 1}"
                       ) as info:
        golden.check("verdict", "case", {"a": 2})
    assert '- "a": 1' in str(info.value) and '+ "a": 2' in str(info.value)
    bumped = dataclasses.replace(CONTRACTS["verdict"], log=(*CONTRACTS["verdict"].log, "a change"))
    monkeypatch.setitem(CONTRACTS, "verdict", bumped)
    with pytest.raises(pytest.fail.Exception, match=rf"recorded for version {v} .* now at {v + 1}"):
        golden.check("verdict", "case", {"a": 2})
    monkeypatch.setenv("EVAL_RECORD_GOLDENS", "all")
    golden.check("verdict", "case", {"a": 2})  # after the bump it is recorded
    assert json.loads((goldens / "verdict" / "case.json").read_text())["version"] == v + 1
