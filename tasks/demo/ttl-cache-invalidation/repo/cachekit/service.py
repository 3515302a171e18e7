"""A read-through cached service over :class:`UserRepository`.

Two cached views are kept: users by id and users by e-mail address.  Every
write goes to the repository first and then invalidates the affected entries
of *both* views, so a read after a write always sees the new data.
"""

from __future__ import annotations

from typing import Optional

from .memoize import memoize
from .repository import User, UserNotFound, UserRepository
from .ttl_cache import TTLCache

_cache = TTLCache(maxsize=4096, ttl=300)


class UserService:
    """Cached access to users.

    ``cache`` defaults to a module-level cache shared by all services; tests
    pass their own :class:`TTLCache` with a manual clock.
    """

    def __init__(self, repository: UserRepository, cache: Optional[TTLCache] = None) -> None:
        self.repository = repository
        self.cache = cache if cache is not None else _cache

        # Bind the memoized views to this instance's cache.
        self._by_id = memoize(self.cache, namespace="users.by_id")(self._load_by_id)
        self._by_email = memoize(self.cache, namespace="users.by_email")(self._load_by_email)

    # -- loaders (cache misses end up here) -------------------------------

    def _load_by_id(self, user_id: int, *, include_inactive: bool = False) -> Optional[User]:
        user = self.repository.get(user_id)
        if user is not None and not user.active and not include_inactive:
            return None
        return user

    def _load_by_email(self, email: str) -> Optional[User]:
        return self.repository.find_by_email(email)

    # -- reads ------------------------------------------------------------

    def get_user(self, user_id: int, *, include_inactive: bool = False) -> User:
        user = self._by_id(user_id, include_inactive=include_inactive)
        if user is None:
            raise UserNotFound(user_id)
        return user

    def get_user_by_email(self, email: str) -> User:
        user = self._by_email(email.lower())
        if user is None:
            raise UserNotFound(email)
        return user

    # -- writes -----------------------------------------------------------

    def create_user(self, email: str, name: str, roles: tuple = ()) -> User:
        user = self.repository.create(email, name, roles)
        # A failed lookup may have cached ``None`` for this address.
        self._by_email.invalidate(user.email)
        return user

    def update_user(self, user_id: int, **changes) -> User:
        before = self.repository.get(user_id)
        updated = self.repository.update(user_id, **changes)
        self._invalidate(user_id, before.email if before else None, updated.email)
        return updated

    def deactivate_user(self, user_id: int) -> User:
        return self.update_user(user_id, active=False)

    def delete_user(self, user_id: int) -> None:
        before = self.repository.get(user_id)
        self.repository.delete(user_id)
        self._invalidate(user_id, before.email if before else None)

    def _invalidate(self, user_id: int, *emails: Optional[str]) -> None:
        self._by_id.invalidate(user_id)
        self._by_id.invalidate(user_id, include_inactive=True)
        for email in {e for e in emails if e}:
            self._by_email.invalidate(email)
