"""Exceptions raised by filestore."""


class FileStoreError(Exception):
    """Base class of every filestore error."""


class UnsafePathError(FileStoreError, ValueError):
    """A user-supplied path would resolve outside the storage root."""


class NotAllowed(FileStoreError):
    """The file type or name is not accepted."""


class FileTooLarge(FileStoreError):
    """The upload exceeds the configured size limit."""
