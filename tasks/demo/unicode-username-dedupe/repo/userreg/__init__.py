"""userreg - a small user registry with case-insensitive usernames."""

from .errors import InvalidUsername, RegistryError, UnknownUser, UsernameTaken
from .normalize import canonical_username, same_username
from .registry import User, UserRegistry
from .slugs import slugify
from .validation import validate_username

__all__ = [
    "InvalidUsername",
    "RegistryError",
    "UnknownUser",
    "User",
    "UserRegistry",
    "UsernameTaken",
    "canonical_username",
    "same_username",
    "slugify",
    "validate_username",
]

__version__ = "2.3.0"
