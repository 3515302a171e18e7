"""A plan makes each agent and task's material once and hashes only what differs per sample:
the keys are exactly those of each sample's own material."""

from __future__ import annotations

from pathlib import Path

from evaluator.attempts import attempt_key, attempt_material, attempt_price
from evaluator.attempts._key import attempt_keys
from evaluator.grading import grade_spec
from tests.reports._world import World


def test_the_keys_of_a_plan_are_the_keys_of_each_samples_material(tmp_path: Path) -> None:
    world = World(tmp_path, samples=4)
    plan = world.plan()
    table = plan.spec.price_table()
    for agent in plan.agents.values():
        for task in plan.task_set.tasks:
            pin = plan.lock.pin(task.id)
            limits = grade_spec(plan.task_set, task, plan.lock).limits
            price = attempt_price(agent, table)
            one_by_one = [attempt_key(attempt_material(agent, task, pin, s, limits, price))
                          for s in range(4)]
            assert attempt_keys(agent, task, pin, 4, limits, price) == one_by_one
            assert [plan.find(f"{agent.name}/{task.id}/{s}").key for s in range(4)] == one_by_one
