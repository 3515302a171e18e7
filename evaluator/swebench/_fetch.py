"""How an imported row's image gets onto the engine, said where it is missing: at import (its
base files are read from it) and, through the task's `fetch`, at `doit lock:<set>`."""

from __future__ import annotations

import shlex

from evaluator.swebench._command import Unmapped
from evaluator.swebench._rows import Row


class MissingImage(Unmapped):
    """The row's image is not on the engine and could not be pulled."""


def fetch_command(row: Row, image: str, set_name: str, built: bool) -> str:
    """The one command that brings `image` back: the import that builds it from the row's
    Dockerfile, else a pull (SWE-bench's own images come from Docker Hub)."""
    if built and row.dockerfile is not None:
        source = row.dockerfile.resolve().parents[2]  # <task repo>/tasks/<id>/Dockerfile
        return f"python -m evaluator import swebench {shlex.quote(str(source))} --set {set_name}"
    return f"docker pull {image}"


def missing_hint(row: Row, image: str, fetch: str) -> str:
    """What an import line says for a row whose image is missing: every way to go on."""
    ways = [f"fetch it with `{fetch}`" if fetch.startswith("python") else
            f"pull it (`{fetch}` where its registry is reachable) or load a saved copy "
            "(`docker load -i FILE`)"]
    if image.startswith("swebench/sweb.eval."):
        iid = str(row.data.get("instance_id", ""))
        ways.append("build it with the official harness (`python -m "
                    f"swebench.harness.prepare_images --instance_ids {iid}`, then `docker tag` "
                    f"its image as {image})")
    if row.dockerfile is not None and not fetch.startswith("python"):
        ways.append(f"drop --no-build to build it from {row.dockerfile}")
    ways.append("pass --repo-dir with a clone of the repository to import without it")
    return f"image {image} is not on this Docker engine and could not be pulled: " + "; or ".join(
        ways) + "; then import again"
