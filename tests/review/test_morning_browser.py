"""The morning after a night with every kind of ending, walked in Chromium: the message
and its links, a needs-work text approved with a reason, a failed text retried, an
automatic approval reopened, a model call's prompt and answer read, and every count on
/runs matching the rows listed."""

from __future__ import annotations

import re
import threading

import pytest
from test_web_browser import browser, running

from batch.errors import ModelUnavailable
from batch.nightly.job import run_job
from batch.review import web
from batch.run.runner import Runner

from conftest import (
    CRITIC_GATE,
    ScriptedModel,
    critic_answer,
    make_settings,
    write_brief,
    writer_answer,
)

TOKEN = "morning-token-0123456789"
STUCK = "Name the team that closes the office."
LAMP = "The desk lamp has five brightness levels and folds flat."


def scripted() -> dict[str, ScriptedModel]:
    """Answers by brief: the closure never satisfies the critic, the lamp passes at once,
    the lift's writer is down the first time and fine when retried."""
    lift_tries = []

    def write(messages):
        text = messages[-1]["content"]
        if "lift" in text.lower():
            lift_tries.append(1)
            if len(lift_tries) == 1:
                return ModelUnavailable("connection refused by the model host")
            return writer_answer("The lift is out of order until Monday.")
        if "lamp" in text.lower():
            return writer_answer(LAMP)
        return writer_answer("The office is closed on Friday from 15:00.")

    def judge(messages):
        text = messages[-1]["content"]
        if "office is closed" in text:
            return critic_answer(3, must_fix=[STUCK])
        return critic_answer(5)

    return {"writer": ScriptedModel([write] * 40), "critic": ScriptedModel([judge] * 40)}


def counts_and_rows(page) -> tuple[dict[str, int], int]:
    counts = {
        name.strip(): int(n)
        for name, n in re.findall(r"<span>([^<]+) <strong>(\d+)</strong></span>", page.content())
    }
    return counts, page.locator("tr.run").count()


