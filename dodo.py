"""doit targets of the evaluation pipeline; all logic lives in `evaluator.pipeline`.

    doit lock:<set>    pin images, commits and files in lock/<set>.lock
    doit gold:<set>    grade gold and empty patches K times, print each task's verdict
    doit plan:<set>    list the attempts eval would run and their estimated cost
    doit eval:<set>    run the agents on the valid tasks, grade, print a summary
    doit report:<set>  leaderboard and paired comparisons under reports/out/<set>/
"""

import gc

from evaluator import pipeline, reports

# Cyclic GC walks every task dict doit holds; with none of ours making cycles at load time,
# turning it off halves the cost of a no-op run over many targets. Actions turn it back on.
gc.disable()

DOIT_CONFIG = pipeline.doit_config()
SETS = pipeline.discover_sets()


def task_images():
    """Build the images a task set builds itself (only missing or outdated ones)."""
    yield from pipeline.image_tasks(SETS)


def task_lock():
    """Resolve image digests, base commits and file hashes into lock/<set>.lock."""
    yield from pipeline.lock_tasks(SETS)


def task_gold():
    """Grade gold and empty patches K times per task and print each task's verdict."""
    yield from pipeline.gold_tasks(SETS)


def task_eval():
    """Run the configured agents on every valid task, grade the patches, print a summary."""
    yield from pipeline.eval_tasks(SETS)


def task_plan():
    """List the attempts `doit eval:<set>` would run and their estimated cost; runs nothing."""
    yield from pipeline.plan_tasks(SETS)


def task_report():
    """Render the leaderboard and paired comparisons (md, html, png, json) under reports/out/."""
    yield from reports.report_tasks(SETS, asked=pipeline.asked("report"))
