"""Version constraints ("ranges") such as ``>=1.2.0 <2.0.0`` or ``^1.4 || ~0.9``.

A constraint is a disjunction (``||``) of alternatives; every alternative is a
conjunction of comparators separated by whitespace.  Caret, tilde and
wildcard forms are desugared into plain comparators when parsed, so that
``^1.2.3`` becomes ``>=1.2.3 <2.0.0``.

Pre-release versions are treated the way npm treats them: a version such as
``1.3.0-beta.1`` only satisfies an alternative if one of its comparators also
names a pre-release of ``1.3.0``, unless ``include_prerelease=True`` is given.
That keeps ``>=1.2.0`` from silently selecting unstable releases.
"""

import operator
import re

from .errors import InvalidConstraint, InvalidVersion
from .version import Version, parse

_OPERATORS = {
    "=": operator.eq,
    "==": operator.eq,
    "!=": operator.ne,
    ">": operator.gt,
    ">=": operator.ge,
    "<": operator.lt,
    "<=": operator.le,
}

_TOKEN_RE = re.compile(r"(\^|~|==|!=|>=|<=|=|>|<)?\s*([^\s<>=!~^|]+)")
_PARTIAL_RE = re.compile(
    r"^v?(?P<major>\d+|[xX*])"
    r"(?:\.(?P<minor>\d+|[xX*]))?"
    r"(?:\.(?P<patch>\d+|[xX*]))?"
    r"(?P<rest>[-+].*)?$"
)
_WILDCARDS = {"x", "X", "*"}


class Comparator:
    """A single ``<op> <version>`` test, e.g. ``>=1.2.0``."""

    __slots__ = ("op", "version")

    def __init__(self, op, version):
        if op not in _OPERATORS:
            raise ValueError(f"unknown operator {op!r}")
        self.op = "=" if op == "==" else op
        self.version = parse(version)

    def test(self, version):
        """Return True if ``version`` passes this comparator."""
        return _OPERATORS[self.op](parse(version), self.version)

    def __eq__(self, other):
        if not isinstance(other, Comparator):
            return NotImplemented
        return (self.op, str(self.version)) == (other.op, str(other.version))

    def __hash__(self):
        return hash((self.op, str(self.version)))

    def __str__(self):
        return f"{self.op}{self.version}"

    def __repr__(self):
        return f"Comparator({str(self)!r})"


class Constraint:
    """A parsed constraint: a list of alternatives, each a list of comparators."""

    def __init__(self, alternatives, source=None):
        self.alternatives = [list(alt) for alt in alternatives]
        self.source = source

    def allows(self, version, *, include_prerelease=False):
        """Return True if ``version`` satisfies at least one alternative."""
        version = parse(version)
        for comparators in self.alternatives:
            if not all(comparator.test(version) for comparator in comparators):
                continue
            if version.is_prerelease and not include_prerelease:
                if not _prerelease_allowed(version, comparators):
                    continue
            return True
        return False

    def filter(self, versions, *, include_prerelease=False):
        """Yield the items of ``versions`` that satisfy the constraint."""
        for item in versions:
            if self.allows(item, include_prerelease=include_prerelease):
                yield item

    def __str__(self):
        if self.source is not None:
            return self.source
        return " || ".join(
            " ".join(str(c) for c in alt) if alt else "*" for alt in self.alternatives
        )

    def __repr__(self):
        return f"Constraint({str(self)!r})"


def _prerelease_allowed(version, comparators):
    """npm rule: a pre-release only matches if a comparator names the same release."""
    return any(
        c.version.is_prerelease and c.version.release == version.release for c in comparators
    )


