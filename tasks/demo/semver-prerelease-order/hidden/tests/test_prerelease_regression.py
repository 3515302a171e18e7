from semverkit import max_satisfying, parse, satisfies, sort_versions


def test_numeric_identifiers_compare_numerically():
    assert parse("1.0.0-alpha.2") < parse("1.0.0-alpha.10")
    assert parse("1.0.0-rc.11") > parse("1.0.0-rc.9")
    assert sort_versions(["1.0.0-alpha.10", "1.0.0-alpha.2", "1.0.0-alpha.1"]) == [
        "1.0.0-alpha.1",
        "1.0.0-alpha.2",
        "1.0.0-alpha.10",
    ]


def test_prerelease_has_lower_precedence_than_release():
    assert parse("1.0.0-rc.1") < parse("1.0.0")
    assert parse("2.0.0") > parse("2.0.0-alpha")
    assert parse("1.0.0-rc.1") > parse("0.9.9")
    assert max(parse(v) for v in ["1.0.0-rc.1", "1.0.0", "1.0.0-beta"]) == parse("1.0.0")


def test_spec_precedence_example():
    # The example chain from SemVer 2.0.0, section 11.
    ordered = [
        "1.0.0-alpha",
        "1.0.0-alpha.1",
        "1.0.0-alpha.beta",
        "1.0.0-beta",
        "1.0.0-beta.2",
        "1.0.0-beta.11",
        "1.0.0-rc.1",
        "1.0.0",
    ]
    shuffled = [ordered[i] for i in (7, 3, 5, 0, 6, 2, 4, 1)]
    assert sort_versions(shuffled) == ordered
    for lower, higher in zip(ordered, ordered[1:]):
        assert parse(lower) < parse(higher)


def test_prerelease_ranges_use_precedence():
    assert satisfies("1.0.0-rc.10", ">=1.0.0-rc.2 <1.0.0")
    assert satisfies("1.0.0", ">=1.0.0-rc.1")
    assert max_satisfying(["1.0.0-rc.1", "1.0.0", "1.0.0-rc.2"], ">=1.0.0-rc.1") == "1.0.0"


def test_numeric_identifiers_sort_before_alphanumeric():
    assert parse("1.0.0-alpha.1") < parse("1.0.0-alpha.beta")
    assert parse("1.0.0-1") < parse("1.0.0-a")


def test_longer_prerelease_sorts_after_its_prefix():
    assert parse("1.0.0-alpha") < parse("1.0.0-alpha.1")
    assert parse("1.0.0-beta.2") < parse("1.0.0-beta.2.x")


def test_build_metadata_is_ignored_for_precedence():
    assert parse("1.0.0+build.1") == parse("1.0.0+build.2")
    assert parse("1.0.0-rc.1+x") == parse("1.0.0-rc.1")
    assert not parse("1.0.0+zzz") < parse("1.0.0+aaa")
    assert len({parse("1.2.3+a"), parse("1.2.3+b")}) == 1
