"""`evaluator images pull|load|list`: the images of the configured backend's sandboxes.

    evaluator images pull NAME@sha256:...    # from its registry, by digest
    evaluator images load FILE.tar           # what `docker save` (or an OCI archive) holds; - reads stdin
    evaluator images list                    # the daemonless store's images and their names
    evaluator userns -- COMMAND ...          # COMMAND in the daemonless backend's user namespace

Sandboxes never pull: a host gets its images here (or through `doit lock:<set>` on Docker), and
a daemonless host with no registry gets the images the harness builds on Docker as archives:
`docker save IMAGE | evaluator images load -` (the image id, so every key, stays the same).

Without root, the daemonless backend works in a user namespace of the harness's own
(`daemonless._userns`):
`evaluator` and `doit` enter it by themselves when the backend is daemonless; `userns` runs any
other program there (a Ray node, a notebook server, a shell to remove a store).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from evaluator.errors import EvalError
from evaluator.sandbox._backends import open_backend
from evaluator.sandbox.daemonless import USERNS_MARK, ImageStore, userns_command


def add_commands(sub: Any) -> None:
    p = sub.add_parser("images", help="get sandbox images by digest or from an archive "
                       "($EVAL_SANDBOX_BACKEND's store)")
    actions = p.add_subparsers(dest="action", required=True, metavar="action")
    pull = actions.add_parser("pull", help="pull NAME@sha256:... from its registry")
    pull.add_argument("image", nargs="+")
    load = actions.add_parser("load", help="load a docker-archive or OCI archive (- for stdin)")
    load.add_argument("archive")
    actions.add_parser("list", help="list the daemonless store's images")
    p.set_defaults(run=_run)
    u = sub.add_parser("userns", help="run a command in the user namespace the daemonless "
                       "backend uses without root (your subordinate ids)")
    u.add_argument("argv", nargs=argparse.REMAINDER, metavar="-- COMMAND ...")
    u.set_defaults(run=_userns_run)


def _userns_run(args: Any) -> int:
    argv = args.argv[1:] if args.argv[:1] == ["--"] else args.argv
    if not argv:
        print("error: `evaluator userns -- COMMAND ...`: name the command to run",
              file=sys.stderr)
        return 2
    try:
        full = argv if os.geteuid() == 0 else userns_command(argv)
        os.execvpe(full[0], full, {**os.environ, USERNS_MARK: "1"})
    except (EvalError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0  # not reached: exec replaced this process


def _run(args: Any) -> int:
    try:
        images = open_backend().images
        if args.action == "pull":
            for image in args.image:
                images.pull(image)
                print(f"pulled {image}")
        elif args.action == "load":
            if not isinstance(images, ImageStore):
                images.load(_read(args.archive))
            elif args.archive == "-":
                images.root.mkdir(parents=True, exist_ok=True)
                with tempfile.NamedTemporaryFile(dir=images.root) as f:
                    shutil.copyfileobj(sys.stdin.buffer, f)
                    f.flush()
                    print("\n".join(images.load_file(Path(f.name))))
            else:
                print("\n".join(images.load_file(Path(args.archive))))
        elif isinstance(images, ImageStore):
            for record in sorted((images.root / "images").glob("*.json")):
                meta = json.loads(record.read_text())
                print(meta["id"], " ".join(meta.get("names", [])))
        else:
            print("error: `images list` lists the daemonless store; use `docker images`",
                  file=sys.stderr)
            return 2
    except EvalError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


def _read(path: str) -> bytes:
    return sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
