"""`python -m evaluator.inference [--port N] [--slots N] ... [-- COMMAND ...]`: the real model's
server on loopback. Without a command it serves until interrupted; with one, it runs the command
while the server is up and exits with its status (how `make demo-real` runs its eval)."""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import time

from evaluator.errors import EvalError

from ._process import MODEL_ID, ServerOptions, start_inference_server


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluator.inference", description=__doc__)
    defaults = ServerOptions()
    parser.add_argument("--port", type=int, default=8642)
    parser.add_argument("--slots", type=int, default=defaults.slots,
                        help="requests generated at once")
    parser.add_argument("--ctx-size", type=int, default=defaults.ctx_size,
                        help="context window of each slot, in tokens")
    parser.add_argument("--threads", type=int, default=defaults.threads)
    parser.add_argument("--queue", type=int, default=defaults.queue,
                        help="requests that may wait for a slot before 429 (-1: no bound)")
    parser.add_argument("command", nargs=argparse.REMAINDER,
                        help="-- COMMAND ...: run it while the server is up")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    options = ServerOptions(port=args.port, slots=args.slots, ctx_size=args.ctx_size,
                            threads=args.threads, queue=args.queue)
    started = time.monotonic()
    try:
        server = start_inference_server(options)
    except EvalError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    with server:
        print(f"model {MODEL_ID} at {server.base_url} ({options.slots} slot(s), context "
              f"{options.ctx_size} tokens; up in {time.monotonic() - started:.1f}s)", flush=True)
        if command:
            return subprocess.call(command)
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        try:
            server.process.wait()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
