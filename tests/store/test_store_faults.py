"""A damaged store fails only what is damaged (issue 31): a record file that does not read back
is named, set aside under corrupt/ (kept) and taken as absent; a record whose blob is gone is
named by `verify` and by the reader, with what to do."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evaluator.store import Store

KEY, OTHER = "ab" * 32, "cd" * 32
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "store", remote=None, notify=lambda line: said.append(line))


said: list[str] = []


@pytest.fixture(autouse=True)
def _fresh() -> None:
    said.clear()


def _attempt(store: Store, key: str, steps: int = 2) -> dict[str, object]:
    observations = [store.put_blob(f"output of step {i} of {key}".encode()) for i in range(steps)]
    trajectory = store.put_blob(json.dumps(
        {"key": key, "steps": [{"n": i, "observation": o} for i, o in enumerate(observations)]}
    ).encode())
    # Every field an attempt record needs: `store verify` reads each back through its type.
    body = {"task_set": "s", "task_id": "t", "subject": "a", "patch": store.put_blob(b"diff\n"),
            "trajectory": trajectory, "conversation": store.put_blob(b"{}"), "sample_idx": 0,
            "exit_reason": "submitted", "cost": {"total_usd": 0.0}, "steps": steps}
    assert store.put("attempt", key, body)
    return body


@pytest.mark.parametrize("damage,why", [
    (lambda b: b[:40], "not JSON"),
    (lambda b: b"\xff\xfe" + b[2:], "not UTF-8"),
    (lambda b: b"[1, 2]", "a JSON list"),
    (lambda b: b.replace(KEY.encode(), OTHER.encode()), "another record"),
])
def test_an_unreadable_record_is_named_set_aside_and_absent(store: Store, damage, why) -> None:
    _attempt(store, KEY)
    _attempt(store, OTHER)
    path = store.record_path("attempt", KEY)
    original = damage(path.read_bytes())
    path.write_bytes(original)
    assert store.get("attempt", KEY) is None  # no JSONDecodeError: absent, so it runs again
    assert len(said) == 1 and str(path) in said[0] and why in said[0]
    kept = list((store.root / "corrupt" / "attempt" / KEY).iterdir())
    assert [p.read_bytes() for p in kept] == [original]  # kept as it was, never deleted
    assert not store.has("attempt", KEY) and store.get("attempt", OTHER) is not None
    assert [r["key"] for r in store.query("attempt")] == [OTHER]  # the index forgot it too
    assert store.put("attempt", KEY, {"task_id": "t"})  # its target can land a new record


def test_a_scan_and_a_reindex_pass_over_an_unreadable_record(store: Store) -> None:
    _attempt(store, KEY)
    _attempt(store, OTHER)
    store.record_path("grade", KEY).parent.mkdir(parents=True)
    store.record_path("grade", KEY).write_bytes(b'{"kind": "grade", "ke')
    assert [r["key"] for r in store.iter_records("grade")] == []
    assert store.reindex() == 2
    assert (store.root / "corrupt" / "grade" / KEY).is_dir()


def test_a_reindex_that_meets_an_unreadable_record_sets_it_aside(store: Store) -> None:
    """The rebuild streams the records in one transaction; the one it sets aside on the way
    is forgotten within it (a second transaction inside it failed)."""
    _attempt(store, KEY)
    _attempt(store, OTHER)
    store.record_path("attempt", KEY).write_bytes(b'{"kind": "attempt", "ke')
    assert store.reindex() == 1
    assert [r["key"] for r in store.query("attempt")] == [OTHER]
    assert (store.root / "corrupt" / "attempt" / KEY).is_dir() and len(said) == 1


def test_an_unreadable_error_note_is_counted_and_named(store: Store) -> None:
    store.put_error("attempt", KEY, RuntimeError("engine down"))
    note = next((store.root / "errors" / "attempt" / KEY).iterdir())
    note.write_bytes(b"\x00\x00")
    assert store.error_count("attempt", KEY) == 1
    assert str(note) in store.errors("attempt", KEY)[0]["message"]


def test_verify_names_each_missing_blob_with_its_record_and_what_to_do(store: Store) -> None:
    body = _attempt(store, KEY)
    _attempt(store, OTHER)
    trajectory = store.get_blob(str(body["trajectory"]))
    observation = json.loads(trajectory)["steps"][1]["observation"]
    (store.root / "blobs" / observation[:2] / observation[2:]).unlink()
    assert store.missing_blobs(store.get("attempt", KEY) or {}) == [
        ("the observation of its step 1", observation)]
    found = store.verify(say=said.append)
    assert found.records == 2 and len(found.problems or ()) == 1
    assert f"attempt/{KEY} needs blob {observation}" in said[0]
    assert "evaluator store verify --set-aside" in said[0]
    fixed = store.verify(aside=True, say=said.append)
    assert fixed.set_aside == 1 and not store.has("attempt", KEY)
    assert (store.root / "corrupt" / "attempt" / KEY).is_dir()
    assert not store.verify(say=said.append).problems


def test_verify_with_hashes_finds_a_damaged_blob(store: Store) -> None:
    body = _attempt(store, KEY)
    patch = str(body["patch"])
    (store.root / "blobs" / patch[:2] / patch[2:]).write_bytes(b"not the patch\n")
    found = store.verify(hashes=True, aside=True, say=said.append)
    assert any(f"blob {patch}" in p and "do not match" in p for p in found.problems or ())
    assert any(f"attempt/{KEY} needs blob {patch}" in p for p in found.problems or ())
    assert (store.root / "corrupt" / "blobs" / patch).is_file()


def test_store_verify_command(tmp_path: Path, store: Store) -> None:
    body = _attempt(store, KEY)
    patch = str(body["patch"])
    (store.root / "blobs" / patch[:2] / patch[2:]).unlink()
    argv = [sys.executable, "-m", "evaluator", "store", "verify", "--store", str(store.root)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(argv, text=True, capture_output=True, cwd=tmp_path, timeout=120, env=env)
    assert out.returncode == 1, out.stderr
    assert f"attempt/{KEY} needs blob {patch} (its patch)" in out.stdout
    assert "checked 1 record(s)" in out.stdout and "1 problem(s)" in out.stdout
    out = subprocess.run([*argv, "--set-aside"], text=True, capture_output=True, cwd=tmp_path,
                         timeout=120, env=env)
    assert out.returncode == 0 and "1 set aside" in out.stdout, out.stdout + out.stderr
    assert subprocess.run(argv, capture_output=True, cwd=tmp_path, timeout=120,
                          env=env).returncode == 0


def test_verify_finds_an_index_out_of_step_and_reindex_mends_it(store: Store) -> None:
    _attempt(store, KEY)
    _attempt(store, OTHER)
    store.index.remove("attempt", OTHER)  # as a run stopped between record and index leaves it
    found = store.verify(say=said.append)
    assert any("lacks 1 attempt record(s)" in p and "--reindex" in p for p in found.problems or ())
    store.reindex()
    assert not store.verify(say=said.append).problems


def test_a_record_of_the_wrong_shape_read_by_key_is_set_aside(store: Store) -> None:
    """JSON, but a field of the wrong type: `read` took the whole eval down (a traceback in
    the grade target, the report refused); it is set aside and absent now, as a torn one is."""
    from evaluator.grading import GradeRecord

    store.put("grade", KEY, {"outcome": "resolved", "tests": "not a mapping"})
    assert store.read(GradeRecord, KEY) is None
    assert "is unreadable: grade record" in said[0] and "field '" in said[0]
    assert (store.root / "corrupt" / "grade" / KEY).is_dir()


def test_verify_names_a_record_of_the_wrong_shape_and_sets_it_aside(store: Store) -> None:
    """Issue 31's `wrong-type-attempt-field`: JSON of its kind and key, but `steps` a string.
    plan, eval and report count done work from the index and never read it; `verify` read it
    only as JSON and said "0 problem(s)", so it stayed until a reader met it. It is named now,
    with the field and what to do, and `--set-aside` moves it so that its target runs again."""
    import evaluator.attempts  # noqa: F401  (registers the attempt record's type, as the CLI does)

    _attempt(store, KEY)
    _attempt(store, OTHER)
    path = store.record_path("attempt", KEY)
    path.write_text(json.dumps({**json.loads(path.read_bytes()), "steps": "many"}))
    found = store.verify(say=said.append)
    assert found.records == 2 and len(found.problems or ()) == 1
    assert str(path) in said[0] and "field 'steps'" in said[0] and "--set-aside" in said[0]
    fixed = store.verify(aside=True, say=said.append)
    assert fixed.set_aside == 1 and not store.has("attempt", KEY)
    assert [r["key"] for r in store.query("attempt")] == [OTHER]  # the index forgot it
    assert (store.root / "corrupt" / "attempt" / KEY).is_dir()  # kept
    assert not store.verify(say=said.append).problems


def test_the_command_line_knows_every_record_type() -> None:
    """`evaluator store verify` checks each kind through its type only where that type is
    loaded; the command line loads every stage, so it checks them all."""
    code = ("import evaluator.__main__; from evaluator.store._record import _TYPES; "
            "print(' '.join(sorted(_TYPES)))")
    out = subprocess.run([sys.executable, "-c", code], text=True, capture_output=True,
                         timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.stdout.split() == ["attempt", "exploit", "grade", "look", "prediction",
                                  "predictions", "published", "result", "verdict"], out.stderr


@pytest.mark.parametrize("damage", ["missing", "garbage"])
def test_a_missing_or_damaged_index_is_rebuilt_from_the_records(tmp_path: Path,
                                                                 damage: str) -> None:
    first = Store(tmp_path / "store", remote=None)
    _attempt(first, KEY)
    _attempt(first, OTHER)
    first.index.close()
    index = tmp_path / "store" / "index.sqlite"
    for extra in ("-wal", "-shm"):
        Path(f"{index}{extra}").unlink(missing_ok=True)
    if damage == "missing":
        index.unlink()
    else:
        index.write_bytes(b"\x07" * 5000)  # sqlite3: "file is not a database"
    again = Store(tmp_path / "store", remote=None, notify=said.append)
    assert sorted(r["key"] for r in again.query("attempt")) == [KEY, OTHER]
    assert "rebuilt from its" in said[0]
    if damage == "garbage":
        assert list((tmp_path / "store" / "corrupt").glob("index-*/index.sqlite"))
