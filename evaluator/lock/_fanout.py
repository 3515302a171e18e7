"""Lock-time probes of a set, each asked once and several at a time: a set of 2,000 tasks names
a few images, and each distinct question (a tag's digest, a ref's commit in an image, what an
image's repository holds) costs a container or an engine call, never one per task."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from typing import TypeVar

from evaluator.errors import BadInputError

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def fan_out(ask: Callable[[K], V], questions: Iterable[K], jobs: int) -> dict[K, V | BadInputError]:
    """`ask(q)` once per distinct question, at most `jobs` at once, in the order given. A
    question that is bad input keeps its BadInputError as its answer (its tasks are named
    together by the caller); any other error is raised once every question in flight has ended,
    and no new one starts after it."""
    distinct = list(dict.fromkeys(questions))
    out: dict[K, V | BadInputError] = {}

    def one(q: K) -> None:
        try:
            out[q] = ask(q)
        except BadInputError as exc:
            out[q] = exc

    if jobs <= 1 or len(distinct) <= 1:
        for q in distinct:
            one(q)
        return out
    with ThreadPoolExecutor(max_workers=min(jobs, len(distinct)),
                            thread_name_prefix="lock") as pool:
        futures = [pool.submit(one, q) for q in distinct]
        done, _ = wait(futures, return_when=FIRST_EXCEPTION)
        failed = next((f.exception() for f in done if f.exception() is not None), None)
        if failed is not None:
            for f in futures:
                f.cancel()
            raise failed
    return {q: out[q] for q in distinct}
