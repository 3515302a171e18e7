"""The agent's own process sees neither the answers, the store, Docker, the network nor the key."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from evaluator.attempts import drive_agent
from evaluator.model import ScriptedModel
from tests.attempts.support import FakeSandbox, agent
from tests.helpers import unavailable

SECRET = "sk-isolation-test-0b7f"


@pytest.fixture
def targets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("EVAL_STORE", str(tmp_path / "store"))
    (tmp_path / "tasks" / "t1").mkdir(parents=True)
    (tmp_path / "tasks" / "t1" / "gold.patch").write_text("+the answer\n")
    (tmp_path / "store").mkdir()
    listener = socket.create_server(("127.0.0.1", 0))
    yield {"files": [str(tmp_path / "tasks" / "t1" / "gold.patch")],
           "dirs": [str(tmp_path / "tasks"), str(tmp_path / "store")],
           "port": listener.getsockname()[1], "harness_pid": os.getpid()}
    listener.close()


def snoop(tmp_path: Path, targets: dict, isolation: str) -> str:
    steps: list[str] = []
    drive_agent(agent(tmp_path, "snoops", isolation=isolation), FakeSandbox(),
                ScriptedModel(["x"]), problem_statement=json.dumps(targets), workdir="/w",
                seed=0, record_step=lambda action, obs, extra: steps.append(obs))
    return steps[0]


def test_a_namespaced_agent_gets_nothing_it_reaches_for(tmp_path, targets) -> None:
    if shutil.which("bwrap") is None:
        unavailable("bubblewrap is not installed (apt-get install bubblewrap)")
    found = snoop(tmp_path, targets, "namespace")
    assert "GOT" not in found and "env " not in found and SECRET not in found, found
    assert found.count("denied") == 6


def test_a_process_agent_gets_no_credential(tmp_path, targets) -> None:
    """Files stay readable in process mode (the operator's choice); the key, the harness's
    environ and (for a root harness) the Docker socket do not."""
    found = snoop(tmp_path, targets, "process")
    assert "env " not in found and SECRET not in found, found
    assert "denied harness environ" in found, found
    if os.geteuid() == 0:
        assert "denied docker socket" in found, found


HARNESS = """\
import os, subprocess, sys
if sys.argv[1] == "protect":
    from evaluator.attempts import protect_harness
    protect_harness()
child = ("import os, sys\\ntry:\\n    print(sys.argv[1].encode() in open('/proc/%d/environ' % "
         "os.getppid(), 'rb').read())\\nexcept OSError:\\n    print('denied')")
print(subprocess.run([sys.executable, "-c", child, sys.argv[2]], capture_output=True,
                     text=True).stdout.strip())
"""


@pytest.mark.parametrize(("how", "child_sees"), [("protect", "denied"), ("plain", "True")])
def test_a_non_root_harness_hides_its_environ_from_its_own_user(tmp_path, how, child_sees):
    """The harness of a non-root user makes itself non-dumpable: a child of the same user reads
    its key from /proc without that (the control), not with it."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        unavailable("needs root and util-linux's setpriv to start a non-root harness")
    script = tmp_path / "harness.py"
    script.write_text(HARNESS)
    script.chmod(0o644)
    tmp_path.chmod(0o755)
    drop = ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups",
            "--inh-caps=-all,+dac_read_search", "--ambient-caps=-all,+dac_read_search",
            "--bounding-set=-all,+dac_read_search", "--no-new-privs", "--"]
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
           "MODEL_KEY": SECRET}
    out = subprocess.run([*drop, sys.executable, str(script), how, SECRET], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == child_sees, out.stderr
