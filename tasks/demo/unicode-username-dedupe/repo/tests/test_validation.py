import pytest

from userreg import InvalidUsername, canonical_username, slugify, validate_username


@pytest.mark.parametrize(
    "name", ["ab", "", "   ", "x" * 31], ids=["too-short", "empty", "blank", "too-long"]
)
def test_length_rules(name):
    with pytest.raises(InvalidUsername):
        validate_username(name)


def test_allowed_characters():
    assert validate_username("Ana_Lu-3.0") == "ana_lu-3.0"
    assert validate_username("Łukasz") == "łukasz"
    with pytest.raises(InvalidUsername):
        validate_username("bob!")
    with pytest.raises(InvalidUsername):
        validate_username("_bob")


def test_reserved_names():
    with pytest.raises(InvalidUsername):
        validate_username("Admin")


def test_canonical_username_strips_whitespace():
    assert canonical_username("\u00a0Bob\n") == "bob"
    with pytest.raises(TypeError):
        canonical_username(None)


def test_slugify():
    assert slugify("Ærøskøbing Straße") == "aeroskobing-strasse"
    assert slugify("Дмитрий") == "user"
    assert slugify("--Mr. Smith--") == "mr-smith"
