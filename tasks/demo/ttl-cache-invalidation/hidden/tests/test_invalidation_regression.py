import pytest

from cachekit import ManualClock, TTLCache, memoize
from cachekit.repository import UserNotFound, UserRepository
from cachekit.service import UserService


@pytest.fixture
def clock():
    return ManualClock()


@pytest.fixture
def service(clock):
    repo = UserRepository()
    repo.create("ada@example.com", "Ada")
    repo.create("bob@example.com", "Bob")
    return UserService(repo, cache=TTLCache(maxsize=64, ttl=300, clock=clock))


def test_update_invalidates_entry(service):
    assert service.get_user(1).name == "Ada"
    service.update_user(1, name="Ada Lovelace")
    assert service.get_user(1).name == "Ada Lovelace"


def test_delete_invalidates_entry(service):
    assert service.get_user(2).name == "Bob"
    service.delete_user(2)
    with pytest.raises(UserNotFound):
        service.get_user(2)


def test_deactivate_hides_cached_user(service):
    assert service.get_user(1).active is True
    service.deactivate_user(1)
    with pytest.raises(UserNotFound):
        service.get_user(1)
    assert service.get_user(1, include_inactive=True).active is False


def test_invalidate_matches_call_that_used_defaults(clock):
    cache = TTLCache(maxsize=16, ttl=60, clock=clock)
    calls = []

    @memoize(cache, namespace="settings")
    def load_settings(tenant, region="eu", *, fresh=False):
        calls.append((tenant, region, fresh))
        return {"tenant": tenant, "region": region}

    load_settings("acme")
    assert load_settings.invalidate("acme") is True
    load_settings(tenant="acme")
    assert load_settings.invalidate(tenant="acme", region="eu") is True
    load_settings("acme")
    assert len(calls) == 3


def test_invalidate_with_all_arguments_given(clock):
    cache = TTLCache(maxsize=16, ttl=60, clock=clock)

    @memoize(cache, namespace="pair")
    def pair(a, b):
        return (a, b)

    pair(1, 2)
    assert pair.invalidate(1, 2) is True
    assert pair.invalidate(1, 2) is False


def test_email_change_invalidates_old_address(service):
    assert service.get_user_by_email("bob@example.com").id == 2
    service.update_user(2, email="robert@example.com")
    with pytest.raises(UserNotFound):
        service.get_user_by_email("bob@example.com")
    assert service.get_user_by_email("robert@example.com").name == "Bob"
