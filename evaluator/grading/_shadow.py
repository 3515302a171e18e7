"""Files a patch adds that the interpreter would import in place of a module of the standard
library, the test runner or an installed distribution (`pytest.py` at the top of the repository,
`src/json.py` where `src` is on the path, a `pluggy/__init__.py`).

Spelling cannot decide it, so the sandbox's own interpreter does: a probe lists what the patch
adds (paths that did not exist before `git apply`), then, with `python3 -I`, which of them sit at
an import root (the repository's top or a folder that is not a package) under a name the
interpreter already resolves outside the repository.
"""

from __future__ import annotations

import json
import re

_PROBE = re.compile(r"^@@evaluator-probe (\[.*\])$", re.MULTILINE)


def shadowing(output: str) -> list[tuple[str, str]]:
    """(path, module name) pairs the probe found in the setup exec's output."""
    found = _PROBE.findall(output)
    if not found:
        return []
    hits = json.loads(found[-1])
    return [(str(path), str(name)) for path, name in hits]
