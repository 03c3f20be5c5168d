"""One-tap approve links from the message: signed, single-use, for the state the
message showed, and never taken by a plain fetch of the link. Over a real run log and
checkpointer, with the app served by Starlette's test client."""

from __future__ import annotations

import html
import re
import threading
import time
from urllib.parse import parse_qs, urlsplit

import pytest
from starlette.testclient import TestClient
from test_waiting_page import csrf_of, morning

from batch.errors import BriefloopError
from batch.nightly import digest
from batch.review import one_tap, web
from batch.review import threads as review
from batch.review.links import SECRET_NAME
from batch.run.runner import Runner

from conftest import make_settings

BASE = "http://127.0.0.1:8765"


def with_links(project, **more):
    return make_settings(
        project,
        **{
            "loop.review": "always",
            "models.critic_mode": "advice",
            "notify.review_url": BASE,
            **more,
        },
    )


def approve_links(body: str) -> dict[str, str]:
    """brief id -> its approve link, as the message lists them (a webhook's text has
    "&" escaped for Slack, which shows it as "&")."""
    body = html.unescape(body)
    links, brief = {}, None
    for line in body.splitlines():
        if line.startswith("- "):
            brief = line[2:].split(" ", 1)[0].rstrip(":")
        elif "approve (opens it with one Approve button): " in line:
            links[brief] = line.split(": ", 1)[1]
    return links


def token_of(link: str) -> str:
    return parse_qs(urlsplit(link).query)["approve"][0]


def path_of(link: str) -> str:
    parts = urlsplit(link)
    return f"{parts.path}?{parts.query}"


def tap(client: TestClient, link: str, name: str = "Ana"):
    """Open the link, then press its Approve button, as a person does."""
    page = client.get(path_of(link))
    assert page.status_code == 200, page.text
    return page, client.post(
        urlsplit(link).path,
        data={
            "csrf": csrf_of(page.text),
            "action": "approve_once",
            "once": token_of(link),
            "name": name,
        },
        follow_redirects=True,
    )


def status_of(s, thread_id: str) -> dict:
    with Runner(s) as runner:
        return runner.runlog.by_thread(thread_id)


def test_only_plain_texts_get_an_approve_link(project):
    s0, models, results = morning(project)
    s = with_links(project)
    body = digest.digest(s).body
    links = approve_links(body)
    # the two that need nothing typed; the memo with a placeholder to fill gets none
    assert set(links) == {"a-lamp", "b-dock"}, body
    assert "c-q3" in body
    # switched off, no text gets one, and each is still linked to its page
    off = digest.digest(with_links(project, **{"notify.approve_links": False})).body
    assert approve_links(off) == {} and off.count("open: ") == 3


def test_a_fetch_approves_nothing_and_the_button_approves_once(project):
    s0, models, results = morning(project)
    s = with_links(project)
    link = approve_links(digest.digest(s).body)["a-lamp"]
    tid = results["a-lamp"].thread_id
    with TestClient(web.create_app(s, models=models, strict=True)) as client:
        # a mail scanner follows the link: the text still waits
        for _ in range(2):
            page = client.get(path_of(link))
            assert 'id="one-tap-approve"' in page.text
        assert status_of(s, tid)["status"] == "awaiting_human"

        page, done = tap(client, link, name="Ana Example")
        assert done.status_code == 200
        assert "Approved by human: the text is in output/" in done.text
        # the page it lands on shows the text that went out
        assert "The lamp folds flat." in done.text
        record = status_of(s, tid)
        assert record["stop_reason"] == "approved_by_human"
        assert record["decided_by"] == "Ana Example"
        published = project / "output" / "a-lamp.md"
        assert "The lamp folds flat." in published.read_text(encoding="utf-8")

        # the same link again: opened, it says it was used; pressed, it approves nothing
        again = client.get(path_of(link))
        assert "was used on" in again.text and 'id="one-tap-approve"' not in again.text
        pressed = client.post(
            urlsplit(link).path,
            data={"csrf": csrf_of(again.text), "action": "approve_once", "once": token_of(link)},
        )
        assert pressed.status_code == 409 and "used on" in pressed.text


def test_a_link_for_a_text_that_changed_since_approves_nothing(project):
    s0, models, results = morning(project)
    s = with_links(project)
    link = approve_links(digest.digest(s).body)["b-dock"]
    tid = results["b-dock"].thread_id
    with Runner(s, models=models) as runner:
        review.answer(runner, tid, "approve", {}, by="Bo")
    from batch.review import attempts

    with Runner(s, models=models) as runner:
        attempts.reopen(runner, tid, "the time is wrong", "Bo")
    # it waits again, as another state than the message showed
    with TestClient(web.create_app(s, models=models, strict=True)) as client:
        page = client.get(path_of(link))
        assert "has changed since the message was sent" in page.text
        assert 'id="one-tap-approve"' not in page.text
        pressed = client.post(
            urlsplit(link).path,
            data={"csrf": csrf_of(page.text), "action": "approve_once", "once": token_of(link)},
        )
        assert pressed.status_code == 400 and "has changed since" in pressed.text
    assert status_of(s, tid)["status"] == "awaiting_human"


