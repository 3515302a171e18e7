"""The store: content-addressed blobs, create-once JSON records, and a SQLite index."""

from evaluator.store._store import DEFAULT_ROOT, Store, default_root

__all__ = ["DEFAULT_ROOT", "Store", "default_root"]
