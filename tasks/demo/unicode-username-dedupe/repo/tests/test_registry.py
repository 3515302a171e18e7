import pytest

from userreg import InvalidUsername, UnknownUser, UserRegistry, UsernameTaken


@pytest.fixture
def users():
    return UserRegistry()


def test_register_and_get_case_insensitive(users):
    alice = users.register("Alice", email="alice@example.org")
    assert users.get("alice") is alice
    assert users.get("  ALICE ") is alice
    assert alice.display_name == "Alice"


def test_duplicate_with_different_case_is_rejected(users):
    users.register("Alice")
    with pytest.raises(UsernameTaken) as excinfo:
        users.register("aLiCe")
    assert excinfo.value.existing == "Alice"


def test_unicode_names_are_allowed(users):
    user = users.register("Zoë")
    assert users.get("ZOË") is user
    assert "zoë" in users
    assert user.slug == "zoe"


def test_slugs_are_unique(users):
    first = users.register("jose.maria")
    second = users.register("José-María")
    assert first.slug == "jose-maria"
    assert second.slug == "jose-maria-2"
    assert users.by_slug("jose-maria-2") is second


def test_rename_keeps_identity(users):
    user = users.register("bob")
    users.register("carol")
    assert users.rename("bob", "Bob") is user
    assert users.get("BOB").display_name == "Bob"
    with pytest.raises(UsernameTaken):
        users.rename("bob", "Carol")


def test_delete_and_unknown_user(users):
    users.register("dave")
    users.delete("DAVE")
    assert len(users) == 0
    with pytest.raises(UnknownUser):
        users.get("dave")


def test_invalid_name_is_not_registered(users):
    with pytest.raises(InvalidUsername):
        users.register("a b")
    assert len(users) == 0
