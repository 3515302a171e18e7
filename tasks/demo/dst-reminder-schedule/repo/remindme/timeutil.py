"""Helpers for turning local wall-clock times into aware datetimes.

Local times are ambiguous twice a year in zones that observe daylight saving
time:

* when clocks go **back**, a wall-clock time such as 02:30 happens twice
  (the "fold");
* when clocks go **forward**, a wall-clock time such as 02:30 does not happen
  at all (the "gap").

:func:`resolve_local` applies a consistent policy to both cases.
"""

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

UTC = timezone.utc


class NonExistentTimeError(ValueError):
    """Raised for a local time inside a DST gap when ``gap="raise"``."""


def get_zone(tz):
    """Return a :class:`~zoneinfo.ZoneInfo` for a zone name or tzinfo."""
    if isinstance(tz, str):
        return ZoneInfo(tz)
    return tz


def _roundtrips(aware):
    """Whether *aware* survives a round trip through UTC unchanged."""
    back = aware.astimezone(UTC).astimezone(aware.tzinfo)
    return back.replace(tzinfo=None) == aware.replace(tzinfo=None)


def is_nonexistent(naive, tz):
    """Return True if the wall-clock time *naive* never occurs in *tz*."""
    return not _roundtrips(naive.replace(tzinfo=get_zone(tz)))


def is_ambiguous(naive, tz):
    """Return True if the wall-clock time *naive* occurs twice in *tz*."""
    zone = get_zone(tz)
    first = naive.replace(tzinfo=zone, fold=0)
    second = naive.replace(tzinfo=zone, fold=1)
    return first.utcoffset() != second.utcoffset() and _roundtrips(first)


def resolve_local(naive, tz, *, gap="shift_forward", fold="earlier"):
    """Attach *tz* to the naive wall-clock datetime *naive*.

    :param gap: what to do when *naive* falls in a DST gap: ``"shift_forward"``
        moves it forward by the length of the gap (02:30 becomes 03:30 when
        clocks jump from 02:00 to 03:00); ``"raise"`` raises
        :class:`NonExistentTimeError`.
    :param fold: which occurrence to pick for an ambiguous time:
        ``"earlier"`` (the first, still on summer time) or ``"later"``.
    :returns: an aware datetime in *tz*.
    """
    if naive.tzinfo is not None:
        raise ValueError("resolve_local() expects a naive datetime")
    zone = get_zone(tz)

    if is_nonexistent(naive, zone):
        if gap == "raise":
            raise NonExistentTimeError("%s does not exist in %s" % (naive, zone))
        if gap != "shift_forward":
            raise ValueError("unknown gap policy: %r" % (gap,))
        # The offsets on either side of the gap differ by the gap length.
        before = naive.replace(tzinfo=zone, fold=0).utcoffset()
        after = naive.replace(tzinfo=zone, fold=1).utcoffset()
        shift = abs(before - after) or timedelta(hours=1)
        return (naive + shift).replace(tzinfo=zone)

    if fold not in ("earlier", "later"):
        raise ValueError("unknown fold policy: %r" % (fold,))
    return naive.replace(tzinfo=zone, fold=0 if fold == "earlier" else 1)


def to_utc(aware):
    """Convert an aware datetime to UTC."""
    if aware.tzinfo is None:
        raise ValueError("to_utc() expects an aware datetime")
    return aware.astimezone(UTC)


def local_now(tz):
    """The current time in *tz* (mainly useful as a default)."""
    return datetime.now(get_zone(tz))
