"""Shared by the real-size tests: the big repository's image tag and a task writer."""

from __future__ import annotations

from pathlib import Path

import yaml

BIG_TAG = "evaluator-test/bigrepo"


def write_task(set_dir: Path, task_id: str, spec: dict[str, object], *, hidden: dict[str, str],
               gold: str, repo: dict[str, str] | None = None) -> None:
    d = set_dir / task_id
    for rel, text in {**{f"hidden/{k}": v for k, v in hidden.items()},
                      **{f"repo/{k}": v for k, v in (repo or {}).items()}}.items():
        (d / rel).parent.mkdir(parents=True, exist_ok=True)
        (d / rel).write_text(text)
    (d / "problem.md").write_text("It is wrong; make it right.\n")
    (d / "gold.patch").write_text(gold)
    base = {"id": task_id, "problem_statement": "problem.md", "hidden_tests": "hidden",
            "gold_patch": "gold.patch"}
    (d / "task.yaml").write_text(yaml.safe_dump({**base, **spec}))
