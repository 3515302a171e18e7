from datetime import datetime, timedelta, timezone

import pytest

from remindme import NonExistentTimeError, resolve_local
from remindme.timeutil import is_ambiguous, is_nonexistent, to_utc


def test_regular_time_is_attached_unchanged():
    aware = resolve_local(datetime(2024, 1, 15, 9, 0), "Europe/Berlin")
    assert aware.hour == 9
    assert aware.utcoffset() == timedelta(hours=1)


def test_gap_time_is_shifted_forward():
    naive = datetime(2024, 3, 31, 2, 30)
    assert is_nonexistent(naive, "Europe/Berlin")
    aware = resolve_local(naive, "Europe/Berlin")
    assert (aware.hour, aware.minute) == (3, 30)
    assert aware.utcoffset() == timedelta(hours=2)


def test_gap_time_can_raise():
    with pytest.raises(NonExistentTimeError):
        resolve_local(datetime(2024, 3, 31, 2, 30), "Europe/Berlin", gap="raise")


def test_ambiguous_time_uses_earlier_offset_by_default():
    naive = datetime(2024, 10, 27, 2, 30)
    assert is_ambiguous(naive, "Europe/Berlin")
    earlier = resolve_local(naive, "Europe/Berlin")
    later = resolve_local(naive, "Europe/Berlin", fold="later")
    assert to_utc(later) - to_utc(earlier) == timedelta(hours=1)


def test_resolve_local_rejects_aware_input():
    with pytest.raises(ValueError):
        resolve_local(datetime(2024, 1, 1, tzinfo=timezone.utc), "UTC")
