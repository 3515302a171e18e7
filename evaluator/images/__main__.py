"""`python -m evaluator.images base|pin`: build the pinned base image, or re-pin its packages.

    python -m evaluator.images base [--tag TAG]   build the base if absent or outdated, print its id
    python -m evaluator.images pin                re-pin lock/base.lock from the mirror today
"""

from __future__ import annotations

import argparse
import sys

from evaluator.errors import EvalError
from evaluator.images._base import BASE_TAG, ensure_base_image, repin
from evaluator.sandbox import docker_client


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluator.images")
    commands = parser.add_subparsers(dest="command", required=True)
    base = commands.add_parser("base", help="build the base image if absent and print its id")
    base.add_argument("--tag", default=BASE_TAG)
    commands.add_parser("pin", help="re-pin the base image's Debian packages (lock/base.lock)")
    args = parser.parse_args(argv)
    try:
        if args.command == "pin":
            print(repin().digest)
        else:
            print(ensure_base_image(docker_client(), args.tag))
    except EvalError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
