"""What does a no-op existence check cost against the remote store, batched or one HEAD per key?

Starts moto's S3 server on loopback (its own process), lands N records in one bucket, then asks
whether each of the N keys exists, two ways: the store's way (the kind's listing, one paginated
LIST taken once and kept for the run) and the naive way (one HEAD per key). Prints requests and
wall time side by side with the ratio, then the cost of the same check on a warm local cache,
with and without a remote configured (no request at all: the local stat answers). Last, a
first run on an empty local store in front of a full remote (records with a blob each), filled
two ways: one target after another (each `has` fetches its record and blobs in turn) and the
pipeline's way, `Store.prefetch` over the run's keys (records and blobs in parallel).

    .venv/bin/python benchmarks/bench_remote.py [--keys 10000] [--warm-keys 2000] [--cold-keys 1000]
                                                [--latency-ms 0] [--smoke]

`--smoke`: 20 keys of each kind (moto started and stopped as in a real run), exiting non-zero
when a check finds a key missing or the server does not start.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from evaluator.remote import RemoteConfig, S3Remote  # noqa: E402
from evaluator.store import Store  # noqa: E402

BUCKET = "bench-team-cache"
KIND = "grade"


def start_moto(log: Path) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p",
                                 str(port)], stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return proc, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit(f"moto server did not start:\n{log.read_text(errors='replace')[-2000:]}")


# Added to every measured request (--latency-ms): moto answers on loopback in well under a
# millisecond, a bucket across a network in tens of them.
LATENCY_S = 0.0


class Counter:
    def __init__(self) -> None:
        self.n = 0

    def hook(self, **_: Any) -> None:
        self.n += 1
        if LATENCY_S:
            time.sleep(LATENCY_S)


def client(endpoint: str, counter: Counter | None = None) -> Any:
    import boto3
    from botocore.config import Config

    c = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                     aws_access_key_id="bench", aws_secret_access_key="bench",
                     config=Config(max_pool_connections=16))
    if counter is not None:
        c.meta.events.register("before-send.s3", counter.hook)
    return c


def remote(endpoint: str, counter: Counter | None = None) -> S3Remote:
    config = RemoteConfig.parse(f"s3://{BUCKET}/bench", "readwrite", endpoint)
    return S3Remote(config, client_factory=lambda c: client(endpoint, counter))


def timed(fn: Any) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def row(name: str, requests: int, wall: float, keys: int) -> str:
    return f"{name:34}{requests:>10}{wall:>10.3f}{wall / keys * 1e6:>12.1f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keys", type=int, default=10_000, help="records in the remote, all checked")
    ap.add_argument("--warm-keys", type=int, default=2_000, help="records on the warm local cache")
    ap.add_argument("--cold-keys", type=int, default=1_000,
                    help="records (one blob each) a first run on an empty store fetches")
    ap.add_argument("--latency-ms", type=float, default=0.0,
                    help="round-trip time added to every measured request (a remote bucket)")
    ap.add_argument("--smoke", action="store_true", help="20 keys each: does it still run?")
    args = ap.parse_args()
    if args.smoke:
        args.keys = args.warm_keys = args.cold_keys = 20
    global LATENCY_S
    LATENCY_S = args.latency_ms / 1000
    keys = [f"{i:064x}" for i in range(args.keys)]
    with tempfile.TemporaryDirectory() as tmp:
        proc, endpoint = start_moto(Path(tmp) / "moto.log")
        try:
            client(endpoint).create_bucket(Bucket=BUCKET)
            writer = remote(endpoint)
            with ThreadPoolExecutor(16) as pool:
                t_fill, _ = timed(lambda: list(pool.map(
                    lambda k: writer.put_record(KIND, k, b"{}"), keys)))
            print(f"landed {len(keys)} records in s3://{BUCKET}/bench in {t_fill:.1f}s")

            batched = Counter()
            store = Store(Path(tmp) / "cold", remote(endpoint, batched), notify=print)
            assert store.remote is not None
            cache = store.remote
            t_batched, found = timed(lambda: sum(cache.listed(KIND, k) for k in keys))
            assert found == len(keys), found

            heads, prefix = Counter(), f"bench/records/{KIND}/"
            naive = client(endpoint, heads)
            t_head, found = timed(lambda: sum(
                bool(naive.head_object(Bucket=BUCKET, Key=f"{prefix}{k}.json")) for k in keys))
            assert found == len(keys), found

            print(f"\nno-op existence check of {len(keys)} keys, remote on moto at {endpoint}")
            print(f"{'how':34}{'requests':>10}{'wall s':>10}{'us / key':>12}")
            print(row("batched (one paginated LIST)", batched.n, t_batched, len(keys)))
            print(row("one HEAD per key", heads.n, t_head, len(keys)))
            print(f"ratio HEAD / batched: {t_head / t_batched:.1f}x wall, "
                  f"{heads.n / max(batched.n, 1):.0f}x requests")
            warm(Path(tmp), endpoint, args.warm_keys)
            cold(Path(tmp), endpoint, args.cold_keys)
        finally:
            proc.terminate()
            proc.wait(timeout=10)


def warm(tmp: Path, endpoint: str, n: int) -> None:
    """A no-op rerun on a warm local cache: the same check, with and without a remote."""
    local = Store(tmp / "warm", None)
    keys = [f"{i:064x}" for i in range(n)]
    for k in keys:
        local.put(KIND, k, {"status": "resolved"})
    counter = Counter()
    fronted = Store(tmp / "warm", remote(endpoint, counter), notify=print)
    t_local, a = timed(lambda: sum(local.has(KIND, k) for k in keys))
    t_fronted, b = timed(lambda: sum(fronted.has(KIND, k) for k in keys))
    assert a == b == n
    print(f"\nwarm local cache, {n} keys already here")
    print(row("local store alone", 0, t_local, n))
    print(row("local store fronting the remote", counter.n, t_fronted, n))
    print(f"ratio fronted / local: {t_fronted / t_local:.2f}x")


def cold(tmp: Path, endpoint: str, n: int) -> None:
    """A first run with an empty local store and a full remote: serial fetches vs prefetch."""
    kind = "attempt"
    writer = Store(tmp / "cold-writer", remote(endpoint), notify=print)
    keys = [f"{i:064x}" for i in range(n)]
    t_fill, _ = timed(lambda: [writer.put(kind, k, {"log": writer.put_blob(f"log {k}".encode())})
                               for k in keys])
    print(f"\nfirst run, empty local store, {n} records (+1 blob each) in the remote "
          f"(landed in {t_fill:.1f}s)")
    print(f"{'how':34}{'requests':>10}{'wall s':>10}{'us / key':>12}")
    serial_count, parallel_count = Counter(), Counter()
    serial = Store(tmp / "cold-serial", remote(endpoint, serial_count), notify=print)
    t_serial, a = timed(lambda: sum(serial.has(kind, k) for k in keys))
    parallel = Store(tmp / "cold-prefetch", remote(endpoint, parallel_count), notify=print)
    t_parallel, b = timed(lambda: (parallel.prefetch(kind, keys),
                                   sum(parallel.has(kind, k) for k in keys))[1])
    assert a == b == n, (a, b)
    print(row("one target after another", serial_count.n, t_serial, n))
    print(row("prefetch (8 in parallel)", parallel_count.n, t_parallel, n))
    print(f"ratio serial / prefetch: {t_serial / t_parallel:.1f}x wall")


if __name__ == "__main__":
    os.environ.pop("EVAL_REMOTE", None)  # the stores here name their remote themselves
    main()
