"""Jitter strategies.

Each strategy takes the capped exponential delay and a random number
generator and returns the delay actually used.  See the AWS Architecture Blog
post "Exponential Backoff And Jitter" for the rationale.  None of them ever
returns more than the delay it was given.
"""

from __future__ import annotations

import random
from typing import Callable

Jitter = Callable[[float, random.Random], float]


def no_jitter(delay: float, rng: random.Random) -> float:
    """Use the delay as is."""
    return delay


def full_jitter(delay: float, rng: random.Random) -> float:
    """A uniformly random delay between 0 and ``delay``."""
    return rng.uniform(0.0, delay)


def equal_jitter(delay: float, rng: random.Random) -> float:
    """Half of ``delay`` plus a random amount up to the other half."""
    half = delay / 2.0
    return half + rng.uniform(0.0, half)


STRATEGIES = {
    "none": no_jitter,
    "full": full_jitter,
    "equal": equal_jitter,
}


def get_jitter(name_or_func) -> Jitter:
    if callable(name_or_func):
        return name_or_func
    try:
        return STRATEGIES[name_or_func]
    except KeyError:
        raise ValueError(f"unknown jitter strategy {name_or_func!r}") from None
