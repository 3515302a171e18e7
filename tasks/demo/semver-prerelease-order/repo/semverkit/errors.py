"""Exception types raised by semverkit."""


class SemverError(ValueError):
    """Base class for every error raised by this package."""


class InvalidVersion(SemverError):
    """Raised when a string is not a valid semantic version."""

    def __init__(self, text, reason=None):
        self.text = text
        self.reason = reason
        message = f"invalid version {text!r}"
        if reason:
            message += f": {reason}"
        super().__init__(message)


class InvalidConstraint(SemverError):
    """Raised when a version constraint (range expression) cannot be parsed."""

    def __init__(self, text, reason=None):
        self.text = text
        self.reason = reason
        message = f"invalid constraint {text!r}"
        if reason:
            message += f": {reason}"
        super().__init__(message)
