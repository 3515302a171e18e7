"""A second Docker engine beside the machine's own, for tests that need two engines.

`dockerd --data-root D --exec-root E --pidfile P -H unix://SOCK --iptables=false --bridge=none`
runs next to the default engine without touching its state; images move to it with
`docker save | docker load` (image ids are kept, so a digest pinned on one engine names the
same image on the other). Used by the Ray executor's cluster tests and by image
reproducibility tests through the `second_engine` fixture (tests/conftest.py).
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import docker
import requests

from tests.helpers import unavailable

_START_TIMEOUT_S = 60


@dataclass
class Engine:
    """A running dockerd: `host` is its DOCKER_HOST, `root` holds its data, exec root and log."""

    host: str
    root: Path
    proc: subprocess.Popen[bytes]

    @property
    def env(self) -> dict[str, str]:
        """The environment of a process that talks to this engine."""
        return {**os.environ, "DOCKER_HOST": self.host}

    def docker(self, *args: str, check: bool = True, timeout: float = 120) -> str:
        out = subprocess.run(["docker", "-H", self.host, *args], capture_output=True, text=True,
                             timeout=timeout)
        if check and out.returncode != 0:
            raise RuntimeError(f"docker -H {self.host} {' '.join(args)}: {out.stderr.strip()}")
        return out.stdout

    def has(self, image: str) -> bool:
        return subprocess.run(["docker", "-H", self.host, "image", "inspect", image],
                              capture_output=True, timeout=60).returncode == 0

    def image_ids(self) -> set[str]:
        return set(self.docker("images", "-q", "--no-trunc").split())

    def load_from(self, source_host: str, *images: str) -> None:
        """Copy `images` (names or ids) from the engine at `source_host`: save | load."""
        missing = [i for i in images if not self.has(i)]
        if not missing:
            return
        save = subprocess.Popen(["docker", "-H", source_host, "save", *missing],
                                stdout=subprocess.PIPE)
        load = subprocess.run(["docker", "-H", self.host, "load", "-q"], stdin=save.stdout,
                              capture_output=True, text=True, timeout=600)
        assert save.stdout is not None
        save.stdout.close()
        if save.wait(timeout=600) != 0 or load.returncode != 0:
            raise RuntimeError(f"copying {missing} from {source_host} to {self.host} failed: "
                               f"{load.stderr.strip()}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            # Containers a killed node left still run: remove them first, or dockerd waits out
            # their stop timeout on SIGTERM (10 s of CI time).
            ids = self.docker("ps", "-aq", check=False, timeout=30).split()
            if ids:
                self.docker("rm", "-f", *ids, check=False, timeout=60)
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        # An exec root may keep mounts (netns, shm) until the engine is gone; then it can go.
        subprocess.run(["umount", "-R", str(self.root / "exec")], capture_output=True)
        shutil.rmtree(self.root, ignore_errors=True)


def start_engine(prefix: str = "evaluator-engine-") -> Engine:
    """Start a dockerd of its own under a fresh temporary directory; raise if it never answers."""
    if shutil.which("dockerd") is None or shutil.which("docker") is None:
        raise RuntimeError("dockerd is not installed; run .ci/docker-up (Debian: docker.io)")
    root = Path(tempfile.mkdtemp(prefix=prefix))
    # A unix socket path must stay under 108 bytes: keep it short and in the temp dir.
    sock = root / "d.sock"
    log = open(root / "dockerd.log", "wb")  # noqa: SIM115 - the engine writes it until stopped
    proc = subprocess.Popen(
        ["dockerd", "--data-root", str(root / "data"), "--exec-root", str(root / "exec"),
         "--pidfile", str(root / "dockerd.pid"), "-H", f"unix://{sock}", "--iptables=false",
         "--bridge=none"],
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    log.close()
    engine = Engine(f"unix://{sock}", root, proc)
    deadline = time.monotonic() + _START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        if sock.exists() and engine.docker("info", check=False, timeout=10):
            return engine
        time.sleep(0.3)
    tail = (root / "dockerd.log").read_text(errors="replace")[-2000:]
    engine.stop()
    raise RuntimeError(f"a second dockerd did not answer within {_START_TIMEOUT_S}s: {tail}")


@contextlib.contextmanager
def rootless_podman_service() -> Iterator[str]:
    """podman's service run by the unprivileged user .ci/podman-up --tests sets up, on a socket
    of its own, until the block ends: its address (EVAL_PODMAN_HOST)."""
    name = os.environ.get("EVAL_PODMAN_ROOTLESS_USER", "evalpodman")
    try:
        user = pwd.getpwnam(name)
    except KeyError:
        unavailable(f"no user {name} for rootless podman; run .ci/podman-up --tests")
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        unavailable("starting a rootless podman service for another user needs root and setpriv")
    runtime = Path(f"/run/user/{user.pw_uid}")
    runtime.mkdir(parents=True, exist_ok=True)
    os.chown(runtime, user.pw_uid, user.pw_gid)
    runtime.chmod(0o700)
    sock = runtime / f"evaluator-test-{os.getpid()}.sock"
    env = {"PATH": os.environ["PATH"], "HOME": user.pw_dir, "USER": name,
           "XDG_RUNTIME_DIR": str(runtime)}
    # setpriv, not runuser: no PAM session (one that waits on an absent logind hung the start
    # with nothing said), and the service is this process's child, so a signal reaches it.
    # Its log goes to a file: a pipe nobody reads fills over a session and blocks the service.
    fd, where = tempfile.mkstemp(prefix=f"rootless-podman-{os.getpid()}-", suffix=".log")
    os.close(fd)
    log = Path(where)
    with log.open("wb") as out:
        # From its home: conmon writes an `oom` file into the service's folder on a memory kill.
        proc = subprocess.Popen(
            ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--init-groups",
             "--", "podman", "system", "service", "--time=0", f"unix://{sock}"],
            env=env, cwd=user.pw_dir, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
            start_new_session=True)
    began = time.monotonic()
    while proc.poll() is None and time.monotonic() - began < _START_TIMEOUT_S:
        try:
            client = docker.DockerClient(base_url=f"unix://{sock}", timeout=10)
            if client.ping():
                break
        except (docker.errors.DockerException, requests.RequestException):
            pass
        time.sleep(0.2)
    else:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        said = log.read_text(errors="replace")[-1500:] or "(nothing)"
        unavailable(f"a rootless podman service for {name} did not answer on {sock} within "
                    f"{time.monotonic() - began:.0f} s (exit {proc.returncode}); it said: {said}")
    client.close()
    try:
        yield f"unix://{sock}"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.unlink(missing_ok=True)
