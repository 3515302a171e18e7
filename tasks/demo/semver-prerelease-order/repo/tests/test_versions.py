import pytest

from semverkit import InvalidVersion, Version, parse, sort_versions


def test_parse_basic():
    v = parse("1.4.2")
    assert (v.major, v.minor, v.patch) == (1, 4, 2)
    assert v.prerelease == ()
    assert v.build == ()
    assert not v.is_prerelease


def test_parse_prerelease_and_build():
    v = parse("v2.0.0-beta.3+exp.sha.5114f85")
    assert v.release == (2, 0, 0)
    assert v.prerelease == ("beta", "3")
    assert v.build == ("exp", "sha", "5114f85")
    assert str(v) == "2.0.0-beta.3+exp.sha.5114f85"


def test_parse_rejects_invalid():
    bad = ["1.2", "01.2.3", "1.2.3-", "1.2.3-beta..1", "1.2.3-01", "1.2.3+", "1.2.3 4", "", "a.b.c"]
    for text in bad:
        with pytest.raises(InvalidVersion):
            parse(text)


def test_compare_release_versions():
    assert parse("1.2.3") < parse("1.2.4")
    assert parse("1.10.0") > parse("1.9.9")
    assert parse("2.0.0") > "1.99.99"
    assert parse("1.2.3") == "1.2.3"


def test_prerelease_alpha_before_beta():
    assert parse("1.0.0-alpha") < parse("1.0.0-beta")
    assert parse("1.0.0-beta") < parse("1.0.0-rc")


def test_sort_versions_keeps_input_type():
    items = ["1.10.0", "1.2.0", "0.9.0", "1.9.3"]
    assert sort_versions(items) == ["0.9.0", "1.2.0", "1.9.3", "1.10.0"]
    assert sort_versions(items, reverse=True)[0] == "1.10.0"


def test_bumps():
    v = parse("1.4.2")
    assert str(v.bump_major()) == "2.0.0"
    assert str(v.bump_minor()) == "1.5.0"
    assert str(v.bump_patch()) == "1.4.3"
    assert str(parse("1.4.2-rc.1").bump_patch()) == "1.4.2"


def test_version_constructor_and_immutability():
    v = Version(1, 2, 3, prerelease=("rc", 1), build="b7")
    assert str(v) == "1.2.3-rc.1+b7"
    with pytest.raises(AttributeError):
        v.major = 5
    with pytest.raises(TypeError):
        Version("1", 2, 3)
