"""filestore: local-disk storage for uploads and static files."""

from .errors import FileStoreError, FileTooLarge, NotAllowed, UnsafePathError
from .paths import clean_relative_path, safe_join
from .static import StaticResolver
from .storage import LocalStorage
from .uploads import UploadHandler

__all__ = [
    "FileStoreError",
    "FileTooLarge",
    "LocalStorage",
    "NotAllowed",
    "StaticResolver",
    "UnsafePathError",
    "UploadHandler",
    "clean_relative_path",
    "safe_join",
]

__version__ = "2.1.0"
