"""The review page in a real browser: Debian's chromium driven by Playwright.

CI installs the `chromium` package (.ci/run); Playwright's own browser download is
never used. Without chromium these tests fail, naming the package, rather than skip.
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import uvicorn
from test_web import PH, QUESTION, XSS_DRAFT, pause

from batch.review import web
from batch.run.runner import Runner

from conftest import REPO, WHOLE_REWRITES, make_settings

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
# docs/review-cycle.md shows these screenshots; a test run writes them to its own folder, and
# BRIEFLOOP_SCREENSHOTS=1 writes them to bench/results/ to refresh the doc's.
RESULTS = REPO / "bench" / "results"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def running(app) -> Iterator[str]:
    """The app served by uvicorn in a background thread on a free loopback port."""
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


@contextmanager
def browser(tmp_path: Path):
    if not (Path(CHROMIUM).exists() or shutil.which("chromium")):
        pytest.fail(
            "chromium is missing: install Debian's package `chromium` "
            "(apt-get install -y chromium); .ci/run does"
        )
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the Python package `playwright` is missing: pip install -e '.[test]'")
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"),
            executable_path=CHROMIUM,
            headless=True,
            args=ARGS,
            viewport={"width": 1280, "height": 900},
        )
        try:
            yield context
        finally:
            context.close()


def test_approve_in_the_browser(project, settings, tmp_path):
    tid, models = pause(project, settings)
    shots = RESULTS if os.environ.get("BRIEFLOOP_SCREENSHOTS") == "1" else tmp_path
    shots.mkdir(parents=True, exist_ok=True)
    app = web.create_app(settings, models=models, strict=True)
    with running(app) as base, browser(tmp_path) as context:
        page = context.new_page()
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(base + "/")
        assert page.get_by_role("link", name="Q3 memo").is_visible()
        page.screenshot(path=str(shots / "review-list.png"), full_page=True)

        page.get_by_role("link", name="Q3 memo").click()
        page.wait_for_url(f"**/thread/{tid}")
        field = page.get_by_label(QUESTION)
        assert field.get_attribute("name") == f"ph:{PH}"
        assert page.locator("mark.ph").first.inner_text().startswith(PH)
        field.fill("4.2M EUR")
        page.get_by_label("Your name").fill("Ana Example")
        page.screenshot(path=str(shots / "review-thread.png"), full_page=True)
        assert all(
            (shots / n).stat().st_size > 5_000 for n in ("review-list.png", "review-thread.png")
        )

        page.locator("#approve").click()
        page.wait_for_url(base + "/")
        status = page.get_by_role("status").inner_text()
        assert "Approved by human: the text is in output/q3.md" in status
        assert "No thread is waiting for a person." in page.content()
        assert dialogs == []

    with Runner(settings) as runner:
        rec = runner.runlog.by_thread(tid)
    assert rec["stop_reason"] == "approved_by_human" and rec["decided_by"] == "Ana Example"
    out = project / "output" / "q3.md"
    assert "Q3 revenue was 4.2M EUR." in out.read_text(encoding="utf-8")


def test_a_draft_with_script_opens_no_dialog(project, tmp_path):
    settings = make_settings(project, **{"loop.review": "unfinished", "loop.max_rounds": 1})
    tid, models = pause(project, settings, draft=XSS_DRAFT)
    app = web.create_app(settings, models=models, strict=True)
    with running(app) as base, browser(tmp_path) as context:
        page = context.new_page()
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(f"{base}/thread/{tid}")
        draft = page.locator(".draft")
        assert "<script>alert(1)</script>" in draft.inner_text()  # shown as text
        assert draft.locator("script, img").count() == 0
        page.wait_for_timeout(300)  # an onerror handler would fire by now
        assert dialogs == []


@pytest.mark.settings(**WHOLE_REWRITES)
def test_runs_story_and_a_scoped_link_in_the_browser(project, tmp_path):
    """The night on one page, a thread's rounds with their diffs, and a link that opens
    its own thread and no other, in Chromium."""
    from test_web_runs import night

    from batch.review import links
    from batch.store.backends import open_runlog

    s, threads, models = night(project)
    with open_runlog(s) as log:
        secret = log.secret(links.SECRET_NAME)
    shots = RESULTS if os.environ.get("BRIEFLOOP_SCREENSHOTS") == "1" else tmp_path
    shots.mkdir(parents=True, exist_ok=True)
    app = web.create_app(s, models=models, strict=True, token="full-token")
    with running(app) as base, browser(tmp_path) as context:
        page = context.new_page()
        page.goto(f"{base}/runs?token=full-token")
        page.wait_for_url(f"{base}/runs")
        assert page.locator("tr.run").count() == 3
        charts = page.locator("tr.run svg.chart")
        assert charts.count() == 3
        assert all(charts.nth(i).bounding_box()["width"] > 50 for i in range(3))
        assert page.locator("tr.run svg.chart rect").count() >= 5  # a bar per round
        page.screenshot(path=str(shots / "review-runs.png"), full_page=True)

        page.locator(f'a[href="/thread/{threads["a-dock"]}"]').click()
        page.wait_for_url(f"**/thread/{threads['a-dock']}")
        assert page.locator("#round-1").is_visible() and page.locator("#round-2").is_visible()
        assert page.locator("#round-2 del").inner_text().strip() == "16:00"
        assert page.locator("#round-2 ins").inner_text().strip() == "14:00"
        page.screenshot(path=str(shots / "review-story.png"), full_page=True)
        assert all(
            (shots / n).stat().st_size > 5_000 for n in ("review-runs.png", "review-story.png")
        )

        # a fresh browser profile: only the link's token, no page token
        context.clear_cookies()
        tid, other = threads["b-q3"], threads["a-dock"]
        link = links.thread_url("https://review.example", tid, secret, days=1)
        page.goto(f"{base}/thread/{tid}?link={link.split('?link=')[1]}")
        page.wait_for_url(f"{base}/thread/{tid}")
        assert page.locator("#answer").is_visible()
        assert page.locator("#nav-runs").count() == 0
        refused = page.goto(f"{base}/thread/{other}")
        assert refused.status == 401
        wrong = page.goto(f"{base}/thread/{other}?link={link.split('?link=')[1]}")
        assert wrong.status == 403 and "another thread" in page.content()
