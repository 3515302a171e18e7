"""What one command costs on each sandbox backend: the wall time of `exec("true")`, and of opening
and closing a sandbox, side by side in one run (the daemonless backend makes a PID namespace and
its keeper, a mount namespace with its view, and a bubblewrap under the seccomp filter per
command; an engine's exec is one API call). Figures: min, median and max per backend, and each
median as a ratio of Docker's.

    .venv/bin/python benchmarks/bench_exec.py [--backends docker podman daemonless] [--execs 40]
        [--opens 5] [--smoke]

`--smoke`: five execs and one open per backend; exits non-zero if a backend that is here fails
(a backend this machine lacks is reported as not run).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from evaluator.errors import EvalError  # noqa: E402
from evaluator.images import BASE_TAG, ensure_base_image  # noqa: E402
from evaluator.sandbox import SandboxLimits, docker_client, open_backend  # noqa: E402


def _figures(times: list[float]) -> tuple[float, float, float]:
    return min(times), statistics.median(times), max(times)


def _measure(name: str, image: str, execs: int, opens: int) -> dict[str, tuple[float, ...]]:
    sandboxes = open_backend(name)
    if name == "daemonless":
        from tests.daemonless import bring  # the image by id, from this machine's Docker engine
        bring(sandboxes, image)  # type: ignore[arg-type]
    opened = []
    for _ in range(opens):
        started = time.monotonic()
        with sandboxes.open(image, SandboxLimits(), purpose="bench") as sb:
            sb.exec("true")
        opened.append(time.monotonic() - started)
    with sandboxes.open(image, SandboxLimits(), purpose="bench") as sb:
        sb.exec("true")  # the first exec warms what is cached per sandbox
        times = []
        for _ in range(execs):
            started = time.monotonic()
            result = sb.exec("true")
            times.append(time.monotonic() - started)
            if result.exit_code != 0:
                raise RuntimeError(f"{name}: `true` exited {result.exit_code}: {result.output}")
    return {"exec": _figures(times), "open+exec+close": _figures(opened)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backends", nargs="+", default=["docker", "podman", "daemonless"])
    parser.add_argument("--execs", type=int, default=40)
    parser.add_argument("--opens", type=int, default=5)
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    execs, opens = (5, 1) if args.smoke else (args.execs, args.opens)
    image = ensure_base_image(docker_client(), BASE_TAG)
    results: dict[str, dict[str, tuple[float, ...]]] = {}
    failed = False
    for name in args.backends:
        try:
            results[name] = _measure(name, image, execs, opens)
        except EvalError as e:  # the backend is not on this machine
            print(f"{name:11s} not run: {e}")
        except Exception as e:  # noqa: BLE001 - a backend that is here and fails
            print(f"{name:11s} FAILED: {type(e).__name__}: {e}")
            failed = True
    for what in ("exec", "open+exec+close"):
        print(f"\n{what} (s)      min     median  max     median / docker's")
        base = results.get("docker", {}).get(what)
        for name, figures in results.items():
            low, mid, high = figures[what]
            ratio = f"{mid / base[1]:.2f}" if base else "-"
            print(f"  {name:11s} {low:7.3f} {mid:7.3f} {high:7.3f}  {ratio}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
