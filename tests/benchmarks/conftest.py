"""What a benchmark's smoke needs besides the checkout, as fixtures: each fails under CI=true
(skips elsewhere) when the machine lacks it, before the benchmark runs. The Docker engine, the
base image and the daemonless backend's tools are the session's own (tests/conftest.py)."""

from __future__ import annotations

import shutil

import pytest

from tests.browsers import CHROMEDRIVER, CHROMIUM
from tests.helpers import unavailable


@pytest.fixture(scope="session")
def chromium() -> None:
    if not (shutil.which(CHROMIUM) and shutil.which(CHROMEDRIVER)):
        unavailable(f"no headless browser: {CHROMIUM} or {CHROMEDRIVER} is missing "
                    f"(Debian: apt-get install chromium chromium-driver; .ci/docker-up does)")


@pytest.fixture(scope="session")
def inference() -> None:
    """The real model tier's server and model (`make inference`)."""
    from tests.model.real import require_installed

    require_installed()


@pytest.fixture(scope="session")
def official_harness() -> None:
    """The official SWE-bench harness in its virtualenv (`make swebench-venv`)."""
    from tests.swebench.official import python

    python()


@pytest.fixture(scope="session")
def guest_tools() -> None:
    """What booting the cgroup v2 guest takes (root, qemu, a static busybox...)."""
    from tests import vm

    lacking = vm.missing()
    if lacking:
        unavailable(lacking)
