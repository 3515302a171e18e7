"""The site in a real headless Chromium, from disk and through the API: the index leads to the
grid and to an attempt, what rendered is asserted on, and nothing a trajectory holds runs."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from evaluator.api import Settings
from evaluator.reports import render_site
from tests.api.support import ThreadServer
from tests.viewer._world import ViewerWorld


def _by_css(driver: Any, css: str) -> Any:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.CSS_SELECTOR, css)


def _follow(driver: Any, css: str) -> None:
    """Click a link or button and wait for the page it leads to: a click returns before the
    navigation, and the next lookup would otherwise find the old page's element. The old page
    is marked and the wait is for a complete document without the mark; waiting for the old
    element to go stale instead raced Chrome ("Node with given id does not belong to the
    document" while the page was being swapped), so any driver error mid-swap means "not yet"."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    driver.execute_script("window.__evalLeaving = true;")
    _by_css(driver, css).click()
    WebDriverWait(driver, 20, ignored_exceptions=(WebDriverException,)).until(
        lambda d: d.execute_script(
            "return window.__evalLeaving !== true && document.readyState === 'complete';"))


def _walk(browser: Any, index_url: str, shots: Path) -> None:
    """Index -> grid -> an attempt of base on t1 -> its task, with a screenshot of each."""
    shots.mkdir(parents=True, exist_ok=True)
    browser.get(index_url)
    assert browser.title == "Run index: mini"
    assert "50.0%" in _by_css(browser, "#agents").text
    browser.save_screenshot(str(shots / "index.png"))
    _follow(browser, "a[href='grid.html']")
    assert browser.title == "Task grid: mini"
    browser.save_screenshot(str(shots / "grid.png"))
    _follow(browser, "a[title='base / t1 / sample 0: failed']")
    assert browser.title == "base on t1 (sample 0)"
    step = _by_css(browser, "#step-0 pre.action").text
    assert step == 'echo step 0 <script>document.title="pwned"</script><img src=x ' \
                   'onerror="document.title=1">'  # shown as text, not run
    assert browser.execute_script("return document.querySelectorAll('body script, body img')"
                                  ".length") == 0
    assert "+    return a + b" in _by_css(browser, "#diff").text
    assert "failed" in _by_css(browser, "#tests").text
    assert _by_css(browser, "#diff span.d-add").value_of_css_property("background-color") \
        == "rgba(230, 255, 236, 1)"  # the stylesheet loaded: the diff is coloured
    browser.save_screenshot(str(shots / "attempt.png"))
    _follow(browser, "h1 a")
    assert browser.title == "Task t1" and "valid" in _by_css(browser, "#verdict").text
    browser.save_screenshot(str(shots / "task.png"))
    assert all((shots / f"{k}.png").stat().st_size > 1000
               for k in ("index", "grid", "attempt", "task"))


def test_site_from_disk(browser: Any, world: ViewerWorld, tmp_path: Path) -> None:
    index = render_site("mini", out_root=tmp_path / "out", **world.kwargs)
    _walk(browser, index.as_uri(), tmp_path / "shots-disk")
    _follow(browser, "nav a[href='../index.html']")  # relative links work from disk
    assert browser.title == "Run index: mini"
    with_messages = world.plan().find("base/t2/0").key
    browser.get((index.parent / "attempts" / f"{with_messages}.html").as_uri())
    _by_css(browser, "#conversation summary").click()  # folded away until asked for
    assert 'calc.add subtracts <script>document.title="pwned"' in _by_css(browser, "#messages").text
    assert browser.title == "base on t2 (sample 0)"
    key = world.plan().find("cand/t1/0").key
    browser.get((index.parent / "attempts" / f"{key}.html").as_uri())
    _follow(browser, f"a[href='{key}/step-0.txt']")
    assert _by_css(browser, "body").text == "x" * 10_000 + "0"  # the whole observation
    browser.back()
    _follow(browser, f"a[href='{key}/patch.diff.txt']")  # shown as text from disk too
    assert _by_css(browser, "body").text.startswith("diff --git a/calc/ops.py b/calc/ops.py")


@pytest.fixture
def served(world: ViewerWorld) -> Iterator[str]:
    settings = Settings(store=world.store.root, tasks_root=world.tasks_root,
                        lock_dir=world.lock_dir, evals_root=world.evals_root,
                        agents_root=world.agents_root, cwd=world.root, token="s3cret",
                        doit=(sys.executable, "-c", "pass"))
    with ThreadServer(settings, supervise=False) as api:
        yield api.url


def test_site_through_the_api(browser: Any, served: str, tmp_path: Path) -> None:
    assert httpx.get(f"{served}/ui/mini/index.html").status_code == 401
    browser.get(f"{served}/ui/mini/index.html")
    assert browser.title == "Token needed"
    _by_css(browser, "#token").send_keys("wrong")
    _follow(browser, "#login")
    assert "That token is wrong" in _by_css(browser, "body").text
    _by_css(browser, "#token").send_keys("s3cret")
    _follow(browser, "#login")  # sets the cookie, back to the index
    _walk(browser, browser.current_url, tmp_path / "shots-api")


def test_api_pages_are_the_written_pages(served: str, world: ViewerWorld, tmp_path: Path) -> None:
    site = render_site("mini", out_root=tmp_path / "out", **world.kwargs).parent
    auth = {"Authorization": "Bearer s3cret"}
    for path in ("index.html", "grid.html", "style.css", "forest.png",
                 *(p.relative_to(site).as_posix() for p in site.glob("attempts/*/*"))):
        r = httpx.get(f"{served}/ui/mini/{path}", headers=auth)
        assert r.status_code == 200 and r.content == (site / path).read_bytes(), path
        assert r.headers["content-security-policy"].startswith("default-src 'none'")
        assert r.headers["x-content-type-options"] == "nosniff"
    assert httpx.get(f"{served}/ui/mini/attempts/{'0' * 64}.html", headers=auth).status_code == 404
