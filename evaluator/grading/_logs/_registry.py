"""Readers by the name a task gives in its `results:` field."""

from __future__ import annotations

from evaluator.errors import BadInputError
from evaluator.grading._logs._django import DjangoReader
from evaluator.grading._logs._protocol import ResultsReader
from evaluator.grading._logs._pytest_log import PytestLogReader
from evaluator.grading._logs._sympy import SympyReader

READERS: dict[str, ResultsReader] = {
    r.name: r for r in (PytestLogReader(), DjangoReader(), SympyReader())
}


def reader_for(name: str) -> ResultsReader:
    """The reader called `name`; BadInputError naming the known ones otherwise."""
    try:
        return READERS[name]
    except KeyError:
        raise BadInputError(f"no test-log reader {name!r}; known: {', '.join(sorted(READERS))} "
                            "(or junit, read from the JUnit XML report)") from None
