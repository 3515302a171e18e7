"""The capability list users read names every rule the code applies, and no other."""

import re
from pathlib import Path

from evaluator.policy import FLAGS, VIOLATIONS

_README = Path(__file__).resolve().parents[2] / "evaluator" / "policy" / "README.md"


def test_every_rule_has_its_section_with_a_reason() -> None:
    text = _README.read_text(encoding="utf-8")
    sections = dict(re.findall(r"^### `(\w+)`[^\n]*\n(.*?)(?=^### |^## |\Z)", text, re.M | re.S))
    assert set(sections) == set(VIOLATIONS | FLAGS)
    assert all("*Why" in body for body in sections.values())
