"""The review page (batch.review.web) over a real Runner and checkpointer, with scripted models."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from batch.errors import BriefloopError
from batch.review import guard, render, web
from batch.review import threads as review
from batch.run.runner import Runner

from conftest import (
    CRITIC_GATE,
    ScriptedModel,
    critic_answer,
    make_settings,
    write_brief,
    writer_answer,
)

PH = "[FIGURE NEEDED: Q3 revenue]"
QUESTION = "What is the Q3 revenue?"
DRAFT = f"Q3 revenue was {PH}. We opened Berlin."
NEEDS = [(PH, QUESTION)]
XSS_DRAFT = (
    f"Q3 revenue was {PH}. We opened Berlin.\n\n<script>alert(1)</script>\n\n"
    f"A picture: <img src=x onerror=alert(2)> and **bold**."
)


def pause(
    project,
    settings,
    draft=DRAFT,
    extra_writer=(),
    extra_critic=(),
    would_improve=(),
    deviations=(),
):
    """A thread paused for a person; the models (with answers left for later rounds)."""
    write_brief(
        project,
        "q3.md",
        "Memo on Q3: revenue not known yet; we opened Berlin.",
        id="q3",
        title="Q3 memo",
    )
    writer = ScriptedModel(
        [writer_answer(draft, needs=NEEDS, deviations=deviations), *extra_writer]
    )
    critic = ScriptedModel([critic_answer(5, would_improve=would_improve), *extra_critic])
    models = {"writer": writer, "critic": critic}
    with Runner(settings, models=models, strict=True) as runner:
        [r] = runner.run(project / "briefs").results
    assert r.outcome == "awaiting_human"
    return r.thread_id, models


def client_for(settings, models, **kw) -> TestClient:
    return TestClient(web.create_app(settings, models=models, strict=True, **kw))


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


def post(client, tid, data, csrf=True):
    page = client.get(f"/thread/{tid}")
    assert page.status_code == 200
    form = {"csrf": csrf_of(page.text), **data} if csrf is True else dict(data)
    return client.post(f"/thread/{tid}", data=form, follow_redirects=False)


def still_waiting(settings, tid) -> bool:
    with Runner(settings) as runner:
        return review.waiting(runner, tid) is not None


def record(settings, tid) -> dict:
    with Runner(settings) as runner:
        return runner.runlog.by_thread(tid)


def test_list_shows_the_waiting_thread_with_security_headers(project, settings):
    tid, models = pause(project, settings)
    with client_for(settings, models) as client:
        page = client.get("/")
    assert page.status_code == 200
    assert f'href="/thread/{tid}"' in page.text
    assert "q3" in page.text and "Q3 memo" in page.text
    assert '<td data-label="Score">100' in page.text
    # the placeholder by name, the wait in words and in local time
    assert f"<code>{PH}</code>" in page.text
    assert re.search(r'data-label="Waiting since"><span title="[^"]+">just now</span>', page.text)
    assert page.headers["content-security-policy"] == guard.CSP
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["referrer-policy"] == "no-referrer"
    cookie = page.headers["set-cookie"]
    assert (
        guard.CSRF_COOKIE in cookie
        and "httponly" in cookie.lower()
        and "samesite=strict" in cookie.lower()
    )


@pytest.mark.settings(**CRITIC_GATE)
def test_thread_page_shows_draft_placeholder_field_and_chart(project, settings):
    tid, models = pause(project, settings, would_improve=["Say what Berlin costs."])
    with client_for(settings, models) as client:
        page = client.get(f"/thread/{tid}")
        missing = client.get("/thread/nope")
    html = page.text
    assert page.status_code == 200
    assert f'name="ph:{PH}"' in html and QUESTION in html
    assert '<mark class="ph" id="ph-1"><a href="#field-1">[FIGURE NEEDED: Q3 revenue]' in html
    assert "Memo on Q3: revenue not known yet" in html  # the brief
    assert "Say what Berlin costs." in html  # the critic's suggestion
    assert "✓ R" in html or "✗ R" in html  # the checklist
    assert "<svg" in html and "round 1: 100" in html  # the score chart
    assert 'name="action" value="approve"' in html and 'name="edited"' in html
    assert 'name="notes"' in html and 'name="reason"' in html
    assert missing.status_code == 404 and "no thread" in missing.text


def test_approve_with_the_value_writes_the_output_and_records_who(project, settings):
    tid, models = pause(project, settings)
    with client_for(settings, models) as client:
        done = post(client, tid, {"action": "approve", f"ph:{PH}": "4.2M EUR", "name": "ana"})
        assert done.status_code == 303 and done.headers["location"] == "/"
        listing = client.get("/")
        again = client.get("/")
    assert "Approved by human: the text is in output/q3.md" in listing.text
    assert "Approved by human" not in again.text  # the message is shown once
    assert f'href="/thread/{tid}"' not in listing.text
    rec = record(settings, tid)
    assert rec["stop_reason"] == "approved_by_human" and rec["decided_by"] == "ana"
    out = Path(rec["output_path"])
    assert out == project / "output" / "q3.md"
    assert "Q3 revenue was 4.2M EUR. We opened Berlin." in out.read_text(encoding="utf-8")
    # the thread's page shows the text that went out, and the value a person gave
    with client_for(settings, models) as client:
        told = client.get(f"/thread/{tid}").text
    published = told[
        told.index('id="published"') : told.index("</section>", told.index('id="published"'))
    ]
    assert "Q3 revenue was 4.2M EUR. We opened Berlin." in published
    assert "Filled in by a person" in published and "4.2M EUR" in published
    assert "q3.md" in published


def test_approve_without_the_value_shows_the_error_and_keeps_what_was_typed(project, settings):
    tid, models = pause(project, settings)
    with client_for(settings, models) as client:
        refused = post(
            client, tid, {"action": "approve", f"ph:{PH}": "  ", "name": "ana", "notes": "keep me"}
        )
    assert refused.status_code == 400
    assert "approve needs a value for every placeholder" in refused.text
    assert 'value="ana"' in refused.text and "keep me</textarea>" in refused.text
    assert still_waiting(settings, tid)
    assert not (project / "output" / "q3.md").exists()


def test_reject_with_a_reason(project, settings):
    tid, models = pause(project, settings)
    with client_for(settings, models) as client:
        empty = post(client, tid, {"action": "reject", "reason": ""})
        assert empty.status_code == 400 and "needs a reason" in empty.text
        done = post(client, tid, {"action": "reject", "reason": "Wrong audience", "name": "bo"})
        assert done.status_code == 303
        assert "Rejected by human" in client.get("/").text
        told = client.get(f"/thread/{tid}")
    # no longer waiting: the page tells its story, with no form to answer it
    assert told.status_code == 200 and 'id="answer"' not in told.text
    assert '<strong id="ended">rejected by human</strong>' in told.text
    assert "<strong>rejected</strong> by bo" in told.text and "Wrong audience" in told.text
    rec = record(settings, tid)
    assert rec["stop_reason"] == "rejected_by_human" and rec["decision_note"] == "Wrong audience"
    assert rec["decided_by"] == "bo" and not (project / "output" / "q3.md").exists()


def test_revise_sends_it_back_to_the_writer(project, settings):
    tid, models = pause(
        project,
        settings,
        extra_writer=[writer_answer(f"Q3 revenue: {PH}. We opened Berlin.", needs=NEEDS)],
        extra_critic=[critic_answer(5)],
    )
    with client_for(settings, models) as client:
        done = post(client, tid, {"action": "revise", "notes": "Revenue first.", "name": "cy"})
        assert done.status_code == 303
        # answered at once; the thread's page follows the rounds, then says what came
        assert done.headers["location"] == f"/thread/{tid}"
        assert client.app.state.jobs.wait(tid, 30).done
        told = client.get(f"/thread/{tid}").text
        listing = client.get("/")
    assert re.search(r'id="job" role="status"><strong>Sent back:</strong> Awaiting human', told)
    assert f'href="/thread/{tid}"' in listing.text
    assert "A reviewer asks: Revenue first." in models["writer"].sent[1][-1]["content"]
    assert still_waiting(settings, tid)


def test_a_send_back_answers_at_once_and_its_page_follows_the_rounds(project, settings):
    """The writer is held mid-round: the POST has already answered, the thread's page
    says it is working and on which round, reloading itself; a second send-back is
    refused while it runs; once the writer answers, the page says what came of it."""
    import threading

    release = threading.Event()

    def held(messages):
        assert release.wait(30), "the test never let the writer answer"
        return writer_answer(f"Q3 revenue: {PH}. We opened Berlin.", needs=NEEDS)

    tid, models = pause(project, settings, extra_writer=[held], extra_critic=[critic_answer(5)])
    with client_for(settings, models) as client:
        started = time.perf_counter()
        done = post(client, tid, {"action": "revise", "notes": "Revenue first.", "rounds": "2"})
        assert done.status_code == 303 and time.perf_counter() - started < 5
        following = client.get(f"/thread/{tid}").text
        assert "Started: sent back for 2 more rounds. This page follows it." in following
        assert re.search(
            r"<strong>Working on it:</strong> sent back for 2 more rounds, now at round \d+ of 3",
            following,
        )
        assert '<meta http-equiv="refresh" content="3">' in following
        again = client.post(
            f"/thread/{tid}",
            # the page of a running thread has no form: the token is the cookie's
            data={
                "csrf": client.cookies.get(guard.CSRF_COOKIE),
                "action": "revise",
                "notes": "More.",
            },
            follow_redirects=False,
        )
        assert again.status_code == 303
        assert "Already working on this text" in client.get(f"/thread/{tid}").text
        release.set()
        assert client.app.state.jobs.wait(tid, 30).done
        told = client.get(f"/thread/{tid}").text
    assert "Awaiting human" in told and "refresh" not in told.split("</head>")[0]
    assert len(models["writer"].sent) == 2  # the second send-back ran nothing


def test_edit_approves_the_persons_own_version(project, settings):
    tid, models = pause(project, settings)
    with client_for(settings, models) as client:
        empty = post(client, tid, {"action": "edit", "edited": "  ", "name": "di"})
        assert empty.status_code == 400 and "the edited text is empty" in empty.text
        done = post(
            client,
            tid,
            {
                "action": "edit",
                "name": "di",
                "edited": "Revenue is in the annex. We opened Berlin.",
            },
        )
        assert done.status_code == 303, done.text
    rec = record(settings, tid)
    assert rec["stop_reason"] == "approved_by_human" and rec["decided_by"] == "di"
    assert "Revenue is in the annex. We opened Berlin." in Path(rec["output_path"]).read_text(
        encoding="utf-8"
    )
    with client_for(settings, models) as client:
        told = client.get(f"/thread/{tid}").text
    published = told[told.index('id="published"') :]
    assert "The reviewer's own version." in published
    assert "Revenue is in the annex. We opened Berlin." in published
    # a text taken back is no longer shown as the one that went out
    Path(rec["output_path"]).unlink()
    with client_for(settings, models) as client:
        assert 'id="published"' not in client.get(f"/thread/{tid}").text


@pytest.mark.parametrize("csrf", [None, "wrong-token-" + "x" * 40])
def test_a_post_without_the_right_csrf_token_is_refused(project, settings, csrf):
    tid, models = pause(project, settings)
    data = {"action": "approve", f"ph:{PH}": "4.2M EUR", "name": "eve"}
    if csrf is not None:
        data["csrf"] = csrf
    with client_for(settings, models) as client:
        refused = post(client, tid, data, csrf=False)
    assert refused.status_code == 403
    assert still_waiting(settings, tid) and not (project / "output" / "q3.md").exists()


def test_a_post_from_another_origin_is_refused(project, settings):
    tid, models = pause(project, settings)
    with client_for(settings, models) as client:
        page = client.get(f"/thread/{tid}")
        refused = client.post(
            f"/thread/{tid}",
            follow_redirects=False,
            headers={"Origin": "http://evil.example"},
            data={"csrf": csrf_of(page.text), "action": "reject", "reason": "x"},
        )
    assert refused.status_code == 403 and still_waiting(settings, tid)


@pytest.mark.parametrize(
    "headers, allowed",
    [
        ({"Origin": "null", "Sec-Fetch-Site": "cross-site"}, False),
        ({"Origin": "null"}, False),
        ({"Sec-Fetch-Site": "same-site"}, False),
        ({"Origin": "http://testserver", "Sec-Fetch-Site": "cross-site"}, False),
        # what Chromium sends from our own page under Referrer-Policy: no-referrer
        ({"Origin": "null", "Sec-Fetch-Site": "same-origin"}, True),
        ({"Origin": "http://testserver"}, True),
    ],
)
def test_origin_and_fetch_site_checks(project, settings, headers, allowed):
    tid, models = pause(project, settings)
    with client_for(settings, models) as client:
        page = client.get(f"/thread/{tid}")
        sent = client.post(
            f"/thread/{tid}",
            follow_redirects=False,
            headers=headers,
            data={"csrf": csrf_of(page.text), "action": "reject", "reason": "x"},
        )
    assert sent.status_code == (303 if allowed else 403)
    assert still_waiting(settings, tid) is not allowed


def test_a_token_protected_app_needs_the_token(project, settings):
    tid, models = pause(project, settings)
    with client_for(settings, models, token="s3cret-token") as client:
        assert client.get("/").status_code == 401
        assert client.get(f"/thread/{tid}").status_code == 401
        assert client.get("/?token=wrong").status_code == 401
        swap = client.get("/?token=s3cret-token", follow_redirects=False)
        assert swap.status_code == 303 and swap.headers["location"] == "/"
        cookie = swap.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie
        assert client.get("/").status_code == 200  # the cookie carries it now
        assert client.get(f"/thread/{tid}").status_code == 200


def test_dns_rebinding_is_refused_by_the_host_check(project, settings):
    tid, models = pause(project, settings)
    with client_for(settings, models, allowed_hosts=["127.0.0.1", "localhost"]) as client:
        assert client.get("/", headers={"Host": "evil.example"}).status_code == 400
        assert client.get("/", headers={"Host": "127.0.0.1:8765"}).status_code == 200


def test_serve_off_loopback_needs_a_token(settings):
    with pytest.raises(BriefloopError, match="a token is required"):
        web.serve(settings, host="0.0.0.0", port=0)
    assert web.is_loopback("127.0.0.1") and web.is_loopback("::1")
    assert web.is_loopback("localhost") and not web.is_loopback("192.168.1.5")


def test_model_written_html_is_escaped(project):
    # the code checks flag the HTML (must_fix): a person sees the unfinished text at once
    settings = make_settings(project, **{"loop.review": "unfinished", "loop.max_rounds": 1})
    tid, models = pause(
        project,
        settings,
        draft=XSS_DRAFT,
        deviations=[("<script>alert(3)</script>", "<img src=x onerror=1>")],
    )
    with client_for(settings, models) as client:
        html = client.get(f"/thread/{tid}").text
    assert "<script>alert" not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=alert(2)&gt;" in html
    assert "&lt;script&gt;alert(3)&lt;/script&gt;" in html  # a deviation, escaped too
    assert "<strong>bold</strong>" in html  # Markdown is still rendered
    assert '<mark class="ph" id="ph-1">' in html
    assert "to fix: The text uses HTML tags (&lt;img" in html  # must_fix listed first
    assert 'id="stopped"' in html and "Needs work." in html
    assert "could not finish this text (max rounds)" in html
    assert "<code>html</code>" not in html  # the last round's findings: not of this draft


def test_render_draft_escapes_and_marks_placeholders():
    ph = "[FACT NEEDED: <b>who</b> & *why*]"
    html = str(render.render_draft(f"# Title\n\nAsk {ph} now <i>x</i>.", [ph]))
    assert "<h1>Title</h1>" in html
    assert "&lt;b&gt;who&lt;/b&gt; &amp; *why*" in html and "<b>" not in html
    assert "&lt;i&gt;x&lt;/i&gt;" in html
    assert html.count("<mark") == 1
    assert str(render.score_chart([])) == ""
    chart = str(render.score_chart([40, 75.5, 100]))
    assert chart.startswith("<svg") and chart.count("<rect") == 3 and "<polyline" in chart


def test_approving_over_the_checks_needs_a_reason(project):
    settings = make_settings(project, **{"loop.review": "unfinished", "loop.max_rounds": 1})
    tid, models = pause(project, settings, draft=XSS_DRAFT)
    with client_for(settings, models) as client:
        refused = post(client, tid, {"action": "approve", f"ph:{PH}": "4", "name": "ed"})
        assert refused.status_code == 400 and "the code checks still find" in refused.text
        assert 'value="4"' in refused.text  # what was typed is kept
        done = post(
            client,
            tid,
            {
                "action": "approve",
                f"ph:{PH}": "4",
                "name": "ed",
                "override": "Legal asked for the raw markup.",
            },
        )
        assert done.status_code == 303
    assert record(settings, tid)["stop_reason"] == "approved_by_human"


def test_a_placeholder_inside_a_link_title_or_an_image_alt_stays_plain_text():
    ph = "[FIGURE NEEDED: q3 revenue]"
    draft = (
        f'See [the table](http://example.com/ "{ph} x") and ![{ph}](x.png).\n\n'
        f"Revenue: {ph}. Again: {ph}."
    )
    html = str(render.render_draft(draft, [ph]))
    tags = re.findall(r"<[^>]*>", html)
    assert not any("<mark" in t[1:] or "bfph" in t for t in tags)  # no markup in a tag
    assert 'title="[FIGURE NEEDED: q3 revenue] x"' in html
    assert 'alt="[FIGURE NEEDED: q3 revenue]"' in html
    assert html.count("<mark") == 2 and html.count('id="ph-1"') == 1  # ids stay unique


@pytest.mark.parametrize(
    "field,size", [("edited", 1_000_000), ("edited", 100_001), ("name", 5_000), ("notes", 50_000)]
)
def test_an_oversized_field_is_refused_quickly_and_changes_nothing(project, settings, field, size):
    tid, models = pause(project, settings)
    action = {"edited": "edit", "name": "approve", "notes": "revise"}[field]
    data = {
        "action": action,
        "name": "di",
        f"ph:{PH}": "4.2M EUR",
        field: ("We opened Berlin. " * (size // 18 + 1))[:size],
    }
    with client_for(settings, models) as client:
        started = time.perf_counter()
        refused = post(client, tid, data)
        seconds = time.perf_counter() - started
    assert refused.status_code == 400 and "the limit is" in refused.text
    assert seconds < 5, seconds  # a 1 MB edit took 26 s of CPU
    assert still_waiting(settings, tid) and not (project / "output" / "q3.md").exists()


@pytest.mark.parametrize("scheme,secure", [("https", True), ("http", False)])
def test_every_cookie_is_secure_behind_https(project, settings, scheme, secure):
    tid, models = pause(project, settings)
    token = "t" * 24
    app = web.create_app(settings, models=models, strict=True, token=token)
    with TestClient(app, base_url=f"{scheme}://testserver") as client:
        swap = client.get(f"/?token={token}", follow_redirects=False)
        page = client.get(f"/thread/{tid}")
        done = client.post(
            f"/thread/{tid}",
            data={
                "csrf": csrf_of(page.text),
                "action": "approve",
                f"ph:{PH}": "4.2M EUR",
                "name": "di",
            },
            follow_redirects=False,
        )
    set_cookies = [
        h for r in (swap, page, done) for k, h in r.headers.multi_items() if k == "set-cookie"
    ]
    names = {h.split("=", 1)[0] for h in set_cookies}
    assert {"briefloop_token", "briefloop_csrf", "briefloop_flash"} <= names, set_cookies
    for header in set_cookies:
        assert ("; secure" in header.lower()) is secure, header


@pytest.mark.parametrize(
    "token,ok", [(None, False), ("short-token", False), ("x" * 15, False), ("x" * 16, True)]
)
def test_a_page_other_machines_reach_needs_a_long_token(project, monkeypatch, token, ok):
    from click.testing import CliRunner

    from batch.cli import cli

    served = []
    monkeypatch.setattr(web, "serve", lambda *a, **k: served.append(k))
    cfg = project / "briefloop.toml"
    cfg.write_text('[paths]\nroot = "."\n')
    args = ["--config", str(cfg), "review", "serve", "--host", "0.0.0.0"]
    result = CliRunner().invoke(
        cli, args + (["--token", token] if token else []), env={"BRIEFLOOP_REVIEW_TOKEN": ""}
    )
    assert (result.exit_code == 0) is ok, result.output
    assert bool(served) is ok
    if token and not ok:
        assert "at least 16 characters" in result.output


@pytest.mark.parametrize(
    "draft",
    [
        "See [{ph}](https://example.com/form) today.",  # the placeholder is the text
        "See [the form for {ph}](https://example.com/form) and {ph} below.",
        "<https://example.com/> then [**{ph}**](https://e.example/x)",
    ],
)
def test_a_placeholder_inside_a_link_renders_without_nested_anchors(draft):
    from html.parser import HTMLParser

    ph = "[URL NEEDED: form link]"
    html = str(render.render_draft(draft.format(ph=ph), [ph]))

    class Nesting(HTMLParser):
        depth, deepest = 0, 0

        def handle_starttag(self, tag, attrs):
            if tag == "a":
                self.depth += 1
                self.deepest = max(self.deepest, self.depth)

        def handle_endtag(self, tag):
            if tag == "a":
                self.depth -= 1

    parser = Nesting()
    parser.feed(html)
    assert parser.deepest == 1 and parser.depth == 0, html
    assert 'class="ph"' in html and "URL NEEDED: form link" in html


def test_a_held_text_shows_why_the_checks_cannot_vouch_for_it_and_the_unchecked_orders(
    project, settings
):
    write_brief(
        project,
        "kitchen.md",
        "Kitchen closed Fri 3 May deep clean staff take food home Thu 2 May fridge emptied "
        "5pm\n\nFriendly but not gushing.",
        id="kitchen",
    )
    text = (
        "The kitchen is closed on Friday 3 May for a deep clean. Please take your food "
        "home by Thursday 2 May; the fridge is emptied at 5pm."
    )
    models = {
        "writer": ScriptedModel([writer_answer(text)]),
        "critic": ScriptedModel([critic_answer(5)]),
    }
    with Runner(settings, models=models, strict=True) as runner:
        [r] = runner.run(project / "briefs").results
    assert r.outcome == "awaiting_human"
    with client_for(settings, models) as client:
        page = client.get(f"/thread/{r.thread_id}")
    assert page.status_code == 200
    assert 'id="holds"' in page.text and "could not be read into a checklist" in page.text
    assert 'id="unchecked-orders"' in page.text and "Friendly but not gushing" in page.text


def serve_argv(cfg, port: int) -> list[str]:
    import sys

    return [
        sys.executable,
        "-m",
        "batch",
        "--config",
        str(cfg),
        "review",
        "serve",
        "--port",
        str(port),
    ]


def test_serve_on_a_port_in_use_says_so_and_never_that_the_page_is_up(project):
    import socket
    import subprocess

    cfg = project / "briefloop.toml"
    cfg.write_text('[paths]\nroot = "."\n')
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = subprocess.run(
            serve_argv(cfg, port),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"port {port} on 127.0.0.1 is in use" in done.stderr
    assert "--port" in done.stderr
    assert "review page on" not in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


def test_serve_says_the_page_is_up_once_it_answers(project):
    import socket
    import subprocess
    import urllib.request

    cfg = project / "briefloop.toml"
    cfg.write_text('[paths]\nroot = "."\n')
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        serve_argv(cfg, port),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        assert line.startswith(f"review page on http://127.0.0.1:{port}/"), line
        # the port is ours when the line is printed: the page answers
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as page:
            assert page.status == 200
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.mark.parametrize(
    "said,meant",
    [
        (
            "The text contains [FIGURE NEEDED: Q3] but needs_from_human does not list it.",
            "The text contains [FIGURE NEEDED: Q3] but the list of what a person must give "
            "does not list it.",
        ),
        ("reopened (approved_by_human): wrong date", "reopened (approved by human): wrong date"),
        ("Answer every must_fix point.", "Answer every to fix point."),
        # words that only hold a code's letters are left alone
        ("The max rounds of the loop", "The max rounds of the loop"),
    ],
)
def test_reviewers_read_their_own_words_not_the_models(said, meant):
    from batch.review.render import reviewer_words

    assert reviewer_words(said) == meant
