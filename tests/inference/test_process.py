"""Starting and stopping the real model's server: what a missing install says, the command
line that runs a command beside it, and a clean stop."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from evaluator.errors import InfraError
from evaluator.inference import (
    MODEL_FILE,
    SERVER_DIR,
    InferenceServerError,
    not_installed,
    start_inference_server,
)
from tests.helpers import free_port
from tests.model.real import require_installed


def test_a_missing_install_is_named_with_the_command_that_installs_it(tmp_path) -> None:
    shutil.copy(SERVER_DIR / "server.mjs", tmp_path / "server.mjs")
    (tmp_path / "node_modules" / "node-llama-cpp").mkdir(parents=True)
    missing = not_installed(tmp_path)
    assert missing is not None and MODEL_FILE in missing and "make inference" in missing
    with pytest.raises(InferenceServerError, match="make inference") as info:
        start_inference_server(server_dir=tmp_path)
    assert isinstance(info.value, InfraError)


def test_the_command_line_runs_a_command_while_the_server_is_up_and_stops_it() -> None:
    require_installed()
    port = free_port()
    probe = (f"import json, urllib.request; r = urllib.request.urlopen("
             f"'http://127.0.0.1:{port}/v1/models'); print(json.load(r)['data'][0]['id'])")
    out = subprocess.run([sys.executable, "-m", "evaluator.inference", "--port", str(port), "--",
                          sys.executable, "-c", probe + "; raise SystemExit(3)"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 3, out.stdout + out.stderr
    assert out.stdout.splitlines()[-1] == "SmolLM2-135M-Instruct.Q4_1"
    assert f"at http://127.0.0.1:{port}/v1" in out.stdout
    with pytest.raises(OSError):  # nothing listens there any more
        __import__("socket").create_connection(("127.0.0.1", port), timeout=2)


def test_a_server_that_cannot_load_its_model_says_why(tmp_path) -> None:
    """A model cut short, as an interrupted download leaves it."""
    require_installed()
    (tmp_path / "models").mkdir()
    (tmp_path / "node_modules").symlink_to(SERVER_DIR / "node_modules")
    shutil.copy(SERVER_DIR / "server.mjs", tmp_path / "server.mjs")
    with (SERVER_DIR / "models" / MODEL_FILE).open("rb") as f:
        (tmp_path / "models" / MODEL_FILE).write_bytes(f.read(1 << 20))
    with pytest.raises(InferenceServerError,
                       match=r"(?s)exited \(1\) while loading its model: .*cannot load .*Failed to load"):
        start_inference_server(server_dir=tmp_path, load_timeout_s=60)
