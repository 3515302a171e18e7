"""Every benchmark at a tiny size, so that one that breaks fails CI (issue 31: bench_noop.py had
stopped running and nothing noticed).

Each script of benchmarks/ runs with `--smoke` as a real subprocess, in the checkout, and must
exit 0. No figure is asserted (a timing on a shared machine says nothing); each script checks
what its smoke can (a no-op that ran a target, an attempt that failed, backends that disagree,
a page that is not the attempt's) and exits non-zero. The scripts are found by glob: a new
`benchmarks/*.py` with a `__main__` block runs here too and fails until it accepts `--smoke`;
a module there without one must be a helper that a script imports. Each smoke is a scope of its
own for xdist (tests/schedule.py), so the slow ones spread over the workers.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.schedule import scope_of_test

REPO = Path(__file__).resolve().parents[2]
BENCHMARKS = REPO / "benchmarks"
_MAIN = re.compile(r"^if __name__ == [\"']__main__[\"']:", re.MULTILINE)
# Under pytest-timeout's 900 s (pyproject.toml), so a hung smoke is stopped here, with its output.
TIMEOUT_S = 840

# What a smoke needs besides the checkout (fixtures of tests/conftest.py and of this folder's):
# a machine without it fails the smoke under CI=true and skips it elsewhere, saying what is
# missing. A script not named here needs nothing but the dev venv.
NEEDS: dict[str, tuple[str, ...]] = {
    "bench_backends": ("base_image", "daemonless_sandboxes"),
    "bench_cluster": ("base_image",),
    "bench_exec": ("base_image", "podman_sandboxes", "daemonless_sandboxes"),
    "bench_grade": ("base_image",),
    "bench_real_model": ("inference",),
    "bench_scale": ("base_image",),
    "bench_seal": ("base_image",),
    "bench_submission_agreement": ("base_image", "official_harness"),
    "bench_swebench_agreement": ("base_image", "official_harness"),
    "bench_throughput": ("base_image", "daemonless_sandboxes"),
    "bench_viewer": ("chromium",),
    "check_cgroup_v2": ("guest_tools",),
    "repro_fresh_clone": ("docker_client",),
}


def _modules() -> list[Path]:
    return sorted(p for p in BENCHMARKS.glob("*.py") if not p.name.startswith("_"))


SCRIPTS = [p for p in _modules() if _MAIN.search(p.read_text())]


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_smoke(script: Path, request: pytest.FixtureRequest) -> None:
    for fixture in NEEDS.get(script.stem, ()):
        request.getfixturevalue(fixture)
    # A session of its own: on a timeout the whole tree (a second dockerd, Ray's nodes, moto)
    # gets SIGINT first, so the script's own clean-up runs, then SIGKILL.
    proc = subprocess.Popen([sys.executable, str(script.relative_to(REPO)), "--smoke"], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        out = _stop(proc)
        pytest.fail(f"{script.name} --smoke did not finish in {TIMEOUT_S} s:\n{out[-4000:]}")
    assert proc.returncode == 0, f"{script.name} --smoke exited {proc.returncode}:\n{out[-6000:]}"


def _stop(proc: subprocess.Popen[str]) -> str:
    """SIGINT to the script's session, SIGKILL a minute later; what it printed."""
    for sig, wait_s in ((signal.SIGINT, 60), (signal.SIGKILL, 30)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            return proc.communicate(timeout=wait_s)[0]
        except subprocess.TimeoutExpired:
            continue
    return ""


def test_every_other_module_is_a_helper_of_a_script() -> None:
    """A module of benchmarks/ that no script imports and that runs nothing is a benchmark
    that forgot its `__main__` block (it would never be smoked): it fails here."""
    scripts = "\n".join(p.read_text() for p in SCRIPTS)
    orphans = [p.name for p in _modules() if p not in SCRIPTS
               and not re.search(rf"\b(import|from)\s+(benchmarks\.)?{p.stem}\b", scripts)]
    assert not orphans, (f"{orphans}: neither a script (no `if __name__ == \"__main__\":`) nor "
                         "imported by one; a benchmark needs a `__main__` block and `--smoke`")


def test_needs_name_only_scripts() -> None:
    assert set(NEEDS) <= {p.stem for p in SCRIPTS}, "NEEDS names a script that is gone"


def test_each_smoke_is_a_scope_of_its_own() -> None:
    """xdist hands the smokes out one by one (tests/schedule.py), not as one file."""
    ids = [f"tests/benchmarks/test_smoke.py::test_smoke[{p.stem}]" for p in SCRIPTS]
    assert len({scope_of_test(i) for i in ids}) == len(SCRIPTS) > 10
    assert scope_of_test("tests/benchmarks/test_smoke.py::test_each_smoke_is_a_scope_of_its_own") \
        != scope_of_test(ids[0])
    assert scope_of_test("tests/store/test_store.py::test_x") == "tests/store/test_store.py"
