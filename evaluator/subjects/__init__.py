"""Subjects: who a leaderboard scores. An agent's attempts, or a predictions file's patches
graded without running an agent, through the same grade keys, result rule and store."""

from evaluator.subjects._manifest import (
    AGENT,
    MANIFEST,
    PREDICTIONS,
    ManifestEntry,
    ManifestRecord,
    Subject,
    agent_subject,
    planned_of,
    subject_cells,
    write_manifest,
)
from evaluator.subjects._manifest import subjects as prediction_subjects
from evaluator.subjects._predictions import (
    PlannedPrediction,
    Prediction,
    PredictionRecord,
    grade_prediction,
    identity,
    plan_predictions,
)

__all__ = [
    "AGENT",
    "MANIFEST",
    "PREDICTIONS",
    "ManifestEntry",
    "ManifestRecord",
    "PlannedPrediction",
    "Prediction",
    "PredictionRecord",
    "Subject",
    "agent_subject",
    "grade_prediction",
    "identity",
    "plan_predictions",
    "planned_of",
    "prediction_subjects",
    "subject_cells",
    "write_manifest",
]
