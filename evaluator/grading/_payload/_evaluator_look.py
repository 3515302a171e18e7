"""The second observation's supervisor (Python 3.6+), started by the grader as
`python -I look.py CONF` in a fresh sandbox; no code of the repository ever runs in it.

It reads its conf (the grade's nonce, the tests to run, the runner's code) from a file it
deletes at once, makes itself non-dumpable (no process of its user can read its memory or its
file descriptors), and starts the runner as a child of its own, in the environment the conf
asks for: the scored run's (`python -c`, in the repository), or a varied one (a script in a
folder of its own, that folder the working directory, the hardening variables unset). The child
gets the list of tests on its stdin and a pipe for its results; its output goes nowhere. Once
the child is gone, the supervisor writes, for every test it was asked to run, one line
`{"id", "status", "why"}` (the first result the child gave; "missing" where it gave none) and a
last line saying whether the child finished and which tests it reported twice with different
results, into a file of a folder of its own; and to the exec's own stream one line with the
file's path and digest, `@@evaluator-look <nonce> {"sha256", "lines", "out"}` (a file
rewritten after it by a process the child left does not match it). The child never learns the
nonce. In the varied run it first removes the grade's folder, so nothing of the grader's is
left on disk for a fix to look for.
"""

import hashlib
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time


def nondumpable():
    try:
        import ctypes
        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
    except Exception:
        pass


def collect(fd, proc, deadline):
    """(bytes the child writes to the pipe until it closes it, whether the deadline passed
    first)."""
    data = b""
    while True:
        if time.time() >= deadline:
            return data, True
        ready, _, _ = select.select([fd], [], [], max(0.0, min(1.0, deadline - time.time())))
        if not ready:
            if proc.poll() is not None and not select.select([fd], [], [], 0)[0]:
                break
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        data += chunk
    return data, False


def start(conf, write):
    """The child, in the environment the conf asks for, its conf on its stdin."""
    env = dict(os.environ)
    for name in conf.get("unset", []):
        env.pop(name, None)
    child = {"tests": conf["tests"], "args": conf["args"], "root": conf["root"], "fd": write,
             "varied": conf["varied"], "unrunnable": conf.get("unrunnable", "")}
    if conf["varied"]:
        cwd = tempfile.mkdtemp(prefix="look-")
        script = os.path.join(cwd, "run_tests.py")
        with open(script, "w") as f:
            f.write(conf["code"])
        argv = [sys.executable, script]
    else:
        cwd, argv = conf["root"], [sys.executable, "-c", conf["code"]]
    devnull = os.open(os.devnull, os.O_RDWR)
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=devnull, stderr=devnull,
                            pass_fds=(write,), env=env, cwd=cwd, close_fds=True)
    os.close(write)
    try:
        stdin = proc.stdin
        assert stdin is not None
        stdin.write(json.dumps(child).encode())
        stdin.close()
    except OSError:
        pass
    return proc


def parse(data, asked):
    """(id -> (status, why) of the first result told for each asked test, ids told twice
    differently, whether the child said it was done)."""
    found, clashes, finished = {}, set(), False  # type: dict, set, bool
    for raw in data.split(b"\n"):
        try:
            rec = json.loads(raw.decode("utf-8", "replace"))
        except ValueError:
            continue
        if isinstance(rec, dict) and "done" in rec:
            finished = True
        elif isinstance(rec, dict) and rec.get("id") in asked and isinstance(rec.get("status"),
                                                                             str):
            tid, status = rec["id"], rec["status"]
            if tid in found and found[tid][0] != status:
                clashes.add(tid)
            found.setdefault(tid, (status, str(rec.get("why", ""))[:300]))
    return found, clashes, finished


def main():
    path = sys.argv[1]
    with open(path) as f:
        conf = json.load(f)
    os.unlink(path)
    nonce = conf["nonce"]
    out = os.dup(1)
    nondumpable()
    if conf.get("clean"):  # the varied run: no grade folder is left for a fix to look for
        shutil.rmtree(conf["clean"], ignore_errors=True)
    results = os.path.join(tempfile.mkdtemp(prefix="look-out-"), "results")
    read, write = os.pipe()
    proc = start(conf, write)
    data, late = collect(read, proc, time.time() + float(conf.get("timeout", 100)))
    try:
        proc.wait(timeout=2)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    found, clashes, finished = parse(data, set(conf["tests"]))
    lines = [json.dumps({"id": t, "status": found.get(t, ("missing",))[0],
                         "why": found.get(t, ("", "the runner reported nothing for it"))[1]})
             for t in conf["tests"]]
    lines.append(json.dumps({"done": True, "finished": finished and proc.returncode == 0,
                             "clashes": sorted(clashes)}))
    text = "".join(x + "\n" for x in lines).encode()
    with open(results, "wb") as f:
        f.write(text)
    summary = json.dumps({"sha256": hashlib.sha256(text).hexdigest(), "lines": len(lines),
                          "out": results, "timed_out": late})
    os.write(out, ("@@evaluator-look %s %s\n" % (nonce, summary)).encode())


if __name__ == "__main__":
    main()
