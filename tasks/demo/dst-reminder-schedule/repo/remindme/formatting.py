"""Human readable output for reminders and fire times."""


def format_fire_time(moment):
    """Format an aware datetime, e.g. ``"Mon 25 Mar 2024, 09:00 CET"``."""
    if moment.tzinfo is None:
        raise ValueError("format_fire_time() expects an aware datetime")
    return moment.strftime("%a %d %b %Y, %H:%M ") + (moment.tzname() or "")


def describe(reminder):
    """Describe a reminder, e.g. ``"Stand-up: every weekday at 09:00 (Europe/Berlin)"``."""
    when = reminder.at.strftime("%H:%M")
    if reminder.recurrence is None:
        what = "once on %s" % reminder.starts.isoformat()
    else:
        what = reminder.recurrence.describe()
        if reminder.ends is not None:
            what += " until %s" % reminder.ends.isoformat()
    return "%s: %s at %s (%s)" % (reminder.title, what, when, reminder.tz)
