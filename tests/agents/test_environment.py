"""The harness refuses to run in an environment that differs from requirements.lock."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from evaluator.agents import (
    EnvironmentDriftError,
    check_environment,
    environment_drift,
    installed_distributions,
    locked_pins,
)
from tests.agents.support import fake_distribution


def test_pins_are_read_with_normalised_names(tmp_path) -> None:
    lock = tmp_path / "requirements.lock"
    lock.write_text("Python_Dateutil==2.9.0.post0 \\\n    --hash=sha256:ab\n    # via x\nsix==1.17.0\n")
    assert locked_pins(lock) == {"python-dateutil": "2.9.0.post0", "six": "1.17.0"}


def test_drift_names_each_distribution() -> None:
    problems = environment_drift({"python-dateutil": "2.9.0", "six": "1.17.0", "idna": "3.1"},
                                 {"python-dateutil": "2.8.2", "six": "1.17.0"})
    assert problems == ["idna: pinned 3.1, not installed",
                        "python-dateutil: pinned 2.9.0, installed 2.8.2"]


def test_a_downgraded_distribution_is_refused_with_the_fix(tmp_path) -> None:
    fake_distribution(tmp_path / "site", "python_dateutil", "2.8.2")
    lock = tmp_path / "requirements.lock"
    lock.write_text("python-dateutil==2.9.0.post0\n")
    with pytest.raises(EnvironmentDriftError, match=r"(?s)python-dateutil: pinned 2\.9\.0\.post0, "
                       r"installed 2\.8\.2.*pip install --require-hashes") as caught:
        check_environment(lock, [str(tmp_path / "site")])
    assert caught.value.problems == ["python-dateutil: pinned 2.9.0.post0, installed 2.8.2"]


def test_an_installed_change_is_seen_by_a_running_process(tmp_path) -> None:
    site = tmp_path / "site"
    fake_distribution(site, "lib", "1.0")
    assert installed_distributions([str(site)]) == {"lib": "1.0"}
    fake_distribution(site, "other", "2.0")
    assert installed_distributions([str(site)]) == {"lib": "1.0", "other": "2.0"}


def test_the_harness_environment_matches_its_lock() -> None:
    check_environment()  # what `make venv` installs is exactly what the lock pins


def test_a_library_adding_its_own_folder_to_the_path_changes_nothing() -> None:
    # `import ray` puts ray/thirdparty_files (colorama, psutil) on sys.path: an agent's identity
    # computed after it must equal one computed before, or in a process that never imported it.
    code = ("from evaluator.agents._environment import environment_identity as e\n"
            "before = e()\nimport ray\nprint(before == e())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[2], timeout=120)
    assert out.stdout.strip() == "True", out.stderr[-2000:]
