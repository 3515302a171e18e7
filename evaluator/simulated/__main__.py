"""`python -m evaluator.simulated`: serve the simulated endpoint until SIGTERM."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading

from evaluator.errors import BadInputError
from evaluator.settings import add_path_options, given_paths, settings

from ._config import load_config
from ._server import make_server
from ._tasks import TaskIndex


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m evaluator.simulated",
        description="A simulated OpenAI-compatible endpoint that plays a coding model.",
    )
    add_path_options(parser, only=("tasks_root",))  # --tasks, as on every other command
    parser.add_argument("--tasks-root", dest="tasks_root", help=argparse.SUPPRESS)  # old spelling
    parser.add_argument("--config", default=None, help="YAML config (default: default.yaml)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--verbose", action="store_true", help="log each request to stderr")
    parser.add_argument(
        "--exit-on-stdin-eof",
        action="store_true",
        help="stop when stdin closes, so a crashed parent leaves no server behind",
    )
    args = parser.parse_args(argv)
    with settings.given(**given_paths(args)):
        args.tasks_root = settings.tasks_root
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        stream=sys.stderr,
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        config = load_config(args.config)
        tasks = TaskIndex.load(args.tasks_root)
    except BadInputError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if not len(tasks):
        logging.getLogger("evaluator.simulated").warning(
            "no tasks found under %s/*/*/task.yaml", args.tasks_root
        )
    server = make_server(config, tasks, args.host, args.port)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    if args.exit_on_stdin_eof:

        def watch_parent() -> None:
            sys.stdin.read()
            stop.set()

        threading.Thread(target=watch_parent, daemon=True).start()
    serving = threading.Thread(
        target=server.serve_forever, args=(0.05,), name="simulated-endpoint", daemon=True
    )
    serving.start()
    print(f"READY {server.base_url}", flush=True)
    # Poll rather than block forever, so the signal handler's set() is seen promptly.
    while not stop.wait(0.2):
        pass
    server.shutdown()
    server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
