"""Images for imported rows: a 5.x task repo's Dockerfile built into a tag named by its content,
and the base files of a row read from its image."""

from __future__ import annotations

from typing import Any

import docker.errors

from evaluator.errors import InfraError
from evaluator.hashing import hash_tree
from evaluator.swebench._command import Unmapped
from evaluator.swebench._rows import Row


class DockerfileBuilder:
    """Builds `tasks/<id>/Dockerfile` with its folder as the context; the tag holds the folder's
    hash, so an edited Dockerfile is a new image (and a stale lock), an unchanged one is reused.
    RUN steps have no network unless `network` names one (`--build-network host`)."""

    def __init__(self, client: Any, network: str = "none") -> None:
        self._client, self._network = client, network

    def __call__(self, row: Row, task_id: str) -> str:
        assert row.dockerfile is not None
        context = row.dockerfile.parent
        tag = f"swebench-import/{task_id}:{hash_tree(context)[:16]}"
        try:
            self._client.images.get(tag)
            return tag
        except docker.errors.ImageNotFound:
            pass
        try:
            self._client.images.build(path=str(context), dockerfile="Dockerfile", tag=tag,
                                      rm=True, forcerm=True, pull=False,
                                      network_mode=self._network)
        except docker.errors.BuildError as exc:
            tail = "".join(str(c.get("stream") or c.get("error") or "") for c in exc.build_log)
            raise Unmapped(f"its Dockerfile does not build: {tail[-400:]}") from None
        except docker.errors.DockerException as exc:
            raise InfraError(f"Docker engine error building {row.dockerfile}: {exc}") from exc
        return tag
