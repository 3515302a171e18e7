"""`python -m evaluator remote push [--all]`: upload what the local store holds and the remote
lacks (what runs made while the remote was out of reach, or, with --all, every local record).
`python -m evaluator store verify [--set-aside] [--hashes] [--reindex]`: every record read back and every
blob it needs present, each problem named with what to do (exit 1 while any is left)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from evaluator.errors import EvalError
from evaluator.settings import add_path_options
from evaluator.store._pending import local_keys
from evaluator.store._store import Store


def add_commands(sub: Any) -> None:
    p = sub.add_parser("remote", help="the remote store ($EVAL_REMOTE): upload pending records")
    actions = p.add_subparsers(dest="action", required=True)
    push = actions.add_parser("push", help="upload records that runs could not upload")
    push.add_argument("--all", action="store_true",
                      help="also every local record the remote lacks (e.g. made before "
                           "$EVAL_REMOTE was set)")
    add_path_options(push, only=("store",))
    push.set_defaults(run=_push)
    p = sub.add_parser("store", help="the local store: verify that every record reads back and "
                                     "has its blobs")
    actions = p.add_subparsers(dest="action", required=True)
    check = actions.add_parser("verify", help="read every record back and check the blobs each "
                                              "needs; name each problem and what to do")
    check.add_argument("--set-aside", action="store_true",
                       help="move what is wrong under <store>/corrupt/ (kept, never deleted), so "
                            "that its target runs again")
    check.add_argument("--hashes", action="store_true",
                       help="also re-hash every blob (reads the whole store)")
    check.add_argument("--reindex", action="store_true",
                       help="then rebuild the index from the records")
    add_path_options(check, only=("store",))
    check.set_defaults(run=_verify)


def _verify(args: argparse.Namespace) -> int:
    try:
        store = Store()
        found = store.verify(aside=args.set_aside, hashes=args.hashes)
        if args.reindex:
            print(f"reindexed {store.reindex()} record(s)")
            found.problems = [p for p in found.problems or () if "--reindex" not in p]
    except EvalError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    problems = len(found.problems or ())
    print(f"checked {found.records} record(s)"
          + (f" and {found.blobs} blob(s)" if args.hashes else "")
          + f" in {store.root}: {problems} problem(s)"
          + (f", {found.set_aside} set aside under {store.root / 'corrupt'}"
             if args.set_aside else ""))
    return 1 if problems and not args.set_aside else 0


def _push(args: argparse.Namespace) -> int:
    try:
        store = Store()
    except EvalError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    cache = store.remote
    if cache is None or not cache.backend.writable:
        print("error: nothing to push to: set $EVAL_REMOTE (s3://bucket/prefix) and "
              "$EVAL_REMOTE_MODE=readwrite with a write credential", file=sys.stderr)
        return 2
    assert cache.pending is not None
    try:
        uploaded, left = cache.flush_pending()
        if args.all and not cache.offline:
            kinds = sorted(p.name for p in (store.root / "records").iterdir() if p.is_dir())
            for kind in kinds:
                for key in local_keys(store.root / "records", kind):
                    if not cache.listed(kind, key) and not cache.offline:
                        cache.pending.add(kind, key)
            more, left = cache.flush_pending()
            uploaded += more
    except EvalError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"uploaded {uploaded} record(s) to {cache.backend.url}; {left} still pending")
    return 1 if left or cache.offline else 0
