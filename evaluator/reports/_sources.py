"""Where a report reads from: the store, the task sets, the locks, eval configs and agents."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from evaluator.settings import settings
from evaluator.store import Store

PathLike = str | os.PathLike[str]


@dataclass(frozen=True)
class Sources:
    """Paths of every input of a report, and where rendered reports go."""

    store: Path | None = None  # None: $EVAL_STORE, else .eval (the Store's own default)
    tasks_root: Path = Path("tasks")
    lock_dir: Path = Path("lock")
    evals_root: Path = Path("evals")
    agents_root: Path = Path("agents")
    out_root: Path = Path("reports/out")
    # A Store the caller opened itself (with the remote it chose, or none): used as is, so an
    # injected remote is never swapped for the one $EVAL_REMOTE names.
    opened: Store | None = field(default=None, compare=False, repr=False)

    @classmethod
    def from_env(cls) -> Sources:
        """The path settings in force (the same the doit pipeline reads, so `doit report` and
        the command line agree with `doit eval` on where everything lives)."""
        return cls(store=settings.store, tasks_root=settings.tasks_root,
                   lock_dir=settings.lock_dir, evals_root=settings.evals_root,
                   agents_root=settings.agents_root, out_root=settings.reports_root)

    @classmethod
    def of(cls, *, store: Store | PathLike | None = None, tasks_root: PathLike = "tasks",
           lock_dir: PathLike = "lock", evals_root: PathLike = "evals",
           agents_root: PathLike = "agents") -> Sources:
        """From the keyword arguments of the public functions."""
        root = store.root if isinstance(store, Store) else None if store is None else Path(store)
        return cls(store=root, tasks_root=Path(tasks_root), lock_dir=Path(lock_dir),
                   evals_root=Path(evals_root), agents_root=Path(agents_root),
                   opened=store if isinstance(store, Store) else None)

    def open_store(self) -> Store:
        return self.opened if self.opened is not None else Store(self.store)
