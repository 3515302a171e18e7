"""The settings object: one declaration per variable, typed reads, sources, the generated table."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from evaluator.__main__ import main
from evaluator.settings import SettingError, Settings, markdown, settings

ROOT = Path(__file__).resolve().parents[2]
# Markers of the agent protocol and the simulated model, not settings.
_NOT_SETTINGS = {"EVAL_SUBMIT", "EVAL_PATCH_EOF"}


def test_docs_table_is_generated_from_the_declarations() -> None:
    assert (ROOT / "docs" / "settings.md").read_text() == markdown(), (
        "docs/settings.md is out of date: run `make settings-doc` "
        "(python -m evaluator config --markdown > docs/settings.md)")


def test_every_variable_the_package_names_is_declared() -> None:
    declared = {s.env for s in Settings.declared()}
    named = {m for f in (ROOT / "evaluator").rglob("*.py") if not {"_payload", "settings"} & set(f.parts)
             for m in re.findall(r"\bEVAL_[A-Z_]*[A-Z]\b", f.read_text())}
    assert named - _NOT_SETTINGS <= declared, sorted(named - _NOT_SETTINGS - declared)


def test_each_declaration_is_complete_and_unique() -> None:
    declared = Settings.declared()
    assert len({s.env for s in declared}) == len({s.attr for s in declared}) == len(declared)
    assert all(s.doc and s.kind.accepts and s.describe_default() for s in declared)


def test_environment_then_default_and_blank_is_unset() -> None:
    s = Settings({"EVAL_SANDBOXES": "7", "EVAL_STORE": "  "})
    assert (s.sandboxes, s.source("sandboxes")) == (7, "environment")
    assert (s.store, s.source("EVAL_STORE")) == (Path(".eval"), "default")


@pytest.mark.parametrize("var,value,accepts", [
    ("EVAL_SANDBOXES", "four", "whole number >= 1"), ("EVAL_SAMPLES", "101", "from 1 to 100"),
    ("EVAL_SANDBOX_DISK", "zfs", "overlay, engine, watch, tmpfs"),
    ("EVAL_WARM_MAX_IDLE_S", "-1", "number >= 0"), ("EVAL_EXECUTOR", "slurm", "ray://HOST:PORT")])
def test_a_bad_value_names_the_variable_and_what_it_takes(var: str, value: str,
                                                          accepts: str) -> None:
    s = Settings({var: value})
    with pytest.raises(SettingError, match=re.escape(var)) as info:
        getattr(s, Settings.named(var).attr)
    assert repr(value) in str(info.value) and accepts in str(info.value)


def test_command_line_wins_inside_the_block_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVAL_STORE", "/from/env")
    with settings.given(store="/from/cli", tasks_root=None):
        assert (settings.store, settings.source("store")) == (Path("/from/cli"), "command line")
        assert settings.source("tasks_root") == "default"
    assert (settings.store, settings.source("store")) == (Path("/from/env"), "environment")


def test_config_prints_values_and_sources(monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("EVAL_SANDBOXES", "3")
    monkeypatch.setenv("EVAL_API_TOKEN", "s3cret")
    assert main(["config", "--lock-dir", "/l"]) == 0
    rows = {line.split()[0]: line.split() for line in capsys.readouterr().out.splitlines()}
    assert rows["EVAL_SANDBOXES"][1:] == ["3", "environment"]
    assert rows["EVAL_LOCK_DIR"][1:] == ["/l", "command", "line"]
    assert rows["EVAL_TASKS"][1:] == ["tasks", "default"]
    assert "s3cret" not in str(rows["EVAL_API_TOKEN"])


def test_config_exits_2_naming_a_bad_value(monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("EVAL_RAY_TRIES", "0")
    assert main(["config"]) == 2
    assert "INVALID: $EVAL_RAY_TRIES is '0'" in capsys.readouterr().out


def _environ_reads(tree: ast.AST) -> list[int]:
    """Lines that read os.environ / os.getenv (a write for a child process is not a read)."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
                node.func.attr == "getenv" or (node.func.attr == "get" and
                                               ast.unparse(node.func.value) == "os.environ")):
            lines.append(node.lineno)
        elif (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)
              and ast.unparse(node.value) == "os.environ"):
            lines.append(node.lineno)
    return lines


def test_settings_are_read_through_the_object_only() -> None:
    # The model client reads the variable an agent's config names for its API key (per agent).
    allowed = {"evaluator/model/_client.py"}
    found = {str(f.relative_to(ROOT)): lines for f in (ROOT / "evaluator").rglob("*.py")
             if not {"_payload", "settings"} & set(f.parts)
             and (lines := _environ_reads(ast.parse(f.read_text())))}
    assert set(found) <= allowed, {k: v for k, v in found.items() if k not in allowed}
