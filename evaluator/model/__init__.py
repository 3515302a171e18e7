"""Talking to models: an OpenAI-compatible client, a price table, and a scripted fake for tests.

Everything that asks a model for a reply depends only on the `ModelClient` protocol.
"""

from ._client import OpenAIClient
from ._errors import ContextLengthError, ModelRequestError, ModelUnavailableError
from ._limiter import Limiter, endpoint_limiter
from ._prices import Price, Prices
from ._scripted import ScriptedCall, ScriptedModel, ScriptExhaustedError
from ._stats import ClientStats
from ._types import SIMULATED_FINGERPRINT, Choice, Completion, Message, ModelClient, Tool, ToolCall, Usage

__all__ = [
    "SIMULATED_FINGERPRINT",
    "Choice",
    "ClientStats",
    "Completion",
    "ContextLengthError",
    "Limiter",
    "Message",
    "ModelClient",
    "ModelRequestError",
    "ModelUnavailableError",
    "OpenAIClient",
    "Price",
    "Prices",
    "ScriptExhaustedError",
    "ScriptedCall",
    "ScriptedModel",
    "Tool",
    "ToolCall",
    "Usage",
    "endpoint_limiter",
]