def _expand_partial(op, text, source):
    """Turn one token (operator + possibly partial version) into comparators."""
    match = _PARTIAL_RE.match(text)
    if not match:
        raise InvalidConstraint(source, f"cannot parse version {text!r}")
    parts = [match.group("major"), match.group("minor"), match.group("patch")]
    rest = match.group("rest") or ""
    # Number of leading components that are concrete numbers.
    given = 0
    for part in parts:
        if part is None or part in _WILDCARDS:
            break
        given += 1
    if any(part is not None and part not in _WILDCARDS for part in parts[given:]):
        raise InvalidConstraint(source, f"wildcard followed by a number in {text!r}")
    if rest and given < 3:
        raise InvalidConstraint(source, f"pre-release/build on a partial version {text!r}")
    numbers = [int(part) for part in parts[:given]] + [0] * (3 - given)

    try:
        lower = Version.parse("{}.{}.{}{}".format(*numbers, rest))
    except InvalidVersion as exc:
        raise InvalidConstraint(source, str(exc)) from None

    if given == 0:
        # "*", "x", ">=*", ...: anything goes, except an impossible "<*" / ">*".
        if op in ("<", ">", "!="):
            return [Comparator("<", Version(0, 0, 0))]
        return []

    if op == "^":
        if given == 3 and numbers[0] == 0 and numbers[1] == 0:
            upper = Version(0, 0, numbers[2] + 1)
        elif numbers[0] == 0 and given >= 2:
            upper = Version(0, numbers[1] + 1, 0)
        else:
            upper = Version(numbers[0] + 1, 0, 0)
        return [Comparator(">=", lower), Comparator("<", upper)]

    if op == "~":
        if given == 1:
            upper = Version(numbers[0] + 1, 0, 0)
        else:
            upper = Version(numbers[0], numbers[1] + 1, 0)
        return [Comparator(">=", lower), Comparator("<", upper)]

    if given == 3:
        return [Comparator(op or "=", lower)]

    # A partial version ("1", "1.2", "1.2.x") with a plain operator.
    if given == 1:
        upper = Version(numbers[0] + 1, 0, 0)
    else:
        upper = Version(numbers[0], numbers[1] + 1, 0)
    if op in (None, "=", "=="):
        return [Comparator(">=", lower), Comparator("<", upper)]
    if op == ">":
        return [Comparator(">=", upper)]
    if op == ">=":
        return [Comparator(">=", lower)]
    if op == "<":
        return [Comparator("<", lower)]
    if op == "<=":
        return [Comparator("<", upper)]
    raise InvalidConstraint(source, f"operator {op!r} needs a full version, got {text!r}")


def parse_constraint(text):
    """Parse a constraint string into a :class:`Constraint`."""
    if isinstance(text, Constraint):
        return text
    if not isinstance(text, str):
        raise TypeError(f"expected a constraint string, got {type(text).__name__}")
    alternatives = []
    for chunk in text.split("||"):
        chunk = chunk.strip()
        comparators = []
        position = 0
        while position < len(chunk):
            if chunk[position].isspace():
                position += 1
                continue
            match = _TOKEN_RE.match(chunk, position)
            if not match:
                raise InvalidConstraint(text, f"unexpected input at {chunk[position:]!r}")
            op, version_text = match.group(1), match.group(2)
            comparators.extend(_expand_partial(op, version_text, text))
            position = match.end()
        if not chunk and len(text.split("||")) > 1:
            raise InvalidConstraint(text, "empty alternative")
        alternatives.append(comparators)
    return Constraint(alternatives, source=text.strip())


def satisfies(version, constraint, *, include_prerelease=False):
    """Return True if ``version`` satisfies ``constraint`` (strings accepted)."""
    return parse_constraint(constraint).allows(version, include_prerelease=include_prerelease)


def max_satisfying(versions, constraint, *, include_prerelease=False):
    """Return the highest item of ``versions`` satisfying ``constraint``, or None."""
    parsed = parse_constraint(constraint)
    best = None
    best_version = None
    for item in versions:
        candidate = parse(item)
        if not parsed.allows(candidate, include_prerelease=include_prerelease):
            continue
        if best_version is None or candidate > best_version:
            best, best_version = item, candidate
    return best
