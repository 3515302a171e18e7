"""An agent's identity is its whole closure: config, prompts, folder, own modules, environment."""

from __future__ import annotations

import os

import pytest

from evaluator.agents import code_closure
from evaluator.errors import BadInputError
from tests.agents.support import ExtAgent


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


def test_a_new_import_is_followed_though_size_and_mtime_are_unchanged(ext: ExtAgent) -> None:
    # The walk is cached by the source's hash: an edit that keeps size and mtime is still seen.
    helper = ext.code / "extagent" / "helpers.py"
    assert "extagent.unrelated" not in ext.load().code.modules
    stat, text = helper.stat(), helper.read_text()
    edited = text.replace("from extagent.late import later", "from extagent.unrelated import x")
    helper.write_text(edited[: len(text)].ljust(len(text)))
    os.utime(helper, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert "extagent.unrelated" in ext.load().code.modules


def test_editing_a_module_nobody_imports_keeps_identity(ext: ExtAgent) -> None:
    before = ext.load().identity
    ext.write("extagent/unrelated.py", "x = 2\n")
    assert ext.load().identity == before


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
