"""The :class:`UserRegistry`."""

from dataclasses import dataclass, field
from datetime import datetime, timezone
from itertools import count

from .errors import UnknownUser, UsernameTaken
from .normalize import canonical_username
from .slugs import unique_slug
from .validation import validate_username


@dataclass
class User:
    """A registered account."""

    id: int
    display_name: str
    slug: str
    email: str = ""
    created: datetime = field(default_factory=lambda: datetime.now(timezone.utc))

    @property
    def username_key(self):
        return canonical_username(self.display_name)


class UserRegistry:
    """Stores users and enforces unique usernames.

    Usernames are unique *after* canonicalisation (see
    :func:`~userreg.canonical_username`), while :attr:`User.display_name`
    keeps the spelling the user chose.
    """

    def __init__(self):
        self._by_key = {}
        self._by_slug = {}
        self._ids = count(1)

    def __len__(self):
        return len(self._by_key)

    def __contains__(self, username):
        return self.is_taken(username)

    def __iter__(self):
        return iter(sorted(self._by_key.values(), key=lambda u: u.id))

    def is_taken(self, username):
        """Whether *username* (or an equivalent spelling) is registered."""
        return canonical_username(username) in self._by_key

    def register(self, username, email=""):
        """Create a new account and return its :class:`User`.

        :raises InvalidUsername: if *username* breaks the username rules.
        :raises UsernameTaken: if an equivalent username is registered.
        """
        key = validate_username(username)
        existing = self._by_key.get(key)
        if existing is not None:
            raise UsernameTaken(username, existing.display_name)
        display = username.strip()
        user = User(
            id=next(self._ids),
            display_name=display,
            slug=unique_slug(display, self._by_slug),
            email=email,
        )
        self._by_key[key] = user
        self._by_slug[user.slug] = user
        return user

    def get(self, username):
        """Return the user registered under *username*.

        :raises UnknownUser: if there is no such user.
        """
        try:
            return self._by_key[canonical_username(username)]
        except KeyError:
            raise UnknownUser(username) from None

    def by_slug(self, slug):
        try:
            return self._by_slug[slug]
        except KeyError:
            raise UnknownUser(slug) from None

    def rename(self, username, new_username):
        """Change a user's username, keeping their id and slug.

        Changing only the capitalisation of one's own name is allowed.
        """
        user = self.get(username)
        new_key = validate_username(new_username)
        holder = self._by_key.get(new_key)
        if holder is not None and holder is not user:
            raise UsernameTaken(new_username, holder.display_name)
        del self._by_key[canonical_username(user.display_name)]
        user.display_name = new_username.strip()
        self._by_key[new_key] = user
        return user

    def delete(self, username):
        user = self.get(username)
        del self._by_key[canonical_username(user.display_name)]
        del self._by_slug[user.slug]
        return user
