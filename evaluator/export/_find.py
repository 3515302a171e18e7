"""Which stored attempt an export means: by set, agent, task and sample, or by key."""

from __future__ import annotations

from evaluator.attempts import AttemptRecord
from evaluator.errors import BadInputError
from evaluator.store import Store


def find_attempt(store: Store, *, task_set: str | None = None, agent: str | None = None,
                 task: str | None = None, sample: int = 0,
                 key: str | None = None) -> tuple[AttemptRecord, str]:
    """(the attempt record, a note when several matched and the newest was taken). The one
    record asked for by key is read strictly (BadInputError naming a bad field); a search
    by names leaves out the records that do not parse."""
    if key is not None:
        found = [r for r in store.iter_records("attempt") if str(r.get("key", "")).startswith(key)]
        if len(found) != 1:
            raise BadInputError(f"--key {key!r} matches {len(found)} attempts in {store.root}; "
                                "give more of the key")
        return AttemptRecord.parse(found[0]), ""
    if not (task_set and agent and task):
        raise BadInputError("say which attempt: --set, --agent and --task (and --sample), "
                            "or --key")
    rows = store.select_readable(AttemptRecord, task_set=task_set, subject=agent, task_id=task)
    records = [r for r in rows if r.sample_idx == sample]
    if not records:
        raise BadInputError(f"no stored attempt of agent {agent!r} on task {task!r} of set "
                            f"{task_set!r}, sample {sample}, in {store.root}; run "
                            f"`doit eval:{task_set}` first, or check the names")
    records.sort(key=lambda r: r.finished)
    note = (f"{len(records)} stored attempts match (other agent versions); exported the newest, "
            f"{records[-1].key[:16]}; pass --key to choose another" if len(records) > 1 else "")
    return records[-1], note
