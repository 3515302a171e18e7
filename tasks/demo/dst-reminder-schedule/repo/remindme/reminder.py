"""The :class:`Reminder`: something to be reminded of, at a local time."""

from dataclasses import dataclass, field
from datetime import date, datetime, time
from itertools import islice
from typing import Optional

from .recurrence import Recurrence
from .timeutil import get_zone, resolve_local, to_utc


@dataclass
class Reminder:
    """A (possibly recurring) reminder.

    The reminder fires at the wall-clock time *at* in the time zone *tz* on
    every date selected by *recurrence*, starting on *starts* and ending on
    *ends* (inclusive) if given.  A reminder without a recurrence fires once.

    Wall-clock times that do not exist or are ambiguous on a given day
    (daylight saving time transitions) are resolved with
    :func:`~remindme.timeutil.resolve_local` using the *gap* and *fold*
    policies.
    """

    title: str
    at: time
    tz: str
    starts: date
    recurrence: Optional[Recurrence] = None
    ends: Optional[date] = None
    gap: str = "shift_forward"
    fold: str = "earlier"
    tags: tuple = field(default_factory=tuple)

    def __post_init__(self):
        if self.at.tzinfo is not None:
            raise ValueError("'at' must be a naive wall-clock time")
        if self.ends is not None and self.ends < self.starts:
            raise ValueError("a reminder cannot end before it starts")
        get_zone(self.tz)  # fail early on unknown zones

    @property
    def zone(self):
        return get_zone(self.tz)

    def _localize(self, day):
        return resolve_local(
            datetime.combine(day, self.at), self.zone, gap=self.gap, fold=self.fold
        )

    def occurrences(self):
        """Yield every fire time, in order, as aware datetimes in :attr:`zone`.

        The generator is infinite for recurring reminders without an end
        date.
        """
        first = self._localize(self.starts)
        if self.recurrence is None:
            yield first
            return

        rule = self.recurrence
        current = to_utc(first)
        while True:
            local = current.astimezone(self.zone)
            if self.ends is not None and local.date() > self.ends:
                return
            if rule.includes(local.date(), self.starts):
                yield local
            current = current + rule.step

    def upcoming(self, count, after=None):
        """Return the next *count* fire times at or after *after*.

        *after* must be aware; by default all occurrences from the start
        date are considered.
        """
        if after is not None and after.tzinfo is None:
            raise ValueError("'after' must be an aware datetime")
        times = (t for t in self.occurrences() if after is None or t >= after)
        return list(islice(times, count))

    def between(self, start, end):
        """Return the fire times *t* with ``start <= t < end``."""
        if start.tzinfo is None or end.tzinfo is None:
            raise ValueError("'start' and 'end' must be aware datetimes")
        result = []
        for t in self.occurrences():
            if t >= end:
                break
            if t >= start:
                result.append(t)
        return result

    def next_after(self, moment):
        """The first fire time strictly after *moment*, or ``None``."""
        for t in self.occurrences():
            if t > moment:
                return t
        return None
