import datetime

import pytest

from durparse import InvalidDuration, format_duration, humanize, parse_duration, parse_seconds


def test_single_units():
    assert parse_seconds("90s") == 90
    assert parse_seconds("15m") == 900
    assert parse_seconds("2h") == 7200
    assert parse_seconds("2d") == 172800
    assert parse_seconds("1w") == 604800


def test_compound_and_aliases():
    assert parse_seconds("1h30m") == 5400
    assert parse_seconds("2 days, 4 hrs") == 187200
    assert parse_seconds("1 Hour 2 Minutes 3 Seconds") == 3723


def test_bare_number_is_seconds():
    assert parse_seconds("45") == 45
    assert parse_duration(" 45 ") == datetime.timedelta(seconds=45)


def test_invalid_durations():
    for text in ["", "abc", "10 parsecs", "1h1h", "h1", "1h 30"]:
        with pytest.raises(InvalidDuration):
            parse_seconds(text)


def test_format_duration():
    assert format_duration(5400) == "1h30m"
    assert format_duration(0) == "0s"
    assert format_duration(694800, weeks=True) == "1w1d1h"
    assert parse_seconds(format_duration(93784)) == 93784


def test_humanize():
    assert humanize(93784) == "1 day, 2 hours, 3 minutes and 4 seconds"
    assert humanize(60) == "1 minute"
    assert humanize(0) == "0 seconds"
