"""Read in context: the new file whole where the grader read it back, else the added runs."""

from evaluator.policy import _rules as R
from evaluator.policy import scan_patch
from tests.grading.cheats import new_file
from tests.policy.support import changed, in_context

_BASE = "import sys as _s\n\n\ndef f(x):\n    y = [\n        x,\n\n    ]\n    return y\n"


def test_an_alias_bound_outside_the_hunk_counts() -> None:
    new = _BASE.replace("        x,\n", "        x,\n        _s._getframe(1),\n")
    assert R.FRAMES in in_context("pkg/m.py", _BASE, new)


def test_code_split_by_a_blank_context_line_is_read_whole() -> None:
    base = "import sys as _s\n\n\ndef f():\n    y = 1\n\n    return y\n"
    new = base.replace("    y = 1\n\n", "    y = getattr(_s,\n\n        'modules')\n")
    assert R.MODULE_TABLE in in_context("pkg/m.py", base, new)
    assert not scan_patch(changed("pkg/m.py", base, new))  # `_s` is bound above the hunk


def test_findings_carry_the_line_in_the_new_file_and_only_added_lines_count() -> None:
    base = "import sys\n\n\ndef f():\n    return sys._getframe()\n"
    new = base + "\n\ndef g():\n    return sys.modules\n"
    found = scan_patch(changed("pkg/m.py", base, new), {"pkg/m.py": new.encode()})
    assert [(f.reason, f.line) for f in found] == [(R.MODULE_TABLE, 9)]


def test_without_the_new_file_each_hunk_is_read_with_its_context() -> None:
    base = "import sys\n\n\ndef f():\n    y = 1\n\n    return y\n"
    new = base.replace("    y = 1\n\n", "    y = getattr(sys,\n\n        'modules')\n")
    found = scan_patch(changed("pkg/m.py", base, new))
    assert [(f.reason, f.line) for f in found] == [(R.MODULE_TABLE, 5)]


def test_tests_and_honest_code_are_quiet() -> None:
    assert not scan_patch(new_file("tests/test_x.py", "import atexit, sys\nsys.modules\n").encode())
    honest = ("import os, sys\nfrom importlib import metadata\nimport importlib\n\n\n"
              "def add(a, b):\n    print(sys.version_info, file=sys.stderr)\n"
              "    j = importlib.import_module('json')\n    return metadata.version('x'), a + b\n")
    assert not scan_patch(new_file("pkg/m.py", honest).encode())
