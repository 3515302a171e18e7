import pytest

from semverkit import InvalidConstraint, max_satisfying, parse_constraint, satisfies


def test_simple_range():
    assert satisfies("1.4.2", ">=1.2.0 <2.0.0")
    assert not satisfies("2.0.0", ">=1.2.0 <2.0.0")
    assert not satisfies("1.1.9", ">=1.2.0 <2.0.0")


def test_caret_and_tilde():
    assert satisfies("1.9.0", "^1.2.3")
    assert not satisfies("2.0.0", "^1.2.3")
    assert satisfies("0.2.9", "^0.2.3")
    assert not satisfies("0.3.0", "^0.2.3")
    assert satisfies("1.2.9", "~1.2.3")
    assert not satisfies("1.3.0", "~1.2.3")


def test_wildcards_and_alternatives():
    assert satisfies("1.2.7", "1.2.x")
    assert not satisfies("1.3.0", "1.2.x")
    assert satisfies("5.0.0", "*")
    assert satisfies("0.9.4", "^1.2 || ~0.9.1")


def test_prerelease_excluded_by_default():
    assert not satisfies("1.5.0-beta.1", ">=1.2.0 <2.0.0")
    assert satisfies("1.5.0-beta.1", ">=1.2.0 <2.0.0", include_prerelease=True)
    assert satisfies("1.5.0-beta.2", ">=1.5.0-beta.1 <2.0.0")


def test_max_satisfying():
    versions = ["1.0.0", "1.3.1", "1.2.9", "2.0.0", "1.4.0-rc.1"]
    assert max_satisfying(versions, "^1.0") == "1.3.1"
    assert max_satisfying(versions, ">=3") is None


def test_invalid_constraints():
    for text in [">=1.2.0 ||", "1.x.3", "^1.2-beta", ">>1.0.0"]:
        with pytest.raises(InvalidConstraint):
            parse_constraint(text)
