"""A stand-in for `doit` where the tests need no Docker: it does what `<dir>/<agent>.mode` says.

    sleep:S   print a target line, sleep S seconds, exit 0 (the default, S = 0.5)
    fail      print why and exit 1, as doit does when attempts are unfinished
    die       SIGKILL its worker (the parent), as an OOM killer would
    term      SIGTERM its worker, as someone stopping it would

Each call appends its argv and run knobs to `<dir>/calls.jsonl`.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path


def main() -> int:
    where = Path(os.environ["STUB_DOIT_DIR"])
    agent = os.environ.get("EVAL_ONLY_AGENTS", "")
    with open(where / "calls.jsonl", "a") as f:
        f.write(json.dumps({"argv": sys.argv[1:], "agents": agent, "pid": os.getpid(),
                            "samples": os.environ.get("EVAL_SAMPLES"),
                            "isolation": os.environ.get("EVAL_ISOLATION")}) + "\n")
    mode_file = where / f"{agent}.mode"
    mode = mode_file.read_text().strip() if mode_file.is_file() else "sleep:0.5"
    task_set = sys.argv[-1].split(":", 1)[1]
    print(f".  attempt:{task_set}/{agent}/t1/0", flush=True)
    if mode == "fail":
        print("TaskFailed - taskid:eval:" + task_set, file=sys.stderr)
        print("1 attempt(s) unfinished (infra errors or budget); run `doit eval:mini` again",
              file=sys.stderr, flush=True)
        return 1
    if mode in ("die", "term"):
        os.kill(os.getppid(), signal.SIGKILL if mode == "die" else signal.SIGTERM)
        time.sleep(30)
        return 0
    time.sleep(float(mode.split(":", 1)[1]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
