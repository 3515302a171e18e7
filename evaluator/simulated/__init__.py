"""A simulated OpenAI-compatible endpoint that plays a coding model, for hermetic demos and tests.

Its replies follow the agent protocol (one ```bash block each, `echo EVAL_SUBMIT` to finish), or,
when the request offers tools, one call each of the offered shell tool; `n`, `stream`, `stop` and
text content parts are honoured, anything else it cannot honour is refused with a 400. Replies are
a pure function of (model, seed, task, step); every answer is labelled simulated.
"""

from ._config import DEFAULT_CONFIG_PATH, Faults, SimConfig, SimModel, load_config
from ._patch import drop_largest_hunk, parse_patch
from ._policy import SUBMIT, TEST_COMMAND, reply, trajectory_kind
from ._process import SimulatedEndpoint, SimulatedEndpointError, start_simulated_endpoint
from ._server import FINGERPRINT, SimulatedServer, make_server
from ._tasks import SimTask, TaskIndex

__all__ = [
    "DEFAULT_CONFIG_PATH",
    "FINGERPRINT",
    "SUBMIT",
    "TEST_COMMAND",
    "Faults",
    "SimConfig",
    "SimModel",
    "SimTask",
    "SimulatedEndpoint",
    "SimulatedEndpointError",
    "SimulatedServer",
    "TaskIndex",
    "drop_largest_hunk",
    "load_config",
    "make_server",
    "parse_patch",
    "reply",
    "start_simulated_endpoint",
    "trajectory_kind",
]
