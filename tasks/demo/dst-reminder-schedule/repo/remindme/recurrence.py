"""Recurrence rules: *how often* a reminder repeats."""

import enum
from dataclasses import dataclass
from datetime import timedelta

WEEKDAY_NAMES = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


class Frequency(enum.Enum):
    DAILY = "daily"
    WEEKLY = "weekly"


@dataclass(frozen=True)
class Recurrence:
    """A simple recurrence rule.

    :param frequency: :attr:`Frequency.DAILY` or :attr:`Frequency.WEEKLY`.
    :param interval: repeat every *interval* days or weeks.
    :param weekdays: for weekly rules, the weekdays (0 = Monday) the reminder
        fires on.  When empty, a weekly rule fires on the weekday of the
        reminder's start date.
    """

    frequency: Frequency = Frequency.DAILY
    interval: int = 1
    weekdays: tuple = ()

    def __post_init__(self):
        if self.interval < 1:
            raise ValueError("interval must be at least 1")
        if self.weekdays and self.frequency is not Frequency.WEEKLY:
            raise ValueError("weekdays are only supported for weekly rules")
        for day in self.weekdays:
            if day not in range(7):
                raise ValueError("weekday out of range: %r" % (day,))
        object.__setattr__(self, "weekdays", tuple(sorted(set(self.weekdays))))

    # -- constructors -----------------------------------------------------

    @classmethod
    def daily(cls, interval=1):
        return cls(Frequency.DAILY, interval)

    @classmethod
    def weekly(cls, weekdays=(), interval=1):
        return cls(Frequency.WEEKLY, interval, tuple(weekdays))

    @classmethod
    def workweek(cls):
        """Monday to Friday, every week."""
        return cls.weekly(weekdays=range(5))

    # -- expansion helpers ------------------------------------------------

    @property
    def step(self):
        """The distance between two candidate dates."""
        if self.frequency is Frequency.WEEKLY and self.weekdays:
            # Every day is a candidate; :meth:`includes` filters them.
            return timedelta(days=1)
        if self.frequency is Frequency.WEEKLY:
            return timedelta(weeks=self.interval)
        return timedelta(days=self.interval)

    def includes(self, day, anchor):
        """Whether the calendar date *day* is an occurrence date.

        *anchor* is the date the reminder starts on; it defines which weeks
        count for rules with an interval greater than one.
        """
        if day < anchor:
            return False
        if self.frequency is Frequency.DAILY:
            return (day - anchor).days % self.interval == 0
        if not self.weekdays:
            return (day - anchor).days % (7 * self.interval) == 0
        if day.weekday() not in self.weekdays:
            return False
        anchor_monday = anchor - timedelta(days=anchor.weekday())
        week_index = (day - anchor_monday).days // 7
        return week_index % self.interval == 0

    def describe(self):
        """A short English description, e.g. ``"every 2 weeks on Mon, Thu"``."""
        if self.frequency is Frequency.DAILY:
            return "every day" if self.interval == 1 else "every %d days" % self.interval
        every = "every week" if self.interval == 1 else "every %d weeks" % self.interval
        if self.weekdays == tuple(range(5)) and self.interval == 1:
            return "every weekday"
        if self.weekdays:
            return "%s on %s" % (every, ", ".join(WEEKDAY_NAMES[d] for d in self.weekdays))
        return every
