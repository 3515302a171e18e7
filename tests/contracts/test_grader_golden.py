"""The `grader` contract: the grade of every patch of the corpus (gold, empty, partial, a fix
that edits pinned test files, the bundled exploit families) on the `shop` layout: its outcome
and the per-test statuses of the required tests, as recorded for the contract's version."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from evaluator.grading import DockerGrader, GradeSpec, _grader
from tests.contracts.golden import check
from tests.contracts.grading_corpus import corpus, observed
from tests.grading.support import make_layout_case

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def shop(docker_client, base_image,
         tmp_path_factory: pytest.TempPathFactory) -> tuple[GradeSpec, dict[str, bytes]]:
    _, spec, hidden = make_layout_case("shop", docker_client, base_image, tmp_path_factory)
    return spec, hidden


# Canaries are drawn from a per-grade random nonce: a fixed one makes each grade a function of
# its patch alone (which exploit guesses a twin is then the same on every run).
NONCE = "c0ffee00c0ffee00"


def test_the_corpus_grades_as_the_grader_contract_recorded(
        grader: DockerGrader, shop: tuple[GradeSpec, dict[str, bytes]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_grader, "new_nonce", lambda: NONCE)
    spec, hidden = shop
    patches = corpus(spec, hidden)
    with ThreadPoolExecutor(4) as pool:
        done = {n: pool.submit(grader.grade, spec, p, hidden) for n, p in patches.items()}
        graded: dict[str, Any] = {n: observed(spec, f.result()) for n, f in done.items()}
    check("grader", "shop-corpus", graded)
