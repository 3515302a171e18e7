"""The declarations: every harness file has a decision (a contract speaks for it, or it is
listed as neutral with the reason), no file has two contracts, versions move only by their
change logs, labels read back, and docs/contracts.md is what the declarations write."""

from __future__ import annotations

from pathlib import Path

from evaluator.version import (
    CONTRACTS,
    KINDS,
    PACKAGE,
    Contract,
    contract_versions,
    covering,
    harness_version,
    label,
    markdown,
    parse_label,
    stand_in,
)

REPO = Path(__file__).resolve().parents[2]


def _files() -> list[str]:
    return sorted(p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts)


def test_every_harness_file_is_covered_by_a_contract_or_listed_as_neutral() -> None:
    missing = [f for f in _files() if covering(f) is None]
    assert not missing, (f"no behaviour contract speaks for {missing} and none is listed as "
                         "neutral: add it to a contract's `paths` or to NEUTRAL, with the reason, "
                         "in evaluator/version/_declared.py")


def test_no_file_has_two_contracts_and_every_path_matches_a_file() -> None:
    files = _files()
    for f in files:
        owners = [c.name for c in CONTRACTS.values() if c.covers(f)]
        assert len(owners) <= 1, f"{f} is claimed by {owners}"
    for c in CONTRACTS.values():
        for pattern in c.paths:
            assert any(Contract(c.name, "", "", (), (pattern,), "").covers(f) for f in files), (
                f"{c.name}: {pattern!r} matches no file of the harness (moved? update it)")


def test_a_version_is_the_length_of_its_change_log() -> None:
    for c in CONTRACTS.values():
        assert c.version == len(c.log) >= 1 and all(line.strip() for line in c.log)
    assert all(set(names) <= set(CONTRACTS) for names in KINDS.values())


def test_labels_name_each_version_and_read_back() -> None:
    assert harness_version("grader") == label(contract_versions("grader"))
    assert parse_label(harness_version("attempt")) == contract_versions("attempt")
    assert parse_label("c43f2f64f1bcc536fbc48ec43e4d70ae") == {}  # a source hash of old
    assert parse_label("reference-agent-v2+grader-v10") == {"reference-agent": 2, "grader": 10}


def test_a_harness_module_stands_in_by_its_contract_and_others_by_nothing() -> None:
    assert stand_in(PACKAGE / "sandbox" / "_stream.py") == f"contract:{CONTRACTS['sandbox'].tag}"
    assert stand_in(PACKAGE / "console.py") == "harness:neutral"
    assert stand_in(REPO / "agents" / "mini-swe-agent" / "mswea_adapter.py") is None


def test_docs_contracts_md_is_what_the_declarations_write() -> None:
    assert (REPO / "docs" / "contracts.md").read_text() == markdown(), (
        "docs/contracts.md is stale: `make contracts-doc`")
