"""An in-memory user repository.

In production this is backed by the accounts database; the in-memory version
keeps the same interface and counts how often it is queried, which the tests
use to check that the cache actually saves round trips.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from typing import Dict, Optional


class UserNotFound(LookupError):
    """Raised when a user id or e-mail address is unknown."""


@dataclass(frozen=True)
class User:
    id: int
    email: str
    name: str
    active: bool = True
    roles: tuple = field(default_factory=tuple)


class UserRepository:
    """Stores :class:`User` records keyed by id."""

    def __init__(self) -> None:
        self._users: Dict[int, User] = {}
        self._next_id = 1
        self.queries = 0

    def create(self, email: str, name: str, roles: tuple = ()) -> User:
        user = User(id=self._next_id, email=email.lower(), name=name, roles=tuple(roles))
        self._users[user.id] = user
        self._next_id += 1
        return user

    def get(self, user_id: int) -> Optional[User]:
        self.queries += 1
        return copy.copy(self._users.get(user_id))

    def find_by_email(self, email: str) -> Optional[User]:
        self.queries += 1
        email = email.lower()
        for user in self._users.values():
            if user.email == email:
                return user
        return None

    def update(self, user_id: int, **changes) -> User:
        try:
            current = self._users[user_id]
        except KeyError:
            raise UserNotFound(user_id) from None
        if "email" in changes:
            changes["email"] = changes["email"].lower()
        updated = replace(current, **changes)
        self._users[user_id] = updated
        return updated

    def delete(self, user_id: int) -> None:
        if self._users.pop(user_id, None) is None:
            raise UserNotFound(user_id)
