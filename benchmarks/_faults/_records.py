"""Faults in the store itself: record files torn, emptied, overwritten or of the wrong shape,
blobs gone or damaged, the index gone or damaged, strays and leftovers."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable

from benchmarks._faults._project import Fault, Project, Verdict, executed


def _attempt_damaged(change: Callable[[bytes, Project], bytes]) -> Callable[[Project, Verdict],
                                                                          None]:
    """One attempt record damaged. plan, eval and report count what is done from the index (they
    read no record file of done work: the scale work), so they run on unharmed; `store verify`
    names the file and what to do, `--set-aside` moves it under corrupt/, and the next eval runs
    that attempt alone again."""

    def run(p: Project, v: Verdict) -> None:
        label = p.label()
        path = p.attempt(label)
        path.write_bytes(change(path.read_bytes(), p))
        plan = p.doit("plan:mini")
        v.rc(plan, True)
        v.rc(p.doit("report:mini"), True)
        check = p.ev("store", "verify")
        v.rc(check, False)
        v.says(check, str(path), "--set-aside")
        v.rc(p.ev("store", "verify", "--set-aside"), True)
        v.plans(p.doit("plan:mini"), 1)
        ev = p.doit("eval:mini")
        v.rc(ev, True)
        v.ran(ev, [f"attempt:mini/{label}"])
        v.rc(p.doit("report:mini"), True)

    return run


def _another(data: bytes, p: Project) -> bytes:
    other = p.attempt(p.label(sample=3, agent=1))
    return other.read_bytes()


def _wrong_type(data: bytes, p: Project) -> bytes:
    return json.dumps({**json.loads(data), "steps": "many"}).encode()


def _torn_result(p: Project, v: Verdict) -> None:
    """A result record cut short. As with a damaged attempt record (and since the scale merge),
    eval and report count done work from the index and read no record file of it, so they run
    on unharmed and cannot name it: `store verify` names it, `--set-aside` moves it under
    corrupt/, and the next eval decides that result again from the attempt and its grade, both
    kept (no attempt runs, and nothing else is decided again)."""
    label = p.label()
    key = p.attempt(label).stem
    path = next(f for f in p.records("result").values()
                if json.loads(f.read_bytes())["attempt"] == key)
    path.write_bytes(path.read_bytes()[:60])
    first = p.doit("eval:mini")
    v.rc(first, True)
    v.ran(first, [])
    v.rc(p.doit("report:mini"), True)
    check = p.ev("store", "verify")
    v.rc(check, False)
    v.says(check, str(path), "--set-aside")
    v.rc(p.ev("store", "verify", "--set-aside"), True)
    again = p.doit("eval:mini")
    v.rc(again, True)
    v.ran(again, [])  # the attempt is kept: only its result is decided again
    graded = executed(again, "evalgrade:")
    v.check(graded == [f"evalgrade:mini/{label}"], f"`{again.cmd}` decided {graded[:4]} again, "
            f"wanted evalgrade:mini/{label} alone")
    v.check(path.is_file() and json.loads(path.read_bytes())["attempt"] == key,
            f"{path} was not decided again")
    v.rc(p.doit("report:mini"), True)
    v.rc(p.ev("store", "verify"), True)


def _torn_grade(p: Project, v: Verdict) -> None:
    path = sorted(p.records("grade").values())[0]
    path.write_bytes(path.read_bytes()[:80])
    v.rc(p.doit("eval:mini"), True)
    report = p.doit("report:mini")
    v.rc(report, True)
    check = p.ev("store", "verify")
    v.check(str(path) in report.text + check.text, f"{path} is never named")


def _torn_verdict(p: Project, v: Verdict) -> None:
    # One of `mini`'s: the first by key was `other`'s in some generated projects (keys change
    # with the project), and the row then judged the wrong set.
    path = sorted(f for f in p.records("verdict").values()
                  if json.loads(f.read_bytes())["task_set"] == "mini")[0]
    path.write_bytes(b'{"kind": "verdict", "ke')
    plan = p.doit("plan:mini")
    v.rc(plan, False)
    v.says(plan, str(path), "run `doit gold:mini` first")
    gold = p.doit("gold:mini")
    v.rc(gold, True)
    v.check(".  grade:" not in gold.text, "gold graded again to decide a verdict it had")
    v.plans(p.doit("plan:mini"), 0)


def _index(damage: str) -> Callable[[Project, Verdict], None]:
    def run(p: Project, v: Verdict) -> None:
        index = p.store / "index.sqlite"
        for suffix in ("-wal", "-shm"):
            (p.store / f"index.sqlite{suffix}").unlink(missing_ok=True)
        if damage == "gone":
            index.unlink()
        else:
            index.write_bytes(os.urandom(8192))
        report = p.doit("report:mini")
        v.rc(report, True)
        v.says(report, "was rebuilt from its")
        summary = json.loads((p.root / "reports" / "mini" / "summary.json").read_text())
        counted = sum(r["attempts"] for r in summary["leaderboard"])
        v.check(counted == p.attempts, f"the report counts {counted} of {p.attempts} attempts")
        v.rc(p.ev("store", "verify"), True)

    return run


def _strays(p: Project, v: Verdict) -> None:
    some = next(iter(p.records("attempt").values())).parent
    (some / "README").write_text("notes\n")
    (some / "notes.json").write_text("{}")
    (p.store / "records" / "scratch" / "ab").mkdir(parents=True)
    (p.store / "records" / "scratch" / "ab" / ("ab" * 32 + ".json")).write_bytes(b"\x00garbage")
    (p.store / "tmp" / ".w-half").write_bytes(b"half a rec")
    v.plans(p.doit("plan:mini"), 0)
    v.rc(p.doit("eval:mini"), True)
    check = p.ev("store", "verify")
    v.says(check, "scratch/" + "ab" * 32)


def _torn_error_note(p: Project, v: Verdict) -> None:
    key = p.attempt(p.label()).stem
    note = p.store / "errors" / "attempt" / key / "1.000000-deadbeef.json"
    note.parent.mkdir(parents=True)
    note.write_bytes(b"{\"cause\": \"Infra")
    v.rc(p.doit("eval:mini"), True)
    v.rc(p.doit("report:mini"), True)


def _blob(field: str, *, set_aside: bool) -> Callable[[Project, Verdict], None]:
    def run(p: Project, v: Verdict) -> None:
        label = p.label()
        record = json.loads(p.attempt(label).read_bytes())
        digest = record.get(field, "")
        if field == "observation":
            steps = json.loads((p.store / "blobs" / record["trajectory"][:2] /
                                record["trajectory"][2:]).read_bytes())["steps"]
            digest = steps[0]["observation"]
        (p.store / "blobs" / digest[:2] / digest[2:]).unlink()
        check = p.ev("store", "verify")
        v.rc(check, False)
        v.says(check, f"needs blob {digest}", "--set-aside")
        v.rc(p.doit("report:mini"), True)  # its pages were rendered before: kept whole
        # A page rendered now reads the blob and says it is missing (a fresh site: the report's
        # incremental site renders a page again only when what it is made from changed).
        fresh = p.doit("report:mini", EVAL_REPORTS=str(p.root / "reports-fresh"))
        v.rc(fresh, True)
        v.says(fresh, digest)
        if set_aside:
            v.rc(p.ev("store", "verify", "--set-aside"), True)
            again = p.doit("eval:mini")
            v.rc(again, True)
            v.ran(again, [f"attempt:mini/{label}"])

    return run


def _damaged_blob(p: Project, v: Verdict) -> None:
    record = json.loads(p.attempt(p.label()).read_bytes())
    blob = p.store / "blobs" / record["trajectory"][:2] / record["trajectory"][2:]
    blob.write_bytes(blob.read_bytes().replace(b"steps", b"stePs"))
    check = p.ev("store", "verify", "--hashes")
    v.rc(check, False)
    v.says(check, f"blob {record['trajectory']}", "do not match")


def _blob_folder_gone(p: Project, v: Verdict) -> None:
    record = json.loads(p.attempt(p.label()).read_bytes())
    shutil.rmtree(p.store / "blobs" / record["conversation"][:2])
    check = p.ev("store", "verify")
    v.rc(check, False)
    v.says(check, f"needs blob {record['conversation']}")
    v.rc(p.doit("report:mini"), True)


FAULTS = [
    Fault("torn-attempt-record", "an attempt record cut to a third",
          _attempt_damaged(lambda d, p: d[: len(d) // 3])),
    Fault("empty-attempt-record", "an attempt record of 0 bytes", _attempt_damaged(
        lambda d, p: b"")),
    Fault("binary-attempt-record", "an attempt record overwritten with random bytes",
          _attempt_damaged(lambda d, p: b"\xff" + os.urandom(len(d)))),
    Fault("null-attempt-record", "an attempt record holding JSON null",
          _attempt_damaged(lambda d, p: b"null")),
    Fault("swapped-attempt-record", "an attempt record holding another attempt's record",
          _attempt_damaged(_another)),
    Fault("wrong-type-attempt-field", "an attempt record whose `steps` is a string",
          _attempt_damaged(_wrong_type)),
    Fault("torn-result-record", "a result record cut short", _torn_result),
    Fault("torn-grade-record", "a grade record (shared by many results) cut short",
          _torn_grade),
    Fault("torn-verdict-record", "a gold verdict record cut short", _torn_verdict),
    Fault("index-gone", "index.sqlite deleted", _index("gone"), smoke=True),
    Fault("index-garbage", "index.sqlite overwritten with random bytes", _index("garbage")),
    Fault("strays-in-store", "stray files, a scratch kind of garbage, a half temp file",
          _strays),
    Fault("torn-error-note", "an infra error note cut short", _torn_error_note),
    Fault("missing-trajectory-blob", "an attempt's trajectory blob deleted, then set aside",
          _blob("trajectory", set_aside=True)),
    Fault("missing-conversation-blob", "an attempt's conversation blob deleted",
          _blob("conversation", set_aside=False)),
    Fault("missing-observation-blob", "a step's observation blob (shared by samples) deleted",
          _blob("observation", set_aside=False)),
    Fault("missing-patch-blob", "a patch blob (shared by attempts and grades) deleted",
          _blob("patch", set_aside=False)),
    Fault("damaged-blob", "a trajectory blob's bytes changed", _damaged_blob),
    Fault("blob-folder-gone", "a whole blobs/xx folder deleted", _blob_folder_gone),
]
