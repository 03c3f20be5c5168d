"""The morning after a night with every kind of ending, walked in Chromium: the message
and its links, a needs-work text approved with a reason, a failed text retried, an
automatic approval reopened, a model call's prompt and answer read, and every count on
/runs matching the rows listed."""

from __future__ import annotations

import re

from test_web_browser import browser, running

from batch.errors import ModelUnavailable
from batch.nightly.job import run_job
from batch.review import web
from batch.run.runner import Runner

from conftest import ScriptedModel, critic_answer, make_settings, write_brief, writer_answer

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

    with Runner(s) as batch:
        closure = batch.runlog.by_thread(threads["closure"])
        lamp = batch.runlog.by_thread(threads["lamp"])
        [retry] = batch.runlog.retries_of(threads["lift"])
    assert closure["stop_reason"] == "approved_by_human" and closure["unfinished"] == "max_rounds"
    assert "facilities team" in closure["decision_note"]
    assert lamp["status"] == "awaiting_human" and "price" in lamp["decision_note"]
    assert retry["stop_reason"] == "approved"
    assert (project / "judged" / "drafts" / "lamp").is_dir()
