"""Bringing a sandbox's workdir to the pinned base state, the same way for agents and graders.

A fresh sandbox holds the image's tree exactly: tracked, untracked and ignored files (generated
`_version.py`, `*.egg-info`, built extensions). Nothing is cleaned; only an image whose HEAD is
not the pinned base commit is checked out.
"""

from __future__ import annotations

import shlex

# Every knob that could make git run a program or rewrite its output is switched off.
GIT = ("git -c core.hooksPath=/dev/null -c core.fsmonitor=false -c diff.external= "
       "-c core.attributesFile=/dev/null")


def checkout_base(base_commit: str) -> str:
    """Shell: check out `base_commit` unless HEAD already is it."""
    sha = shlex.quote(base_commit)
    return f'[ "$({GIT} rev-parse HEAD 2>/dev/null)" = {sha} ] || {GIT} checkout -q --detach {sha}'
