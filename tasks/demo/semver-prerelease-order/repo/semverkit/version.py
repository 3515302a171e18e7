"""The :class:`Version` type and the :func:`parse` entry point."""

import functools
import re

from .errors import InvalidVersion
from .identifiers import coerce_identifiers, split_identifiers

_CORE = r"(0|[1-9]\d*)"
_VERSION_RE = re.compile(
    rf"^v?{_CORE}\.{_CORE}\.{_CORE}"
    r"(?:-(?P<prerelease>[0-9A-Za-z.-]+))?"
    r"(?:\+(?P<build>[0-9A-Za-z.-]+))?$"
)


@functools.total_ordering
class Version:
    """An immutable semantic version.

    Instances compare by *precedence* as defined by SemVer 2.0.0: major,
    minor and patch numerically, then the pre-release identifiers.  Build
    metadata is kept (and shown by :func:`str`) but never affects ordering or
    equality.
    """

    __slots__ = ("major", "minor", "patch", "prerelease", "build")

    def __init__(self, major, minor=0, patch=0, prerelease=None, build=None):
        source = f"{major}.{minor}.{patch}"
        for name, number in (("major", major), ("minor", minor), ("patch", patch)):
            if not isinstance(number, int) or isinstance(number, bool):
                raise TypeError(f"{name} must be an int, got {type(number).__name__}")
            if number < 0:
                raise InvalidVersion(source, f"{name} must not be negative")
        object.__setattr__(self, "major", major)
        object.__setattr__(self, "minor", minor)
        object.__setattr__(self, "patch", patch)
        object.__setattr__(
            self, "prerelease", coerce_identifiers(prerelease, kind="prerelease", source=source)
        )
        object.__setattr__(self, "build", coerce_identifiers(build, kind="build", source=source))

    def __setattr__(self, name, value):
        raise AttributeError("Version objects are immutable")

    # -- constructors -------------------------------------------------------

    @classmethod
    def parse(cls, text):
        """Parse ``text`` (e.g. ``"1.2.3-rc.1+build.5"``) into a Version.

        A single leading ``v`` is tolerated, as in git tags (``v1.2.3``).
        """
        if not isinstance(text, str):
            raise TypeError(f"expected a version string, got {type(text).__name__}")
        stripped = text.strip()
        match = _VERSION_RE.match(stripped)
        if not match:
            raise InvalidVersion(text)
        major, minor, patch = (int(match.group(i)) for i in (1, 2, 3))
        prerelease = match.group("prerelease")
        build = match.group("build")
        version = cls(major, minor, patch)
        if prerelease is not None:
            object.__setattr__(
                version, "prerelease", split_identifiers(prerelease, kind="prerelease", source=text)
            )
        if build is not None:
            object.__setattr__(version, "build", split_identifiers(build, kind="build", source=text))
        return version

    # -- derived values -----------------------------------------------------

    @property
    def is_prerelease(self):
        """True if the version carries pre-release identifiers."""
        return bool(self.prerelease)

    @property
    def release(self):
        """The ``(major, minor, patch)`` triple."""
        return (self.major, self.minor, self.patch)

    def finalize(self):
        """Return this version without pre-release identifiers and build metadata."""
        return Version(self.major, self.minor, self.patch)

    def bump_major(self):
        """Return the next major version (``1.4.2`` -> ``2.0.0``)."""
        return Version(self.major + 1, 0, 0)

    def bump_minor(self):
        """Return the next minor version (``1.4.2`` -> ``1.5.0``)."""
        return Version(self.major, self.minor + 1, 0)

    def bump_patch(self):
        """Return the next patch version.

        A pre-release of a patch version is bumped to that patch version
        itself: ``1.4.2-rc.1`` -> ``1.4.2``, as ``npm version patch`` does.
        """
        if self.prerelease:
            return self.finalize()
        return Version(self.major, self.minor, self.patch + 1)

    # -- comparison ---------------------------------------------------------

    def _compare_key(self):
        # Build metadata does not take part in precedence (SemVer section 10).
        return (self.major, self.minor, self.patch, self.prerelease)

    def __eq__(self, other):
        if isinstance(other, str):
            other = Version.parse(other)
        if not isinstance(other, Version):
            return NotImplemented
        return self._compare_key() == other._compare_key()

    def __lt__(self, other):
        if isinstance(other, str):
            other = Version.parse(other)
        if not isinstance(other, Version):
            return NotImplemented
        return self._compare_key() < other._compare_key()

    def __hash__(self):
        return hash(self._compare_key())

    # -- presentation -------------------------------------------------------

    def __str__(self):
        text = f"{self.major}.{self.minor}.{self.patch}"
        if self.prerelease:
            text += "-" + ".".join(self.prerelease)
        if self.build:
            text += "+" + ".".join(self.build)
        return text

    def __repr__(self):
        return f"Version({str(self)!r})"


def parse(text):
    """Parse a version string; shorthand for :meth:`Version.parse`."""
    if isinstance(text, Version):
        return text
    return Version.parse(text)


def sort_versions(versions, *, reverse=False):
    """Sort version strings or :class:`Version` objects by precedence.

    The items are returned as given (strings stay strings).
    """
    return sorted(versions, key=parse, reverse=reverse)
