"""A SWE-bench task repo of our own (pytest, Django-style and sympy-style instances, each with a
Dockerfile), imported through the real CLI into a throwaway project, with lock and gold run
through the real `doit`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.swebench.support import SweProject, make_project


@pytest.fixture
def swe_project(tmp_path: Path, docker_client: Any, base_image: str) -> SweProject:
    return make_project(tmp_path)