@pytest.mark.settings(**CRITIC_GATE)
def test_the_morning_in_the_browser(project, tmp_path, webhook, monkeypatch):
    url, received = webhook
    monkeypatch.setenv("BRIEFLOOP_REVIEW_TOKEN", TOKEN)  # links are signed on loopback too
    write_brief(
        project,
        "closure.md",
        "Office closed Friday from 15:00.",
        id="closure",
        title="Office closure",
    )
    write_brief(
        project,
        "lamp.md",
        "Describe the desk lamp: five brightness levels, folds flat.",
        id="lamp",
        title="Desk lamp",
    )
    write_brief(
        project,
        "lift.md",
        "Memo: the lift is out of order until Monday.",
        id="lift",
        title="Lift memo",
    )
    models = scripted()
    # the page reads the project's files and database as each request comes
    app = web.create_app(
        make_settings(project, **{"loop.max_rounds": 2}), models=models, token=TOKEN
    )
    with running(app) as base:
        s = make_settings(
            project,
            **{
                "loop.review": "unfinished",
                "loop.max_rounds": 2,
                "retry.attempts": 1,
                "notify.webhook_url": url,
                "notify.review_url": base,
            },
        )
        summary = run_job(s, project / "briefs", models=models)
        outcomes = {r.brief_id: r.outcome for r in summary.results}
        assert outcomes == {"closure": "awaiting_human", "lamp": "approved", "lift": "error"}, (
            outcomes
        )
        threads = {r.brief_id: r.thread_id for r in summary.results}

        # 1. the message names the unfinished text and the failure, with working links
        [message] = [body["text"] for body in received]
        assert "1 text waits for you, 1 failed" in message
        assert "needs work: the machine could not finish it (max rounds)" in message
        assert "- lift: ModelUnavailable" in message or "- lift:" in message
        thread_link = re.search(r"open: (\S+)", message)[1]
        review_link = re.search(r"Review: (\S+)", message)[1]
        assert "?link=" in thread_link and "?link=" in review_link

        with browser(tmp_path) as context:
            page = context.new_page()
            # 2. the links: the general one opens the Waiting list, its row the thread
            page.goto(review_link)
            page.wait_for_url(base + "/")
            row = page.locator("tr", has_text="Office closure")
            assert "needs work (max rounds)" in row.inner_text()
            row.get_by_role("link", name="Office closure").click()
            page.wait_for_url(f"**/thread/{threads['closure']}")
            assert "Needs work." in page.locator("#stopped").inner_text()
            assert STUCK in page.content()

            # 3. the needs-work text approved with a reason
            page.locator("#approve").click()
            assert "override" in page.locator("#error").inner_text()
            page.get_by_label("Your name").fill("Ana")
            page.locator("#override").fill("the facilities team is named in the footer")
            page.locator("#approve").click()
            page.wait_for_url(f"**/thread/{threads['closure']}")
            assert "Approved by human" in page.get_by_role("status").inner_text()

            # the team lead, with the page's token: the failed text retried
            context.clear_cookies()
            page.goto(f"{base}/runs/1?token={TOKEN}")
            page.wait_for_url(f"{base}/runs/1")
            page.locator(f'a[href="/thread/{threads["lift"]}"]').click()
            page.wait_for_url(f"**/thread/{threads['lift']}")
            assert "connection refused" in page.content()
            page.locator("#retry").click()
            # answered at once: the page follows the new attempt, then links to it
            page.wait_for_url(f"**/thread/{threads['lift']}")
            assert "Started: a new attempt" in page.content()
            page.locator("#job-link").wait_for(timeout=60_000)
            assert "retried as" in page.locator("#job").inner_text()
            page.locator("#job-link").click()
            page.wait_for_url(re.compile(r".*/thread/lift-[0-9a-f]+-[0-9a-f]{6}$"))
            assert "approved" in page.locator("#ended").inner_text()
            assert page.locator("#retry-of a").inner_text().endswith(threads["lift"])

            # an automatic approval reopened
            page.goto(f"{base}/thread/{threads['lamp']}")
            page.locator("#reopen-reason").fill("it says nothing of the price asked for")
            page.get_by_label("Your name", exact=True).fill("Bo")
            page.locator("#reopen").click()
            page.wait_for_url(f"**/thread/{threads['lamp']}")
            assert "saved as a judged case" in page.get_by_role("status").inner_text()
            assert page.locator("#answer").is_visible()  # it waits for a person again

            # a model call's prompt and answer read, folded under its round
            calls = page.locator("#round-1 details.calls")
            calls.locator("summary").first.click()
            first_call = calls.locator("details.call").first
            first_call.locator("summary").click()
            assert "writer" in first_call.locator("summary").inner_text()
            messages = first_call.locator("pre.message")
            assert (
                "desk lamp" in messages.first.inner_text().lower()
                or "desk lamp" in messages.nth(1).inner_text().lower()
            )
            assert LAMP in messages.last.inner_text()

            # every count on /runs matches the rows listed, in the batch and per outcome
            page.goto(f"{base}/runs/1")
            counts, rows = counts_and_rows(page)
            assert sum(counts.values()) == rows == 3, (counts, rows)
            for outcome in ("awaiting_human", "approved", "error"):
                page.goto(f"{base}/runs/1?outcome={outcome}")
                assert page.locator("tr.run").count() == 1, outcome
            # at a phone's width nothing runs off the side
            page.set_viewport_size({"width": 390, "height": 800})
            page.goto(f"{base}/runs")
            assert page.evaluate("document.documentElement.scrollWidth") <= 390
            page.goto(f"{base}/thread/{threads['lamp']}")
            assert page.evaluate("document.documentElement.scrollWidth") <= 390

    with Runner(s) as runner:
        closure = runner.runlog.by_thread(threads["closure"])
        lamp = runner.runlog.by_thread(threads["lamp"])
        [retry] = runner.runlog.retries_of(threads["lift"])
    assert closure["stop_reason"] == "approved_by_human" and closure["unfinished"] == "max_rounds"
    assert "facilities team" in closure["decision_note"]
    assert lamp["status"] == "awaiting_human" and "price" in lamp["decision_note"]
    assert retry["stop_reason"] == "approved"
    assert (project / "judged" / "drafts" / "lamp").is_dir()


