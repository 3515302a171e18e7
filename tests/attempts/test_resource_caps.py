"""The scaffold's own process is capped in CPU seconds and memory, whatever it does."""

from __future__ import annotations

import os
import shutil

import pytest

from tests.attempts.support import agent, drive


def isolations() -> list[str]:
    if shutil.which("bwrap") is None and os.environ.get("CI") == "true":
        pytest.fail("bubblewrap is not installed (apt-get install bubblewrap)", pytrace=False)
    return ["process", "namespace"] if shutil.which("bwrap") else ["process"]


@pytest.mark.parametrize("isolation", isolations())
def test_a_cpu_burner_is_ended_at_its_cpu_seconds(tmp_path, isolation) -> None:
    out = drive(agent(tmp_path, "burns_cpu", isolation=isolation, wall_clock_s=60,
                      agent_cpu_s=1))
    assert out.exit_reason == "cpu_limit" and "limits.agent_cpu_s" in out.detail


def test_ignoring_sigxcpu_does_not_help(tmp_path) -> None:
    out = drive(agent(tmp_path, "ignores_sigxcpu", wall_clock_s=60, agent_cpu_s=1))
    assert out.exit_reason == "cpu_limit"


@pytest.mark.parametrize("isolation", isolations())
def test_a_memory_hoarder_ends_at_its_memory_cap(tmp_path, isolation) -> None:
    out = drive(agent(tmp_path, "hoards_memory", isolation=isolation, agent_memory_mb=512))
    assert out.exit_reason == "memory_limit" and "512 MB" in out.detail
