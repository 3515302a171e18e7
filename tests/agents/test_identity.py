"""An agent's identity is its whole closure: config, prompts, folder, own modules, environment."""

from __future__ import annotations

import shutil

import pytest

from evaluator.agents import code_closure
from evaluator.errors import BadInputError
from tests.agents.conftest import ExtAgent, fake_distribution


def test_closure_follows_imports_transitively_and_stops_at_installed_code(ext: ExtAgent) -> None:
    agent = ext.load()
    own = set(agent.code.modules)
    assert {"extagent", "extagent.entry", "extagent.helpers", "extagent.late",
            "extagent.tools", "extagent.tools.shell"} <= own
    assert "extagent.unrelated" not in own
    assert not {"json", "yaml"} & own  # stdlib and an installed distribution


def test_editing_a_helper_the_entry_imports_changes_identity(ext: ExtAgent) -> None:
    before = ext.load().identity
    ext.write("extagent/late.py", "later = 2\n")  # imported inside a function of a helper
    assert ext.load().identity != before


def test_editing_a_module_nobody_imports_keeps_identity(ext: ExtAgent) -> None:
    before = ext.load().identity
    ext.write("extagent/unrelated.py", "x = 2\n")
    assert ext.load().identity == before


def test_swapping_an_installed_distribution_version_changes_identity(ext: ExtAgent, tmp_path) -> None:
    site = tmp_path / "site"
    ext.extra_path.append(str(site))
    info = fake_distribution(site, "scaffold_lib", "2.4.6")
    before = ext.load()
    assert ("scaffold-lib", "2.4.6") in before.environment["distributions"]
    shutil.rmtree(info)
    fake_distribution(site, "scaffold_lib", "2.2.0")
    assert ext.load().identity != before.identity


def test_an_untracked_file_in_the_agent_folder_changes_identity(ext: ExtAgent) -> None:
    before = ext.load().identity
    (ext.agents / "ext" / "notes.md").write_text("try harder\n")
    assert ext.load().identity != before


def test_moving_the_endpoint_keeps_identity(ext: ExtAgent) -> None:
    before = ext.load().identity
    path = ext.agents / "ext" / "agent.yaml"
    path.write_text(path.read_text().replace("endpoint: simulated", "endpoint: simulated  # moved"))
    assert ext.load().identity == before


def test_entry_point_is_read_not_imported(ext: ExtAgent) -> None:
    ext.write("extagent/entry.py", "raise SystemExit('imported!')\n\ndef run(ctx):\n    pass\n")
    assert ext.load().code.modules  # planning never runs agent code


def test_a_missing_entry_callable_is_named(ext: ExtAgent) -> None:
    ext.write("extagent/entry.py", "def other(ctx):\n    pass\n")
    with pytest.raises(BadInputError, match=r"entry_point.*defines no 'run'"):
        ext.load()


def test_relative_imports_resolve_from_the_package(tmp_path) -> None:
    (tmp_path / "p" / "q").mkdir(parents=True)
    (tmp_path / "p" / "__init__.py").write_text("")
    (tmp_path / "p" / "q" / "__init__.py").write_text("from .. import top\n")
    (tmp_path / "p" / "top.py").write_text("")
    assert set(code_closure(["p.q"], [str(tmp_path)]).modules) == {"p", "p.q", "p.top"}
