from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from remindme import Recurrence, Reminder, Schedule

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")
UTC = ZoneInfo("UTC")


def test_daily_reminder_keeps_wall_clock_across_spring_forward():
    r = Reminder("Pills", time(9, 0), "Europe/Berlin", date(2024, 3, 29), Recurrence.daily())
    fire_times = r.upcoming(5)
    assert [(t.date(), t.hour, t.minute) for t in fire_times] == [
        (date(2024, 3, 29), 9, 0),
        (date(2024, 3, 30), 9, 0),
        (date(2024, 3, 31), 9, 0),
        (date(2024, 4, 1), 9, 0),
        (date(2024, 4, 2), 9, 0),
    ]
    assert fire_times[2].utcoffset() == timedelta(hours=2)


def test_daily_reminder_keeps_wall_clock_across_fall_back():
    r = Reminder("Walk", time(9, 0), "America/New_York", date(2024, 11, 1), Recurrence.daily())
    fire_times = r.upcoming(5)
    assert [(t.day, t.hour) for t in fire_times] == [(1, 9), (2, 9), (3, 9), (4, 9), (5, 9)]
    assert [t.astimezone(UTC).hour for t in fire_times] == [13, 13, 14, 14, 14]


def test_weekly_reminder_across_dst_and_pending_utc():
    r = Reminder(
        "Team meeting", time(8, 30), "America/New_York", date(2024, 3, 4),
        Recurrence.weekly(weekdays=[0]),
    )
    schedule = Schedule([r])
    pending = schedule.pending_utc(
        datetime(2024, 3, 1, tzinfo=UTC), datetime(2024, 3, 19, tzinfo=UTC)
    )
    assert [when for when, _ in pending] == [
        datetime(2024, 3, 4, 13, 30, tzinfo=UTC),
        datetime(2024, 3, 11, 12, 30, tzinfo=UTC),
        datetime(2024, 3, 18, 12, 30, tzinfo=UTC),
    ]


def test_time_in_gap_only_shifted_on_transition_day():
    r = Reminder("Night job", time(2, 30), "Europe/Berlin", date(2024, 3, 30), Recurrence.daily())
    assert [(t.day, t.hour, t.minute) for t in r.upcoming(3)] == [
        (30, 2, 30),
        (31, 3, 30),
        (1, 2, 30),
    ]


def test_reminder_in_zone_without_dst():
    r = Reminder("Sync", time(9, 0), "Asia/Tokyo", date(2024, 3, 28), Recurrence.daily())
    assert all(t.hour == 9 for t in r.upcoming(10))


def test_ambiguous_start_time_uses_first_occurrence():
    r = Reminder("Night job", time(1, 30), "America/New_York", date(2024, 11, 3))
    (only,) = r.upcoming(3)
    assert only.astimezone(UTC) == datetime(2024, 11, 3, 5, 30, tzinfo=UTC)
