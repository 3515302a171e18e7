"""What the rule reads besides the patch: the files the grade read back, and what it left out."""

from evaluator.policy import UNREADABLE
from evaluator.result import findings
from tests.policy.support import changed

_BASE = "import sys as _s\n\n\ndef f():\n    return 1\n"
_NEW = _BASE.replace("return 1", "return _s.modules")


def test_the_read_back_file_is_read_whole() -> None:
    found = findings(changed("pkg/m.py", _BASE, _NEW), [], [], sources={"pkg/m.py": _NEW.encode()})
    assert [v.reason for v in found.violations] == ["reaches_module_table"]
    assert not findings(changed("pkg/m.py", _BASE, _NEW), [], []).violations  # hunk alone


def test_files_the_grade_left_out_are_flags_not_violations() -> None:
    found = findings(b"", [], [], opaque=[{"path": "pkg/x.so", "why": "compiled module"}])
    assert not found.violations and [(f.reason, f.path) for f in found.flags] == [(UNREADABLE, "pkg/x.so")]
