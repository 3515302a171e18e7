"""A real headless Chromium (Debian's `chromium` and `chromium-driver`), driven by Selenium
through the given chromedriver (Selenium Manager never runs: it would go to the network)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browsers import CHROMEDRIVER, CHROMIUM
from tests.helpers import unavailable
from tests.viewer._world import ViewerWorld, make_world


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not (shutil.which(CHROMIUM) and shutil.which(CHROMEDRIVER)):
        unavailable(f"no headless browser: {CHROMIUM} or {CHROMEDRIVER} is missing "
                     f"(Debian: apt-get install chromium chromium-driver; .ci/docker-up does)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ.setdefault("SE_OFFLINE", "true")  # belt and braces: the manager stays offline
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1280,1600", "--no-first-run", "--disable-extensions",
                "--allow-file-access-from-files"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


@pytest.fixture
def world(tmp_path: Path) -> ViewerWorld:
    return make_world(tmp_path / "world")
