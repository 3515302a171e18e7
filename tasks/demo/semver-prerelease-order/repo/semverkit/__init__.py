"""semverkit: parse, compare and match Semantic Versioning 2.0.0 versions."""

from .constraints import Comparator, Constraint, max_satisfying, parse_constraint, satisfies
from .errors import InvalidConstraint, InvalidVersion, SemverError
from .version import Version, parse, sort_versions

__all__ = [
    "Comparator",
    "Constraint",
    "InvalidConstraint",
    "InvalidVersion",
    "SemverError",
    "Version",
    "max_satisfying",
    "parse",
    "parse_constraint",
    "satisfies",
    "sort_versions",
]

__version__ = "0.4.1"