def test_altered_expired_and_borrowed_tokens_are_refused(project):
    s0, models, results = morning(project)
    s = with_links(project)
    lamp, dock = results["a-lamp"].thread_id, results["b-dock"].thread_id
    with Runner(s) as runner:
        secret = runner.runlog.secret(SECRET_NAME)
        mark = review.waiting(runner, lamp).mark
        good = one_tap.sign(secret, lamp, mark, int(time.time()) + 600)
        assert one_tap.problem(runner, secret, lamp, good)[0] == ""
        expires, _, rest = good.partition(".")
        cases = {
            "altered": f"{int(expires) + 86400}.{rest}",  # a later expiry, same signature
            "cut": good[:-1],
            "another thread's": one_tap.sign(
                secret, dock, review.waiting(runner, dock).mark, int(time.time()) + 600
            ),
            "another mark": one_tap.sign(secret, lamp, "1f0-not-a-mark", int(expires)),
            "another project's": one_tap.sign(b"x" * 32, lamp, mark, int(expires)),
            "empty": "",
        }
        for what, token in cases.items():
            why = one_tap.problem(runner, secret, lamp, token)[0]
            assert why, what
        assert "altered" in one_tap.problem(runner, secret, lamp, cases["altered"])[0]
        assert "changed since" in one_tap.problem(runner, secret, lamp, cases["another mark"])[0]
        stale = one_tap.sign(secret, lamp, mark, int(time.time()) - 1)
        assert "expired" in one_tap.problem(runner, secret, lamp, stale)[0]
        for token in [*cases.values(), stale]:
            with pytest.raises(BriefloopError):
                one_tap.approve(runner, secret, lamp, token, "Mallory")
    assert status_of(s, lamp)["status"] == "awaiting_human"


def test_a_refused_approval_gives_the_link_back(project):
    """The thread is busy (another answer holds its lock): the tap is refused, and the
    link still approves once the thread is free."""
    s0, models, results = morning(project)
    s = with_links(project, **{"notify.approve_links": True})
    link = approve_links(digest.digest(s).body)["a-lamp"]
    tid = results["a-lamp"].thread_id
    with Runner(s) as runner:
        secret = runner.runlog.secret(SECRET_NAME)
        held, release = threading.Event(), threading.Event()

        def hold():
            with Runner(s) as other, other.store.thread_lock(tid, wait=5):
                held.set()
                release.wait(20)

        holder = threading.Thread(target=hold)
        holder.start()
        held.wait(10)
        try:
            with pytest.raises(BriefloopError):
                one_tap.approve(runner, secret, tid, token_of(link), "Ana", wait=0.2)
        finally:
            release.set()
            holder.join(20)
        assert runner.runlog.link_used(one_tap.read(token_of(link)).signature) == ""
    with TestClient(web.create_app(s, models=models, strict=True)) as client:
        _, done = tap(client, link)
        assert "Approved by human" in done.text


def test_two_taps_at_once_approve_once(project):
    s0, models, results = morning(project)
    s = with_links(project)
    with Runner(s) as runner:
        taken = [runner.runlog.take_link("sig-1", "t") for _ in range(2)]
    assert taken[0] == "" and re.match(r"\d{4}-\d\d-\d\dT", taken[1])


def test_the_message_after_a_batch_carries_the_links_too(project, webhook):
    url, received = webhook
    s = with_links(project, **{"notify.webhook_url": url})
    morning_settings_models = morning(project)
    models = morning_settings_models[1]
    from batch.nightly.job import run_job

    # a second batch over the same briefs finds them done; its message reminds of them
    run_job(s, project / "briefs", models=models)
    [sent] = received
    assert set(approve_links(sent["text"])) == {"a-lamp", "b-dock"}


@pytest.mark.parametrize("way", ["link", "page", "bulk"])
def test_a_decision_with_no_name_typed_says_how_it_came_never_the_servers_account(
    project, monkeypatch, way
):
    monkeypatch.setenv("USER", "root")
    monkeypatch.setenv("LOGNAME", "root")
    monkeypatch.delenv("BRIEFLOOP_REVIEWER", raising=False)
    s0, models, results = morning(project)
    s = with_links(project)
    tid = results["a-lamp"].thread_id
    with TestClient(web.create_app(s, models=models, strict=True)) as client:
        if way == "link":
            _, done = tap(client, approve_links(digest.digest(s).body)["a-lamp"], name="")
        else:
            page = client.get(f"/thread/{tid}" if way == "page" else "/").text
            mark = re.search(rf'name="seen(?::{re.escape(tid)})?" value="([^"]*)"', page)
            form = {"csrf": csrf_of(page), "name": ""}
            if way == "page":
                form |= {"action": "approve", "seen": mark.group(1) if mark else ""}
            else:
                form |= {"thread": tid, f"seen:{tid}": mark.group(1)}
            done = client.post(f"/thread/{tid}" if way == "page" else "/approve", data=form)
        assert done.status_code < 400, done.text[-500:]
    record = status_of(s, tid)
    assert record["stop_reason"] == "approved_by_human"
    expected = one_tap.UNNAMED_LINK if way == "link" else web.UNNAMED
    assert record["decided_by"] == expected and "root" not in record["decided_by"]
