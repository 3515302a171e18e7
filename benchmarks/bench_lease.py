"""What does a lease cost per target: the local flock alone, and with the remote's lease object?

Starts moto's S3 server on loopback (its own process) and times, side by side in one run, N
uncontended leases held and released (what every attempt and grade pays before it runs): the
flock of a store without a remote, then the flock plus the remote lease of a store fronting the
bucket (requests counted). Then the contended case, two "machines" (stores of their own) on one
key: the holder runs a target for --work-s and pushes its record; the waiter's requests while
it waits, and the time from the holder's push to the record landing at the waiter (its poll).

    .venv/bin/python benchmarks/bench_lease.py [--holds 200] [--contended 5] [--work-s 2]
                                               [--latency-ms 0] [--smoke]

`--smoke`: 10 holds, 1 contended key, 0.5 s of work; exits non-zero if a lease misbehaves.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

import bench_remote  # noqa: E402
from bench_remote import BUCKET, Counter, client, remote, start_moto  # noqa: E402

from evaluator.store import Store  # noqa: E402


def holds(store: Store, keys: list[str]) -> float:
    t0 = time.perf_counter()
    for key in keys:
        with store.leases.hold("attempt", key, lambda: False):
            pass
    return time.perf_counter() - t0


def contended(endpoint: str, tmp: Path, key: str, work_s: float) -> tuple[int, float]:
    """(the waiter's requests, seconds from the holder's push to the record at the waiter)."""
    holder = Store(tmp / f"holder-{key[:8]}", remote(endpoint), notify=print)
    counted = Counter()
    waiter = Store(tmp / f"waiter-{key[:8]}", remote(endpoint, counted), notify=print)
    waiter.has("attempt", key)  # its listing, taken before the record exists (a run's start)
    pushed, landed, ran = [0.0], [0.0], []

    def wait() -> None:
        with waiter.leases.hold("attempt", key, lambda: waiter.has_local("attempt", key)):
            landed[0] = time.perf_counter()
            if not waiter.has("attempt", key):
                ran.append(key)

    thread = threading.Thread(target=wait)
    with holder.leases.hold("attempt", key, lambda: holder.has_local("attempt", key)):
        thread.start()
        time.sleep(work_s)
        assert holder.put("attempt", key, {"status": "done"})
        pushed[0] = time.perf_counter()
    thread.join(60)
    if ran or not waiter.has_local("attempt", key):
        raise SystemExit(f"the waiter ran {key} itself: the lease did not hold")
    return counted.n, landed[0] - pushed[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--holds", type=int, default=200, help="uncontended leases, each way")
    ap.add_argument("--contended", type=int, default=5, help="keys two machines contend for")
    ap.add_argument("--work-s", type=float, default=2.0, help="how long the holder runs")
    ap.add_argument("--latency-ms", type=float, default=0.0,
                    help="round-trip time added to every measured request (a remote bucket)")
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args()
    if args.smoke:
        args.holds, args.contended, args.work_s = 10, 1, 0.5
    bench_remote.LATENCY_S = args.latency_ms / 1000
    keys = [f"{i:064x}" for i in range(args.holds)]
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        proc, endpoint = start_moto(tmp / "moto.log")
        try:
            client(endpoint).create_bucket(Bucket=BUCKET)
            t_local = holds(Store(tmp / "local", None), keys)
            counted = Counter()
            fronted = Store(tmp / "fronted", remote(endpoint, counted), notify=print)
            t_remote = holds(fronted, keys)
            n = len(keys)
            print(f"{'uncontended lease':34}{'requests':>10}{'wall s':>10}{'ms / hold':>12}")
            print(f"{'flock (no remote)':34}{0:>10}{t_local:>10.3f}{t_local / n * 1e3:>12.2f}")
            print(f"{'flock + remote lease':34}{counted.n:>10}{t_remote:>10.3f}"
                  f"{t_remote / n * 1e3:>12.2f}")
            print(f"remote lease: {counted.n / n:.1f} requests per hold, "
                  f"{t_remote / max(t_local, 1e-9):.0f}x the flock's wall time")
            if counted.n != 4 * n:  # record look, lease put, record look, lease delete
                raise SystemExit(f"expected 4 requests per uncontended hold, saw {counted.n / n}")
            print(f"\n{'contended key (work ' + str(args.work_s) + ' s)':34}"
                  f"{'waiter requests':>16}{'push -> landed s':>18}")
            for i in range(args.contended):
                reqs, lag = contended(endpoint, tmp, f"{i + 1:064x}", args.work_s)
                print(f"{'key ' + str(i):34}{reqs:>16}{lag:>18.3f}")
        finally:
            proc.terminate()
            proc.wait(timeout=10)


if __name__ == "__main__":
    main()
