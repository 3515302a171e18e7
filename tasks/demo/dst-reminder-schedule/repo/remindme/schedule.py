"""A :class:`Schedule` combines many reminders into a single agenda."""

import heapq
from itertools import count as _counter

from .timeutil import to_utc


class Schedule:
    """A collection of :class:`~remindme.Reminder` objects."""

    def __init__(self, reminders=()):
        self._reminders = []
        for reminder in reminders:
            self.add(reminder)

    def __len__(self):
        return len(self._reminders)

    def __iter__(self):
        return iter(self._reminders)

    def add(self, reminder):
        if any(r.title == reminder.title for r in self._reminders):
            raise ValueError("a reminder titled %r already exists" % reminder.title)
        self._reminders.append(reminder)
        return reminder

    def remove(self, title):
        for i, reminder in enumerate(self._reminders):
            if reminder.title == title:
                return self._reminders.pop(i)
        raise KeyError(title)

    def agenda(self, start, end):
        """Return ``(fire_time, reminder)`` pairs in ``[start, end)``, sorted.

        Fire times of different reminders are compared as instants, so a
        reminder in Tokyo and one in Berlin are interleaved correctly.
        """
        tie = _counter()

        def stream(reminder):
            for t in reminder.between(start, end):
                yield to_utc(t), next(tie), t, reminder

        merged = heapq.merge(*(stream(r) for r in self._reminders))
        return [(t, r) for _, _, t, r in merged]

    def pending_utc(self, start, end):
        """Return ``(utc_fire_time, title)`` pairs for a job queue."""
        return [(to_utc(t), r.title) for t, r in self.agenda(start, end)]

    def next_fire(self, after):
        """The earliest ``(fire_time, reminder)`` strictly after *after*."""
        candidates = []
        for reminder in self._reminders:
            t = reminder.next_after(after)
            if t is not None:
                candidates.append((to_utc(t), t, reminder))
        if not candidates:
            return None
        _, t, reminder = min(candidates, key=lambda c: c[0])
        return t, reminder
