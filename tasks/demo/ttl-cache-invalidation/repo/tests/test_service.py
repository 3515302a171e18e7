import pytest

from cachekit import ManualClock, TTLCache
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
    return UserService(repo, cache=TTLCache(maxsize=64, ttl=60, clock=clock))


def test_get_user_is_cached(service):
    assert service.get_user(1).name == "Ada"
    assert service.get_user(1).name == "Ada"
    assert service.repository.queries == 1


def test_get_user_by_email_is_case_insensitive(service):
    assert service.get_user_by_email("BOB@example.com").id == 2
    assert service.get_user_by_email("bob@example.com").id == 2
    assert service.repository.queries == 1


def test_unknown_user_raises(service):
    with pytest.raises(UserNotFound):
        service.get_user(99)


def test_email_view_sees_update(service):
    service.get_user_by_email("ada@example.com")
    service.update_user(1, name="Ada Lovelace")
    assert service.get_user_by_email("ada@example.com").name == "Ada Lovelace"


def test_cache_entries_expire(service, clock):
    service.get_user(2)
    service.repository.update(2, name="Robert")
    clock.advance(61)
    assert service.get_user(2).name == "Robert"
