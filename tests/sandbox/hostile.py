"""What a hostile agent or patch tries from inside its sandbox (the probes, run with the image's
python3), and how a test looks at the host from outside: as another user, or as the host user
whose uid the sandbox's processes have."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from evaluator.sandbox import Sandbox

# Every process the sandbox can see: can it read its environment or command line, and does the
# nonce appear there? (NONCE: replaced by the nonce, in the file only: no command line has it)
ENVIRON = r"""
import os, sys
nonce, seen, found = "NONCE".encode(), 0, []
for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
    for part in ("environ", "cmdline"):
        try:
            data = open(f"/proc/{pid}/{part}", "rb").read()
        except OSError:
            continue
        seen += 1
        if nonce in data:
            found.append(f"{pid}/{part}")
print("read", seen, "found", found, "self", nonce in repr(dict(os.environ)).encode())
"""

# PID 1: trace it, read its memory and environment, signal it.
PID1 = r"""
import ctypes, os, signal
libc = ctypes.CDLL(None, use_errno=True)
out = {"uid_1": os.stat("/proc/1").st_uid, "uid": os.getuid()}
ok = lambda done: "allowed" if done else ctypes.get_errno()  # (True == 1 == EPERM)
out["ptrace"] = ok(libc.ptrace(16, 1, 0, 0) == 0)
for part in ("mem", "environ"):
    try:
        with open(f"/proc/1/{part}", "rb") as f:
            f.read(1)
        out[part] = "allowed"
    except OSError as e:
        out[part] = e.errno
iov = (ctypes.c_char * 8)()
local = (ctypes.c_void_p * 2)(ctypes.cast(iov, ctypes.c_void_p), 8)
out["vm_read"] = ok(libc.process_vm_readv(1, local, 1, local, 1, 0) >= 0)
try:
    os.kill(1, signal.SIGKILL)
    out["kill"] = "allowed"
except OSError as e:
    out["kill"] = e.errno
print(__import__("json").dumps(out))
"""

# New user namespaces, four ways: clone(2) and clone3(2) with CLONE_NEWUSER, util-linux's
# unshare, then unshare(2) (last: where it works, the probe itself moves).
USERNS = r"""
import ctypes, json, os, struct, subprocess
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
CLONE_NEWUSER, SIGCHLD = 0x10000000, 17
out = {}
def forked(pid):
    if pid == 0:
        os._exit(0)
    if pid > 0:
        os.waitpid(pid, 0)
    return "allowed" if pid > 0 else ctypes.get_errno()
out["clone"] = forked(libc.syscall(56, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0))  # x86_64
args = ctypes.create_string_buffer(struct.pack("QQQQQQQQ", CLONE_NEWUSER, 0, 0, 0, SIGCHLD,
                                               0, 0, 0))
out["clone3"] = forked(libc.syscall(435, args, 64))
out["tool"] = subprocess.run(["unshare", "-U", "true"], capture_output=True).returncode == 0
out["unshare"] = "allowed" if libc.unshare(CLONE_NEWUSER) == 0 else ctypes.get_errno()
print(json.dumps(out))
"""

# The kernel's own settings, as root of the sandbox.
KERNEL = ("v=$(cat /proc/sys/vm/swappiness); echo $v > /proc/sys/vm/swappiness 2>/dev/null && "
          "echo sysctl-written; [ -e /proc/sysrq-trigger ] && [ -w /proc/sysrq-trigger ] && "
          "echo > /proc/sysrq-trigger 2>/dev/null && echo sysrq-written; echo done")

# Every syscall number with -1 arguments, each in a child: the errno table, as JSON.
SYSCALLS = r"""
import ctypes, json, os, signal
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
SKIP = {56, 57, 58, 435}  # clone, fork, vfork, clone3: they would fork (USERNS probes clone)
table = {}
for nr in range(470):
    if nr in SKIP:
        continue
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        signal.alarm(2)
        a = ctypes.c_long(-1)
        res = libc.syscall(ctypes.c_long(nr), a, a, a, a, a, a)
        os.write(w, str(ctypes.get_errno() if res == -1 else 0).encode())
        os._exit(0)
    os.close(w)
    data = os.read(r, 64)
    os.close(r)
    os.waitpid(pid, 0)
    table[nr] = int(data) if data else -1
print(json.dumps(table))
"""

# Processes that together hold more than the cap (each under it): what stays alive, and held.
HOGS = r"""
import os, subprocess, sys, time
mb = int(sys.argv[1])
hog = "import time; b = b'x' * (%d << 20); time.sleep(6)"
procs = [subprocess.Popen([sys.executable, "-c", hog % mb]) for _ in range(int(sys.argv[2]))]
time.sleep(4)
alive = [p for p in procs if p.poll() is None]
held = 0
for p in alive:
    for line in open(f"/proc/{p.pid}/status"):
        if line.startswith("RssAnon:"):
            held += int(line.split()[1]) >> 10
print("alive", len(alive), "held_mb", held)
for p in procs:
    p.kill()
"""

# Writes into /tmp and the home; what the tmpfs ones among them hold afterwards (MiB).
TMPFS = ("for f in /tmp/fill $HOME/fill; do dd if=/dev/zero of=$f bs=1M count=$1 2>/dev/null; "
         "done; t=0; for f in /tmp/fill $HOME/fill; do "
         "[ \"$(stat -f -c %T $(dirname $f))\" = tmpfs ] && [ -e $f ] && "
         "t=$((t + $(du -m $f | cut -f1))); done; echo tmpfs_mb $t")


def run_python(sb: Sandbox, script: str, *args: str, user: str | None = None,
               timeout_s: float = 120) -> str:
    """Run `script` with the image's python3, as `user`; its output."""
    sb.put_files({"/tmp/probe.py": script.encode()}, mode=0o755)
    quoted = " ".join(f"'{a}'" for a in args)
    return sb.exec(f"python3 /tmp/probe.py {quoted}", user=user, timeout_s=timeout_s).output


def last_json(output: str) -> Any:
    return json.loads(output.strip().splitlines()[-1])


@contextmanager
def running(sb: Sandbox, marker: float) -> Iterator[int]:
    """While the sandbox runs `sleep <marker>` (an exec of its own, on a thread): that
    process's host pid."""
    thread = threading.Thread(target=sb.exec, args=(f"sleep {marker}",), daemon=True)
    thread.start()
    found, until = "", time.monotonic() + 30
    while not found and time.monotonic() < until:
        found = subprocess.run(["pgrep", "-f", "-x", f"sleep {marker}"], capture_output=True,
                               text=True).stdout.split("\n")[0]
        time.sleep(0.05)
    assert found, f"the sandbox's `sleep {marker}` never showed on the host"
    try:
        yield int(found)
    finally:
        thread.join()


def as_uid(uid: int, argv: list[str]) -> subprocess.CompletedProcess[str]:
    """`argv` run on the host as `uid` (its own group too), with no capability of root's."""
    return subprocess.run(["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                           "--", *argv], capture_output=True, text=True, timeout=120,
                          env={"PATH": os.environ["PATH"]})


def grep_as_nobody(nonce: str, roots: list[Path]) -> list[str]:
    """The files under `roots` that the host user nobody can read and that hold `nonce`."""
    existing = [str(r) for r in roots if r.exists()]
    if not existing:
        return []
    found = as_uid(65534, ["grep", "-rlsF", "--", nonce, *existing])
    return found.stdout.split()
