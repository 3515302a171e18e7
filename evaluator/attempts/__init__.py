"""Attempts: one agent on one task for one sample, keyed, run in a sandbox, stored once."""

from evaluator.attempts._config import Concurrency, EvalSpec, load_eval
from evaluator.attempts._conversation import FORMAT as CONVERSATION_FORMAT
from evaluator.attempts._conversation import Conversation, thread_messages
from evaluator.attempts._drive import AgentOutcome, drive_agent
from evaluator.attempts._isolation import NAMESPACE, PROCESS, protect_harness, strongest
from evaluator.attempts._key import (
    attempt_key,
    attempt_material,
    attempt_price,
    attempt_seed,
    harness_environment,
    input_digest,
)
from evaluator.attempts._meter import Meter, MeteredModel, MeteredSandbox
from evaluator.attempts._plan import (
    EvalPlan,
    PlannedAttempt,
    estimate_cost,
    plan_eval,
    quarantined,
)
from evaluator.attempts._provenance import checkout_state, provenance
from evaluator.attempts._record import AttemptRecord, AttemptRun
from evaluator.attempts._result import grade_attempt
from evaluator.attempts._run import Trajectory, extract_patch, run_attempt
from evaluator.attempts._spend import InputTooLarge, ceiling
from evaluator.attempts._stale import explain_results, explain_stale, recorded_inputs
from evaluator.attempts._state import EvalState, StoredAttempt, StoredResult
from evaluator.attempts._summary import attempt_status, format_summary, summarize, unpriced

__all__ = [
    "NAMESPACE",
    "PROCESS",
    "AgentOutcome",
    "AttemptRecord",
    "AttemptRun",
    "CONVERSATION_FORMAT",
    "Conversation",
    "Meter",
    "MeteredModel",
    "MeteredSandbox",
    "EvalPlan",
    "EvalState",
    "StoredAttempt",
    "StoredResult",
    "PlannedAttempt",
    "attempt_status",
    "estimate_cost",
    "explain_results",
    "explain_stale",
    "format_summary",
    "summarize",
    "grade_attempt",
    "plan_eval",
    "protect_harness",
    "strongest",
    "quarantined",
    "recorded_inputs",
    "Concurrency",
    "EvalSpec",
    "InputTooLarge",
    "Trajectory",
    "attempt_key",
    "attempt_material",
    "attempt_price",
    "attempt_seed",
    "ceiling",
    "checkout_state",
    "drive_agent",
    "extract_patch",
    "harness_environment",
    "input_digest",
    "load_eval",
    "provenance",
    "run_attempt",
    "thread_messages",
    "unpriced",
]
