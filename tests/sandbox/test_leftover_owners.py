"""When is a sandbox's owner process still alive? Decided without Docker, from /proc."""

import os
import time

from evaluator.sandbox._labels import alive as _alive


def test_running_owner_that_started_before_the_container_is_alive() -> None:
    assert _alive(os.getpid(), str(int(time.time())))


def test_pid_reused_by_a_newer_process_is_not_the_owner() -> None:
    assert not _alive(os.getpid(), str(int(time.time()) - 3600))


def test_unreaped_zombie_is_not_alive() -> None:
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    time.sleep(0.3)  # the child has exited; it stays a zombie until waited for
    try:
        assert not _alive(pid, str(int(time.time())))
    finally:
        os.waitpid(pid, 0)


def test_gone_process_is_not_alive() -> None:
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    assert not _alive(pid, str(int(time.time())))
