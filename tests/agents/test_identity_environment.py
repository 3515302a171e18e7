"""An agent's environment identity is its closure: the interpreter, the distributions its code can
import (what it imports, and what those require, as pip installed them) and start-up code; a
package it does not import, installed for real with pip, leaves it fresh."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from evaluator.agents import _distributions
from tests.agents.support import ExtAgent
from tests.agents.wheels import build_wheel, pip_install
from tests.extras import core_python

ENTRY = "import json\nimport yaml\nfrom extagent import helpers\n\n\ndef run(ctx):\n    helpers.go(ctx)\n"


def _dists(ext: ExtAgent) -> dict[str, str]:
    return dict(ext.load().environment["distributions"])


@pytest.fixture
def site(ext: ExtAgent, tmp_path: Path) -> Path:
    target = tmp_path / "site"
    target.mkdir()
    ext.extra_path.append(str(target))
    return target


def test_an_unrelated_package_pip_installed_leaves_the_identity(ext: ExtAgent, site: Path,
                                                                 tmp_path: Path) -> None:
    before = ext.load().identity
    pip_install(site, build_wheel(tmp_path / "w", "unrelated_lib", "1.0", {"unrelated.py": "x=1\n"}))
    assert "unrelated-lib" not in _dists(ext) and ext.load().identity == before
    ext.write("extagent/entry.py", "import unrelated\n" + ENTRY)  # now it imports it
    imported = ext.load()
    assert dict(imported.environment["distributions"])["unrelated-lib"] == "1.0"
    pip_install(site, build_wheel(tmp_path / "w", "unrelated_lib", "1.1", {"unrelated.py": "x=1\n"}),
                fresh=True)
    assert ext.load().identity != imported.identity


def test_what_an_imported_package_requires_is_held_as_installed(ext: ExtAgent, site: Path,
                                                                 tmp_path: Path) -> None:
    w = tmp_path / "w"

    def install(deplib: str) -> None:
        pip_install(site,
                    build_wheel(w, "toplib", "1.0", {"toplib.py": "import deplib\n"},
                                requires=("deplib[fast]>=1", "oldlib; python_version < '3'",
                                          "extralib; extra == 'docs'"), extras=("docs",)),
                    build_wheel(w, "deplib", deplib, {"deplib.py": ""}, requires=(
                        "fastlib; extra == 'fast'",), extras=("fast",)),
                    *(build_wheel(w, n, "1.0", {f"{n}.py": ""})
                      for n in ("fastlib", "oldlib", "extralib")), fresh=True)

    install("1.0")
    ext.write("extagent/entry.py", "import toplib\n" + ENTRY)
    dists = _dists(ext)
    # deplib through toplib's requirement, fastlib through the extra it asks of deplib; oldlib's
    # marker is false and nobody asks toplib for its docs extra.
    assert {"toplib", "deplib", "fastlib"} <= set(dists)
    assert not {"oldlib", "extralib"} & set(dists)
    before = ext.load().identity
    install("2.0")
    assert ext.load().identity != before  # indirect, never imported by the agent itself


def test_httpx_brings_h11_through_httpcore(ext: ExtAgent) -> None:
    ext.write("extagent/entry.py", "import httpx\n" + ENTRY)
    assert {"httpx", "httpcore", "h11", "pyyaml"} <= set(_dists(ext))
    assert "pytest" not in _dists(ext)  # installed here, imported by nothing of the agent


def test_start_up_code_is_held_and_path_lines_are_not(ext: ExtAgent, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "site-packages"
    folder.mkdir()
    monkeypatch.setattr(_distributions, "site_folders", lambda: (str(folder),))
    pth = folder / "hook.pth"
    pth.write_text("/somewhere/on/this/machine\n")
    before = ext.load().identity
    pth.write_text("/elsewhere/on/another/machine\n")
    assert ext.load().identity == before  # a path line: which folder it names is no outcome
    pth.write_text("/elsewhere\nimport os; os.environ.setdefault('X', '1')\n")
    assert ext.load().identity != before


def test_the_reference_agents_are_the_same_in_the_demo_venv_and_the_test_venv() -> None:
    # The demo venv holds requirements.lock alone, this one requirements-dev.lock: the same
    # commit's agents, and the harness part of their attempts' keys (the distributions the
    # attempt's code path imports), must share their attempts (and the team cache) across the two.
    probe = ("from evaluator.agents import load_agent\n"
             "from evaluator.attempts import harness_environment\n"
             "print([load_agent(n, 'agents').identity for n in ('reference-strong', "
             "'reference-weak')], harness_environment())\n")
    root = Path(__file__).resolve().parents[2]
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root)}  # this checkout in both
    here, demo = (subprocess.run([str(python), "-c", probe], capture_output=True, text=True,
                                 cwd=root, env=env, timeout=300)
                  for python in (sys.executable, core_python()))
    assert demo.returncode == 0, demo.stderr[-2000:]
    assert here.stdout == demo.stdout
