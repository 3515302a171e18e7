from datetime import date, datetime, time
from zoneinfo import ZoneInfo

import pytest

from remindme import Recurrence, Reminder, Schedule, describe, format_fire_time

UTC = ZoneInfo("UTC")
BERLIN = ZoneInfo("Europe/Berlin")


def test_one_off_reminder_fires_once():
    r = Reminder("Dentist", time(14, 15), "Europe/Berlin", date(2024, 2, 6))
    assert r.upcoming(5) == [datetime(2024, 2, 6, 14, 15, tzinfo=BERLIN)]


def test_daily_reminder_in_utc():
    r = Reminder("Backup", time(3, 0), "UTC", date(2024, 3, 29), Recurrence.daily())
    assert [t.day for t in r.upcoming(4)] == [29, 30, 31, 1]
    assert all(t.hour == 3 for t in r.upcoming(4))


def test_daily_reminder_in_winter():
    r = Reminder("Pills", time(8, 0), "Europe/Berlin", date(2024, 1, 10), Recurrence.daily(2))
    assert r.upcoming(3) == [
        datetime(2024, 1, 10, 8, 0, tzinfo=BERLIN),
        datetime(2024, 1, 12, 8, 0, tzinfo=BERLIN),
        datetime(2024, 1, 14, 8, 0, tzinfo=BERLIN),
    ]


def test_workweek_skips_weekend():
    r = Reminder("Stand-up", time(9, 0), "Europe/Berlin", date(2024, 2, 2), Recurrence.workweek())
    days = [t.date() for t in r.upcoming(3)]
    assert days == [date(2024, 2, 2), date(2024, 2, 5), date(2024, 2, 6)]


def test_reminder_respects_end_date():
    r = Reminder(
        "Course", time(18, 0), "UTC", date(2024, 5, 1), Recurrence.weekly(), ends=date(2024, 5, 20)
    )
    assert [t.day for t in r.upcoming(10)] == [1, 8, 15]


def test_upcoming_after_requires_aware():
    r = Reminder("Backup", time(3, 0), "UTC", date(2024, 3, 29), Recurrence.daily())
    with pytest.raises(ValueError):
        r.upcoming(1, after=datetime(2024, 4, 1))


def test_schedule_interleaves_zones():
    schedule = Schedule([
        Reminder("Tokyo sync", time(9, 0), "Asia/Tokyo", date(2024, 2, 1), Recurrence.daily()),
        Reminder("Berlin sync", time(9, 0), "Europe/Berlin", date(2024, 2, 1), Recurrence.daily()),
    ])
    start = datetime(2024, 2, 1, tzinfo=UTC)
    end = datetime(2024, 2, 2, 12, tzinfo=UTC)
    assert [title for _, title in schedule.pending_utc(start, end)] == [
        "Tokyo sync", "Berlin sync", "Tokyo sync", "Berlin sync",
    ]
    when, reminder = schedule.next_fire(datetime(2024, 2, 1, 7, 0, tzinfo=UTC))
    assert reminder.title == "Berlin sync"
    assert when == datetime(2024, 2, 1, 9, 0, tzinfo=BERLIN)


def test_describe_and_format():
    r = Reminder("Stand-up", time(9, 0), "Europe/Berlin", date(2024, 2, 5), Recurrence.workweek())
    assert describe(r) == "Stand-up: every weekday at 09:00 (Europe/Berlin)"
    assert format_fire_time(r.upcoming(1)[0]) == "Mon 05 Feb 2024, 09:00 CET"
