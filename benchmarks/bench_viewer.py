"""How fast a 200-step attempt page opens: rendered, written and loaded in headless Chromium.

Run as `.venv/bin/python benchmarks/bench_viewer.py` (needs Debian's chromium and
chromium-driver). Builds a synthetic store with one 200-step attempt whose observations are a
mix of short and long outputs (a long one is cut on the page and linked in full), then prints,
best of a few runs: building the site's data from the store, rendering the page, the page's
size, and Chromium's time to load it from disk (navigation start to load event) and through
the API (`/ui/`, which builds the data and renders per request). The same for a 10-step page
and with cutting turned off, side by side. Goal: the 200-step page opens in under a second.

`--smoke`: a 20-step page and a site of 12 attempts, each timed once, through the same
Chromium and API: seconds, exiting non-zero when a page does not render or load.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

GOAL_S = 1.0
REPEATS = 5
SITE_ATTEMPTS = 600
STEPS = 200


def best(fn, n: int | None = None) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(REPEATS if n is None else n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    global REPEATS, SITE_ATTEMPTS, STEPS
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true",
                    help="a 20-step page, a 12-attempt site, once each: does it still run?")
    if ap.parse_args().smoke:
        REPEATS, SITE_ATTEMPTS, STEPS = 1, 12, 20
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    from evaluator.api import Settings
    from evaluator.reports import report_site
    from evaluator.viewer import Limits, Site
    from tests.api.support import ThreadServer
    from tests.viewer._world import ViewerWorld

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        w = ViewerWorld(root / "w", ("t1", "t2"), samples=1, agents=("base",))
        # Observations: mostly a screenful, every tenth a long test run, every 50th huge.
        outputs = ["line of output\n" * 30, "x" * 2_500, "F" * 40_000]
        w.attempt("base", "t1", 0, "failed", steps=STEPS, observation=lambda i: (
            outputs[2] if i % 50 == 49 else outputs[1] if i % 10 == 9 else outputs[0]) + str(i))
        key = w.plan().find("base/t1/0").key
        w.attempt("base", "t2", 0, "resolved", steps=10)
        short = w.plan().find("base/t2/0").key

        site_s = _whole_site(root / "big")
        data_s = best(lambda: report_site("mini", **w.kwargs))
        summary_s = best(lambda: len(report_site("mini", **w.kwargs).data.summary))
        site = report_site("mini", **w.kwargs)
        whole = Site(site.data, site.records, Limits(observation_chars=10**9))
        pages = {f"{STEPS} steps": (site, key), f"{STEPS} steps, nothing cut": (whole, key),
                 "10 steps": (site, short)}
        rows = []
        out = root / "site"
        for label, (s, k) in pages.items():
            render_s = best(lambda s=s, k=k: s.page(f"attempts/{k}.html"))
            dest = out / label.replace(" ", "_").replace(",", "")
            s.write(dest)
            rows.append([label, render_s, (dest / f"attempts/{k}.html").stat().st_size, dest, k])

        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
            options.add_argument(arg)
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        settings = Settings(store=w.store.root, tasks_root=w.tasks_root, lock_dir=w.lock_dir,
                            evals_root=w.evals_root, agents_root=w.agents_root, cwd=w.root,
                            doit=(sys.executable, "-c", "pass"))
        try:
            with ThreadServer(settings, supervise=False) as api:
                for row in rows:
                    label, _, _, dest, k = row
                    row.append(_load(driver, (dest / f"attempts/{k}.html").as_uri()))
                    row.append(_load(driver, f"{api.url}/ui/mini/attempts/{k}.html")
                               if "cut" not in label else None)
        finally:
            driver.quit()

    print(f"writing the whole site of {SITE_ATTEMPTS} attempts (what doit report adds): "
          f"{site_s:.2f} s, {site_s / SITE_ATTEMPTS * 1000:.1f} ms per attempt")
    print(f"site data from the store (plan, records): {data_s * 1000:.0f} ms; with the "
          f"summary (the run index and grid need it): {summary_s * 1000:.0f} ms")
    base = rows[0]
    print(f"{'page':<24}{'render ms':>10}{'KB':>8}{'load from disk ms':>19}{'via API ms':>12}"
          f"{f'x {STEPS}-step':>12}")
    for label, render_s, size, _, _, disk_s, api_s in rows:
        api = f"{api_s * 1000:.0f}" if api_s is not None else "-"
        print(f"{label:<24}{render_s * 1000:>10.1f}{size / 1024:>8.0f}{disk_s * 1000:>19.0f}"
              f"{api:>12}{(render_s + disk_s) / (base[1] + base[5]):>12.2f}")
    opened = base[1] + base[5]
    print(f"{STEPS}-step page: rendered + loaded from disk in {opened * 1000:.0f} ms, "
          f"{opened / GOAL_S:.2f} of the {GOAL_S:.0f} s goal; through the API "
          f"{base[6] * 1000:.0f} ms, {base[6] / GOAL_S:.2f} of it")


def _whole_site(root: Path) -> float:
    """Best time to write the site of 100 tasks x 2 agents x 3 samples (plain records)."""
    import random

    from evaluator.reports import report_site
    from tests.reports._world import World

    tasks = tuple(f"task-{i:04d}" for i in range(SITE_ATTEMPTS // 6))
    w = World(root, tasks, samples=3, agents=("base", "cand"))
    rng = random.Random(0)
    for agent in ("base", "cand"):
        w.outcomes(agent, {t: "".join(rng.choices("RF", k=3)) for t in tasks})
    site = report_site("mini", **w.kwargs)
    dict(site.data.summary), dict(site.data.assets)  # the report has made both already
    return best(lambda: site.write(root / "site"), 3)


def _load(driver, url: str) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(REPEATS):
        t = time.perf_counter()
        driver.get(url)
        wall = time.perf_counter() - t
        nav = driver.execute_script(
            "const e = performance.getEntriesByType('navigation')[0];"
            "return e ? e.loadEventEnd - e.startTime : null;")
        times.append(max(wall, (nav or 0) / 1000))
        if not driver.title.startswith("base on "):  # an error page loads fast too
            raise SystemExit(f"{url} loaded {driver.title!r}, not an attempt page")
    return min(times)


if __name__ == "__main__":
    main()
