"""`python -m evaluator.images base [--tag TAG]`: build the base image if absent, print its id."""

from __future__ import annotations

import argparse
import sys

from evaluator.errors import EvalError
from evaluator.images._base import BASE_TAG, ensure_base_image
from evaluator.sandbox import docker_client


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluator.images")
    commands = parser.add_subparsers(dest="command", required=True)
    base = commands.add_parser("base", help="build the base image if absent and print its id")
    base.add_argument("--tag", default=BASE_TAG)
    args = parser.parse_args(argv)
    try:
        print(ensure_base_image(docker_client(), args.tag))
    except EvalError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
