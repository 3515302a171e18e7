"""The real model tier's server: a thin OpenAI-compatible server over llama.cpp with a small real
model (SmolLM2-135M-Instruct), started on loopback for the tests and `make demo-real`.

The server itself is `inference/server.mjs` (Node: npm's node-llama-cpp carries llama.cpp's
prebuilt CPU build; `make inference` installs it and the model, pinned and hashed). This package
starts and stops it; `python -m evaluator.inference` runs it in the foreground.
"""

from ._process import (
    MODEL_FILE,
    MODEL_ID,
    SERVER_DIR,
    InferenceServer,
    InferenceServerError,
    ServerOptions,
    not_installed,
    start_inference_server,
)

__all__ = [
    "MODEL_FILE",
    "MODEL_ID",
    "SERVER_DIR",
    "InferenceServer",
    "InferenceServerError",
    "ServerOptions",
    "not_installed",
    "start_inference_server",
]
