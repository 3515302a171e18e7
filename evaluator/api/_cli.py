"""`python -m evaluator serve`: the HTTP API under uvicorn.

    python -m evaluator serve [--host 127.0.0.1] [--port 8080] [--token TOKEN]

Paths come from the same EVAL_* variables as doit; the token from --token or EVAL_API_TOKEN
(prefer the variable: a command line is visible to every user of the machine).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import Any

from evaluator.api._errors import UnsafeBindError
from evaluator.api._settings import TOKEN_ENV, Settings, check_bind
from evaluator.settings import add_path_options


def add_commands(sub: Any) -> None:
    """Register `serve` on an argparse subparsers object."""
    p = sub.add_parser("serve", help="serve the HTTP API (runs, leaderboard, compare)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1; any other needs a token)")
    p.add_argument("--port", type=int, default=8080, help="default 8080")
    p.add_argument("--token", help=f"bearer token clients must send (default: ${TOKEN_ENV})")
    p.add_argument("--max-runs", type=int, default=2, help="runs executing at once (default 2)")
    p.add_argument("--jobs", type=int, default=2, help="doit -n of each run (default 2)")
    add_path_options(p)
    p.set_defaults(run=_run_serve)


def _run_serve(args: argparse.Namespace) -> int:
    if args.max_runs < 1 or args.jobs < 1:
        print("serve: --max-runs and --jobs must be at least 1", file=sys.stderr)
        return 2
    settings = Settings.from_env()
    settings = replace(settings, token=args.token or settings.token, max_runs=args.max_runs,
                       jobs=args.jobs)
    try:
        check_bind(args.host, settings.token)
    except UnsafeBindError as exc:
        print(f"serve: {exc}", file=sys.stderr)
        return 2
    # The server's stack (uvicorn, FastAPI, the attempts) loads only when `serve` runs: every
    # command's parser imports this module.
    import uvicorn

    from evaluator.api._app import create_app
    from evaluator.attempts import protect_harness

    protect_harness()  # its environ holds the model's key (and the API token)

    uvicorn.run(create_app(settings), host=args.host, port=args.port, log_level="info")
    return 0
