"""`exec`: timeouts that kill, output that stays bounded, the sandbox's own deadline."""

from __future__ import annotations

import http.client
import time
from collections.abc import Callable

import pytest

from evaluator.errors import SandboxError
from evaluator.sandbox import DockerSandboxes, SandboxLimits
from tests.backends import running

pytestmark = pytest.mark.docker


def test_exec_reports_exit_code_and_interleaved_output(
    backend_sandboxes: DockerSandboxes, base_image: str
) -> None:
    with backend_sandboxes.open(base_image, SandboxLimits(), purpose="test") as sb:
        r = sb.exec('echo out; echo err >&2; echo "$GREETING"; pwd; exit 3', env={"GREETING": "hi"})
    assert r.exit_code == 3
    assert r.output == "out\nerr\nhi\n/testbed\n"
    assert not r.timed_out and not r.truncated


def test_exec_timeout_kills_sleep(backend_sandboxes: DockerSandboxes,
                                  base_image: str) -> None:
    with backend_sandboxes.open(base_image, SandboxLimits(), purpose="test") as sb:
        started = time.monotonic()
        r = sb.exec("sleep 600", timeout_s=2)
        assert time.monotonic() - started < 8
        assert r.timed_out and r.exit_code in (124, 137)
        assert "sleep 600" not in sb.exec("cat /proc/[0-9]*/cmdline | tr '\\0' ' '").output


def test_output_is_capped_keeping_head_and_tail(
    backend_sandboxes: DockerSandboxes, base_image: str
) -> None:
    limits = SandboxLimits(output_limit_bytes=10_000)
    with backend_sandboxes.open(base_image, limits, purpose="test") as sb:
        r = sb.exec("echo START; yes | head -c 10000000; echo END")
    assert r.exit_code == 0 and r.truncated
    assert len(r.output.encode()) <= 10_000
    assert r.output.startswith("START\ny\n") and r.output.endswith("y\nEND\n")
    assert "bytes of output omitted" in r.output


def test_sandbox_deadline_kills_the_container(
    backend_sandboxes: DockerSandboxes, base_image: str
) -> None:
    with backend_sandboxes.open(base_image, SandboxLimits(sandbox_timeout_s=2),
                                purpose="test") as sb:
        r = sb.exec("sleep 30", timeout_s=30)
        assert r.timed_out and r.duration_s < 10
        with pytest.raises(SandboxError, match="sandbox_timeout_s"):
            sb.exec("echo too late")
        assert not running(backend_sandboxes, sb.container_id)


def test_a_reply_read_late_loses_no_output(sandboxes: DockerSandboxes, base_image: str,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """On a loaded machine the harness reads the engine's reply late, so a quick command's
    whole output comes in the same read as the reply's headers: it must not be dropped (it was:
    a results file read back empty, exit code 0, and an honest grade called `tampered`)."""
    with sandboxes.open(base_image, SandboxLimits(), purpose="test") as sb:
        sb.put_files({"/tmp/results": b'{"id": "t", "status": "passed"}\n'})
        monkeypatch.setattr(http.client.HTTPResponse, "begin", _late(http.client.HTTPResponse.begin))
        assert sb.read_file("/tmp/results") == b'{"id": "t", "status": "passed"}\n'
        r = sb.exec("echo out; echo err >&2")
    assert (r.exit_code, r.output) == (0, "out\nerr\n")


def _late(begin: Callable[[http.client.HTTPResponse], None]
          ) -> Callable[[http.client.HTTPResponse], None]:
    def late(self: http.client.HTTPResponse) -> None:
        time.sleep(0.5)  # long past a quick command's end: its output waits behind the headers
        begin(self)
    return late
