"""Where the headless browser the viewer's tests and the benchmarks' smokes drive is found."""

from __future__ import annotations

import os

CHROMIUM = os.environ.get("EVAL_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("EVAL_CHROMEDRIVER", "/usr/bin/chromedriver")
