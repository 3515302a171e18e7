"""remindme - recurring reminders in the user's local time zone."""

from .formatting import describe, format_fire_time
from .recurrence import Frequency, Recurrence
from .reminder import Reminder
from .schedule import Schedule
from .timeutil import NonExistentTimeError, resolve_local

__all__ = [
    "Frequency",
    "describe",
    "format_fire_time",
    "NonExistentTimeError",
    "Recurrence",
    "Reminder",
    "Schedule",
    "resolve_local",
]

__version__ = "1.2.0"
