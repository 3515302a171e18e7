"""Keys assembled from parts serialized once are exactly the keys of the whole object."""

from __future__ import annotations

import pickle
import random
from typing import Any

from evaluator.hashing import canonical_items, canonical_json, hash_json, join_items, keyer

_NAMES = "abcpqrz_é\""


def _value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 2 or roll < 0.3:
        return rng.choice([1, -2.5, 'x\u00e9"\\n', None, True, "", 10**20, "\u2028"])
    if roll < 0.6:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {"".join(rng.choices(_NAMES, k=rng.randint(0, 4))): _value(rng, depth + 1)
            for _ in range(rng.randint(0, 4))}


def test_parts_and_keyers_give_the_keys_of_the_whole_object() -> None:
    rng = random.Random(31)
    for _ in range(2000):
        obj = {"".join(rng.choices(_NAMES, k=rng.randint(1, 5))): _value(rng)
               for _ in range(rng.randint(0, 8))}
        items = canonical_items(obj)
        assert join_items(items) == canonical_json(obj)
        fields = list(dict.fromkeys(rng.sample(["patch", "a", "zz", "é", *obj], k=rng.randint(
            1, min(3, 4 + len(obj))))))
        values = [_value(rng) for _ in fields]
        fixed = {k: v for k, v in items.items() if k not in fields}
        whole = {**obj, **dict(zip(fields, values, strict=True))}
        assert keyer(fixed, *fields)(*values) == hash_json(whole)


def test_a_keyer_pickles_and_gives_the_same_keys_on_the_other_side() -> None:
    """A GradeSpec caches its attempt keyer, and the Ray executor pickles specs to its workers
    (a closure over a blake3 hasher failed there: every attempt of a Ray eval unfinished)."""
    key = keyer({"image": b'"sha256:1"', "tests": b'["a","b"]'}, "patch", "rep")
    key("warm", 0)  # the hasher of the leading bytes was used before it is shipped
    shipped = pickle.loads(pickle.dumps(key))
    for values in (("p1", 0), ("p2", 3), ("é", 1)):
        assert shipped(*values) == key(*values) == hash_json(
            {"image": "sha256:1", "tests": ["a", "b"], "patch": values[0], "rep": values[1]})
