"""A generated project a fault is injected into, the commands a user runs on it, and the checks
of the promise (named, fails only itself, says what to do, nothing lost)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOIT = [sys.executable, "-m", "doit", "-f", str(REPO / "dodo.py")]
EVALUATOR = [sys.executable, "-m", "evaluator"]
# What a promise-keeping failure never shows: a traceback, or an exception no one named.
BARE = ("Traceback (most recent call last)", "JSONDecodeError", "UnicodeDecodeError",
        "[Errno 28]", "KeyError:", "sqlite3.", "DatabaseError")


@dataclass
class Out:
    cmd: str
    rc: int
    text: str  # stdout and stderr together


@dataclass
class Project:
    """A copy of the generated project: `mini` (tasks x agents x samples attempts, all done) and
    `other` (one task), a store under `store/`, reports under `reports/`."""

    root: Path
    attempts: int  # planned attempts of `mini`
    outs: list[Out] = field(default_factory=list)

    @property
    def store(self) -> Path:
        return self.root / "store"

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("EVAL_")}
        env.update({"EVAL_TASKS": str(self.root / "tasks"), "EVAL_LOCK_DIR": str(self.root / "lock"),
                    "EVAL_STORE": str(self.store), "EVAL_EVALS": str(self.root / "evals"),
                    "EVAL_AGENTS": str(self.root / "agents"),
                    "EVAL_REPORTS": str(self.root / "reports"), "PYTHONPATH": str(REPO),
                    "EVAL_STORE_MIN_FREE_MB": "1"})
        env.update(extra)
        return env

    def _run(self, argv: list[str], env: dict[str, str], timeout: float) -> Out:
        # A session of its own, killed whole when the command times out or the battery is
        # interrupted: doit's forked workers would otherwise live on and write into a project
        # the battery has removed (a killed run's folder came back that way).
        proc = subprocess.Popen(argv, env=env, cwd=self.root, text=True, start_new_session=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
            out = Out(" ".join(argv[3:] if argv[:3] == DOIT[:3] else argv[2:]), proc.returncode,
                      stdout + stderr)
        except subprocess.TimeoutExpired:
            kill_group(proc)
            stdout, _ = proc.communicate()
            out = Out(" ".join(argv), -9, f"TIMEOUT after {timeout}s: {stdout!r}")
        except BaseException:
            kill_group(proc)
            proc.communicate()
            raise
        self.outs.append(out)
        return out

    def doit(self, *args: str, timeout: float = 900, **env: str) -> Out:
        return self._run([*DOIT, *args], self.env(**env), timeout)

    def ev(self, *args: str, timeout: float = 600, **env: str) -> Out:
        return self._run([*EVALUATOR, *args], self.env(**env), timeout)

    def records(self, kind: str) -> dict[str, Path]:
        return {p.stem: p for p in (self.store / "records" / kind).glob("*/*.json")}

    def attempt(self, label: str) -> Path:
        """The record file of attempt `agent/task/sample`."""
        agent, task, sample = label.split("/")
        for path in (self.store / "records" / "attempt").glob("*/*.json"):
            r = json.loads(path.read_bytes())
            if (r.get("subject"), r.get("task_id"), r.get("sample_idx")) == (agent, task,
                                                                            int(sample)):
                return path
        raise LookupError(label)

    @property
    def samples(self) -> int:
        return int(yaml_load(self.root / "evals" / "mini.yaml")["samples"])

    def label(self, sample: int = 7, agent: int = 0) -> str:
        """agent/task/sample of one attempt of `mini` (the sample capped to what there is)."""
        return f"{self.agents()[agent]}/{self.first_task()}/{min(sample, self.samples - 1)}"

    def remove(self, label: str) -> None:
        """Remove an attempt's record to give the next eval work (noted, so that the check of
        what was lost leaves it out)."""
        path = self.attempt(label)
        mark = self.root / ".removed.json"
        done = json.loads(mark.read_text()) if mark.exists() else []
        mark.write_text(json.dumps([*done, ["attempt", path.stem]]))
        path.unlink()
        # Its index row too: plan and eval count done work from the index (a record file
        # deleted by hand stays done until `evaluator store verify --reindex`).
        db = sqlite3.connect(self.store / "index.sqlite", timeout=60)
        with db:
            db.execute("DELETE FROM records WHERE kind = 'attempt' AND key = ?", (path.stem,))
        db.close()

    def first_task(self) -> str:
        return sorted(p.name for p in (self.root / "tasks" / "mini").iterdir() if p.is_dir())[0]

    def agents(self) -> list[str]:
        return list(yaml_load(self.root / "evals" / "mini.yaml")["agents"])

    def edit_yaml(self, path: Path, change: Callable[[dict], object]) -> None:
        import yaml

        data = yaml.safe_load(path.read_text())
        change(data)
        path.write_text(yaml.safe_dump(data))


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL a command started in a session of its own, and everything it started."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


def yaml_load(path: Path) -> dict:
    import yaml

    return dict(yaml.safe_load(path.read_text()))


def executed(out: Out, prefix: str = "attempt:") -> list[str]:
    """Targets doit really ran (the quiet reporter prints only those)."""
    return sorted(line[3:].strip() for line in out.text.splitlines()
                  if line.startswith(f".  {prefix}"))


def would_run(out: Out) -> tuple[int, int] | None:
    m = re.search(r"(\d+) of (\d+) attempts would run", out.text)
    return (int(m[1]), int(m[2])) if m else None


class Verdict:
    """What broke the promise, in words; empty when it held."""

    def __init__(self) -> None:
        self.broken: list[str] = []

    def check(self, ok: bool, why: str) -> bool:
        if not ok:
            self.broken.append(why)
        return ok

    def rc(self, out: Out, ok: bool) -> None:
        self.check((out.rc == 0) == ok, f"`{out.cmd}` exit {out.rc}, wanted "
                   f"{'0' if ok else 'non-zero'}: {tail(out)}")

    def says(self, out: Out, *texts: str) -> None:
        for text in texts:
            self.check(text in out.text, f"`{out.cmd}` does not say {text!r}: {tail(out)}")

    def ran(self, out: Out, expected: list[str]) -> None:
        got = executed(out)
        self.check(got == sorted(expected), f"`{out.cmd}` ran {len(got)} attempt(s) "
                   f"{got[:4]}, wanted {sorted(expected)[:4]}")

    def plans(self, out: Out, todo: int) -> None:
        got = would_run(out)
        self.check(got is not None and got[0] == todo,
                   f"`{out.cmd}`: {got} would run, wanted {todo}: {tail(out)}")


def tail(out: Out, n: int = 300) -> str:
    return out.text.strip()[-n:].replace("\n", " | ")


@dataclass(frozen=True)
class Fault:
    """One fault: `inject_and_check` injects it into a fresh copy and runs what a user would."""

    name: str
    what: str
    run: Callable[[Project, Verdict], None]
    smoke: bool = False  # one of the few the smoke run tries
    root_only: bool = False  # needs root (a mount)
    shared: bool = False  # in a file both sets read: `other` may fail too


def copy_project(src: Path, dest: Path) -> None:
    shutil.copytree(src, dest, symlinks=True)
