"""The store: content-addressed blobs, create-once JSON records, and a SQLite index, optionally
fronting a remote (an S3 bucket, see evaluator.remote) as a checked read- and write-through cache."""

from evaluator.store._backend import RemoteBackend
from evaluator.store._cli import add_commands
from evaluator.store._files import create_exclusive, disk_full, is_full, path_named, replace_atomic
from evaluator.store._index import connect_wal
from evaluator.store._lease import FileLeases, Leases
from evaluator.store._pending import Pending
from evaluator.store._record import Record
from evaluator.store._remote_lease import RemoteLeases
from evaluator.store._store import DEFAULT_ROOT, FROM_ENV, Store, default_root
from evaluator.store._through import RemoteCache

__all__ = ["DEFAULT_ROOT", "FROM_ENV", "FileLeases", "Leases", "Pending", "Record", "RemoteBackend",
           "RemoteCache", "RemoteLeases", "Store", "add_commands", "connect_wal", "create_exclusive",
           "default_root", "disk_full", "is_full", "path_named", "replace_atomic"]
