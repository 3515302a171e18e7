import datetime

from durparse import parse_duration, parse_seconds


def test_decimal_amounts():
    assert parse_seconds("1.5h") == 5400
    assert parse_seconds("2.5m") == 150
    assert parse_seconds("0.25 hours") == 900


def test_decimal_components_in_compound_durations():
    assert parse_duration("0.5d") == datetime.timedelta(hours=12)
    assert parse_duration("1d 0.25h") == datetime.timedelta(days=1, minutes=15)


def test_units_are_case_insensitive():
    assert parse_seconds("1H30M") == 5400
    assert parse_seconds("3 DAYS") == 259200


def test_comma_separated_components():
    assert parse_seconds("1w, 2d, 3h") == 788400
