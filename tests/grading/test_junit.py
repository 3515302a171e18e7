import pytest

from evaluator.grading import ReportError, node_id, parse_junit

XML = b"""<?xml version="1.0"?>
<testsuites><testsuite name="pytest">
  <testcase classname="tests.test_a" name="test_ok" file="tests/test_a.py"/>
  <testcase classname="tests.test_a.TestK" name="test_m" file="tests/test_a.py"/>
  <testcase classname="tests.test_a" name="test_bad" file="tests/test_a.py"><failure/></testcase>
  <testcase classname="tests.test_a" name="test_err" file="tests/test_a.py"><error/></testcase>
  <testcase classname="tests.test_a" name="test_skip" file="tests/test_a.py"><skipped/></testcase>
</testsuite></testsuites>"""


def test_pytest_node_ids_from_xunit1() -> None:
    results = parse_junit(XML)
    assert results["tests/test_a.py::test_ok"] == "passed"
    assert results["tests/test_a.py::TestK::test_m"] == "passed"
    assert results["tests/test_a.py::test_bad"] == "failed"
    assert results["tests/test_a.py::test_err"] == "error"
    assert results["tests/test_a.py::test_skip"] == "skipped"


def test_other_runners_use_classname() -> None:
    assert node_id("pkg.TestThing", "test_x", None) == "pkg.TestThing::test_x"


def test_forged_duplicate_pass_cannot_hide_a_failure() -> None:
    forged = XML.replace(b"</testsuite>", b'<testcase classname="tests.test_a" name="test_bad" '
                         b'file="tests/test_a.py"/></testsuite>')
    assert parse_junit(forged)["tests/test_a.py::test_bad"] == "failed"


def test_malformed_report_is_a_report_error() -> None:
    with pytest.raises(ReportError, match="not valid XML"):
        parse_junit(b"<testsuite><testcase")


def test_pytests_own_node_id_wins_over_classname_and_file() -> None:
    xml = b"""<testsuite><testcase classname="tests.test_lru.LRUCacheTest" name="test_missing"
        file="tests/__init__.py"><properties><property name="evaluator.nodeid"
        value="tests/test_lru.py::LRUCacheTest::test_missing"/></properties></testcase>
        <testcase classname="tests.test_x" name="test_p[2 x 3]"><properties><property
        name="evaluator.nodeid" value="tests/test_x.py::test_p[2 x 3]"/></properties>
        <failure/></testcase></testsuite>"""
    assert parse_junit(xml) == {"tests/test_lru.py::LRUCacheTest::test_missing": "passed",
                                "tests/test_x.py::test_p[2 x 3]": "failed"}
