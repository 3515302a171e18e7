"""Per-test results from a JUnit XML report: the only source of truth for what passed.

Stdout is never read for results; the code under test can print anything it likes.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass

from evaluator.errors import AgentError

PASSED, FAILED, ERROR, SKIPPED = "passed", "failed", "error", "skipped"
_RANK = {PASSED: 0, SKIPPED: 1, FAILED: 2, ERROR: 3}


class ReportError(AgentError):
    """The test report is missing, malformed or contradicts the runner's exit status."""


NODEID_PROPERTY = "evaluator.nodeid"


def node_id(classname: str, name: str, file: str | None) -> str:
    """For reports without pytest's own id: a node id when the report names the file (xunit1)
    and the class lives in it, else `classname::name`."""
    if file and file.endswith(".py"):
        module = file[:-3].replace("/", ".")
        if classname == module:
            return f"{file}::{name}"
        if classname.startswith(module + "."):
            inner = classname[len(module) + 1 :].replace(".", "::")
            return f"{file}::{inner}::{name}"
    return f"{classname}::{name}" if classname else name


@dataclass(frozen=True)
class JunitReport:
    """Per-test results; `own` is what the grader's plugin named (pytest's node ids), `messages`
    the failure text of each failed or errored test."""

    tests: dict[str, str]
    own: dict[str, str]
    messages: dict[str, str]


def parse_junit(xml: bytes) -> dict[str, str]:
    """Map each test id to passed, failed, error or skipped.

    An id reported twice keeps its worst outcome, so a forged extra `<testcase>` cannot turn a
    failure into a pass.
    """
    return read_junit(xml).tests


def read_junit(xml: bytes) -> JunitReport:
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as exc:
        raise ReportError(f"the JUnit report is not valid XML: {exc}") from None
    results: dict[str, str] = {}
    own: dict[str, str] = {}
    messages: dict[str, str] = {}
    for case in root.iter("testcase"):
        mine = _own_id(case)
        tid = mine or node_id(case.get("classname", ""), case.get("name", ""), case.get("file"))
        children = {child.tag: child for child in case}
        status = (
            ERROR if "error" in children
            else FAILED if "failure" in children
            else SKIPPED if "skipped" in children
            else PASSED
        )
        bad = children.get("failure", children.get("error"))
        if bad is not None:
            messages[tid] = messages.get(tid, "") + (bad.get("message") or "") + (bad.text or "")
        for into in (results, own) if mine else (results,):
            if tid not in into or _RANK[status] > _RANK[into[tid]]:
                into[tid] = status
    return JunitReport(results, own, messages)


def _own_id(case: ET.Element) -> str | None:
    """The node id pytest itself gave the test, where the grader's plugin recorded it."""
    for prop in case.iterfind("properties/property"):
        if prop.get("name") == NODEID_PROPERTY and prop.get("value"):
            return prop.get("value")
    return None
