"""The cheat battery's task layouts, each built once per session on the real engine."""

from __future__ import annotations

import pytest

from tests.grading.battery import grade_all, wanted
from tests.grading.cheats import CHEATS
from tests.grading.support import make_layout_case


@pytest.fixture(scope="session")
def layouts(docker_client, base_image, tmp_path_factory: pytest.TempPathFactory):
    """The cheat battery's layouts by name, each built once, when first asked for:
    name -> (layout, its grade spec, its hidden files)."""
    built: dict[str, tuple] = {}

    def get(name: str) -> tuple:
        if name not in built:
            built[name] = make_layout_case(name, docker_client, base_image, tmp_path_factory)
        return built[name]
    return get


@pytest.fixture(scope="session")
def batteries(request, grader, layouts):
    """name -> gold, the empty patch and the cheats this session's selected tests ask of that
    layout, each graded once (all of a layout together, a few at a time)."""
    graded: dict[str, dict] = {}

    def get(name: str) -> dict:
        if name not in graded:
            lay, spec, hidden = layouts(name)
            cheats = sorted(wanted(request.session, name))
            patches = {"gold": lay.gold.encode(), "empty": b"",
                       **{n: CHEATS[n](lay)[0].encode() for n in cheats}}
            graded[name] = grade_all(grader, spec, hidden, patches)
        return graded[name]
    return get
