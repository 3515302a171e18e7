import pytest

from userreg import InvalidUsername, UserRegistry, UsernameTaken, same_username

COMPOSED = "Jos\u00e9"        # é as a single code point (NFC)
DECOMPOSED = "Jose\u0301"     # e + COMBINING ACUTE ACCENT (NFD, e.g. macOS input)


def test_composed_and_decomposed_spellings_are_one_account():
    users = UserRegistry()
    jose = users.register(COMPOSED)
    assert same_username(COMPOSED, DECOMPOSED)
    assert users.is_taken(DECOMPOSED)
    assert users.get(DECOMPOSED) is jose
    with pytest.raises(UsernameTaken):
        users.register(DECOMPOSED.upper())


def test_case_folding_beyond_lowercase():
    users = UserRegistry()
    users.register("Straße")
    assert users.is_taken("STRASSE")
    with pytest.raises(UsernameTaken):
        users.register("strasse")


def test_compatibility_forms_are_equivalent():
    users = UserRegistry()
    users.register("john")
    with pytest.raises(UsernameTaken):
        users.register("\uff4a\uff4f\uff48\uff4e")  # fullwidth "ｊｏｈｎ"
    with pytest.raises(InvalidUsername):
        users.register("\uff41\uff44\uff4d\uff49\uff4e")  # fullwidth "ａｄｍｉｎ"


def test_rename_to_lookalike_of_other_user_is_rejected():
    users = UserRegistry()
    users.register("Zo\u00eb")
    users.register("bob")
    with pytest.raises(UsernameTaken):
        users.rename("bob", "zoe\u0308")
    assert users.get("bob").display_name == "bob"


def test_accented_and_plain_names_stay_distinct():
    users = UserRegistry()
    plain = users.register("jose")
    accented = users.register(DECOMPOSED)
    assert plain is not accented
    assert users.get("JOSE") is plain
    assert accented.slug == "jose-2"


def test_own_name_with_different_case_can_be_renamed():
    users = UserRegistry()
    user = users.register("Zo\u00eb")
    assert users.rename("zo\u00eb", "ZO\u00cb") is user
    assert users.get("zo\u00eb") is user
    assert user.display_name == "ZO\u00cb"
    assert len(users) == 1
