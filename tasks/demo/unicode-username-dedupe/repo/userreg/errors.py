"""Exceptions raised by :mod:`userreg`."""


class RegistryError(Exception):
    """Base class for all registry errors."""


class InvalidUsername(RegistryError, ValueError):
    """The username does not follow the username rules."""


class UsernameTaken(RegistryError):
    """Another account already uses this username (or one equivalent to it)."""

    def __init__(self, username, existing):
        super().__init__("username %r is already taken by %r" % (username, existing))
        self.username = username
        self.existing = existing


class UnknownUser(RegistryError, KeyError):
    """No account with this username exists."""