def test_the_morning_from_the_digest(project, tmp_path, webhook, monkeypatch):
    """On a phone: the digest's one-tap link approves the plain text, the page shows the
    text that went out, the link then approves nothing; the Waiting page breaks no word;
    the team lead's retry of the failed text answers at once and the page follows it."""
    from test_one_tap import approve_links
    from test_waiting_page import _BROKEN_WORDS

    from batch.nightly import digest

    url, received = webhook
    monkeypatch.setenv("BRIEFLOOP_REVIEW_TOKEN", TOKEN)  # links are signed on loopback too
    write_brief(project, "lamp.md", "Describe the desk lamp: it folds flat.", id="lamp")
    write_brief(project, "q3.md", "Memo on Q3: revenue not known yet.", id="q3", title="Q3 memo")
    write_brief(project, "lift.md", "Memo: the lift is out of order until Monday.", id="lift")
    ph = "[FIGURE NEEDED: Q3 revenue]"
    lift_tries, retry_may_end = [], threading.Event()

    def write(messages):
        text = messages[-1]["content"].lower()
        if "lift" in text:
            lift_tries.append(1)
            if len(lift_tries) == 1:
                return ModelUnavailable("connection refused by the model host")
            retry_may_end.wait(60)  # the retry runs until the test has seen its progress
            return writer_answer("The lift is out of order until Monday.")
        if "lamp" in text:
            return writer_answer("The desk lamp folds flat.")
        return writer_answer(f"Q3 revenue was {ph}.", needs=[(ph, "How much?")])

    models = {
        "writer": ScriptedModel([write] * 20),
        "critic": ScriptedModel([critic_answer(5)] * 20),
    }
    night = {
        "loop.review": "always",
        "models.critic_mode": "advice",
        "retry.attempts": 1,
        "notify.webhook_url": url,
        "notify.digest": True,
    }
    app = web.create_app(make_settings(project, **night), models=models, token=TOKEN)
    with running(app) as base:
        s = make_settings(project, **night, **{"notify.review_url": base})
        summary = run_job(s, project / "briefs", models=models)
        threads = {r.brief_id: r.thread_id for r in summary.results}
        assert received == []  # the digest tells the night
        assert digest.send(s, digest.digest(s)) == []
        [message] = [body["text"] for body in received]
        assert "2 texts wait for you, 1 failed" in message
        links = approve_links(message)
        assert set(links) == {"lamp"}  # the memo has a placeholder to fill
        review_link = re.search(r"Review: (\S+)", message)[1]

        with browser(tmp_path) as context:
            page = context.new_page()
            page.set_viewport_size({"width": 390, "height": 800})
            # 1. the one-tap link: opening it approves nothing, its button does
            page.goto(links["lamp"])
            page.wait_for_url(re.compile(rf".*/thread/{threads['lamp']}\?approve=[^&]+$"))
            assert page.locator("#one-tap").is_visible()
            assert page.evaluate("document.documentElement.scrollWidth") <= 390
            page.screenshot(path=str(tmp_path / "one-tap.png"), full_page=True)
            page.locator("#one-tap-name").fill("Ana")
            page.locator("#one-tap-approve").click()
            page.wait_for_url(f"**/thread/{threads['lamp']}")
            assert "Approved by human" in page.get_by_role("status").inner_text()
            # 2. the text that went out, on the page it lands on
            assert "The desk lamp folds flat." in page.locator("#published").inner_text()
            # 3. the same link again approves nothing, and says why
            page.goto(links["lamp"])
            assert "was used on" in page.locator("#error").inner_text()

            # 4. the Waiting page from the digest's link: the memo only, no word broken
            page.goto(review_link)
            page.wait_for_url(base + "/")
            assert page.get_by_role("link", name="Q3 memo").is_visible()
            assert "Desk lamp" not in page.locator("main").inner_text()
            assert page.evaluate(_BROKEN_WORDS) == []
            assert page.evaluate("document.documentElement.scrollWidth") <= 390

            # 5. the team lead retries the failed text: the page answers while it runs
            context.clear_cookies()
            page.goto(f"{base}/thread/{threads['lift']}?token={TOKEN}")
            page.wait_for_url(f"**/thread/{threads['lift']}")
            page.locator("#retry").click()
            page.wait_for_url(f"**/thread/{threads['lift']}")
            assert "Working on it: retry" in page.locator("#job").inner_text()
            assert len(lift_tries) <= 2  # the retry's writer has not answered yet
            retry_may_end.set()
            page.locator("#job-link").wait_for(timeout=60_000)
            assert "retried as" in page.locator("#job").inner_text()

    with Runner(s) as runner:
        lamp = runner.runlog.by_thread(threads["lamp"])
        [retry] = runner.runlog.retries_of(threads["lift"])
    assert lamp["stop_reason"] == "approved_by_human" and lamp["decided_by"] == "Ana"
    assert retry["status"] == "awaiting_human"  # every text waits for a person tonight
