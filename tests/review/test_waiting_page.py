"""The Waiting page as a reviewer uses it in the morning: what each text waits for, by
name; relative local times; filters and sort; several plain texts approved at once
(only those that need nothing typed, as they were listed); the reviewer's name kept;
and at 390 px in Chromium, no word broken over two lines."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
from starlette.testclient import TestClient
from test_web_browser import browser, running

from batch.nightly.job import run_job
from batch.review import web
from batch.run.runner import Runner

from conftest import ScriptedModel, critic_answer, make_settings, write_brief, writer_answer

PH = "[FIGURE NEEDED: Q3 revenue]"


def morning(project):
    """Three texts wait: two plain ones (approvable as they are, loop.review = always)
    and one with a placeholder to fill."""
    s = make_settings(project, **{"loop.review": "always", "models.critic_mode": "advice"})
    write_brief(
        project, "a-lamp.md", "Describe the lamp: it folds flat.", id="a-lamp", title="Desk lamp"
    )
    write_brief(
        project,
        "b-dock.md",
        "Memo: the dock closes at 14:00 on Thursday.",
        id="b-dock",
        title="Dock closing",
    )
    write_brief(
        project,
        "c-q3.md",
        "Memo on Q3: revenue not known yet; we opened Berlin.",
        id="c-q3",
        title="Quarterly memo for the northern sales region",
    )

    def write(messages):
        text = messages[-1]["content"]
        if "lamp" in text:
            return writer_answer("The lamp folds flat.")
        if "dock" in text:
            return writer_answer("The dock closes at 14:00 on Thursday.")
        return writer_answer(f"Q3 revenue was {PH}. We opened Berlin.", needs=[(PH, "How much?")])

    models = {"writer": ScriptedModel([write] * 6), "critic": ScriptedModel([critic_answer(5)] * 6)}
    results = {r.brief_id: r for r in run_job(s, project / "briefs", models=models).results}
    assert {r.outcome for r in results.values()} == {"awaiting_human"}
    return s, models, results


def post_form(client, form: list[tuple[str, str]]):
    """A form with a key given several times (the ticked threads), as a browser sends it."""
    return client.post(
        "/approve",
        content=urlencode(form),
        headers={"content-type": "application/x-www-form-urlencoded"},
        follow_redirects=False,
    )


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


def test_filters_sort_and_bulk_approval_of_the_plain_texts_only(project):
    s, models, results = morning(project)
    with TestClient(web.create_app(s, models=models, strict=True)) as client:
        page = client.get("/").text
        # only the plain texts can be ticked; the one with a placeholder cannot
        assert page.count('name="thread"') == 2
        assert (
            f'value="{results["c-q3"].thread_id}"'
            not in re.findall(r'name="thread" value="[^"]+"', page)[0]
        )
        assert f"<code>{PH}</code>" in page
        filled = client.get("/?waits=fill").text
        assert "Quarterly memo" in filled and "Desk lamp" not in filled
        found = client.get("/?q=DOCK").text
        assert "Dock closing" in found and "Desk lamp" not in found
        by_brief = client.get("/?sort=brief").text
        assert (
            by_brief.index("Desk lamp")
            < by_brief.index("Dock closing")
            < by_brief.index("Quarterly")
        )
        assert "No waiting text matches" in client.get("/?q=nothing-like-this").text
        # approve the two plain ones at once, with a name that is then remembered
        marks = dict(re.findall(r'name="seen:([^"]+)" value="([^"]*)"', page))
        picked = [results["a-lamp"].thread_id, results["b-dock"].thread_id]
        form = [("csrf", csrf_of(page)), ("name", "ana")]
        form += [("thread", t) for t in picked] + [(f"seen:{t}", marks[t]) for t in picked]
        # one not plain slipped in by hand is refused, not approved
        form += [("thread", results["c-q3"].thread_id)]
        done = post_form(client, form)
        assert done.status_code == 303
        after = client.get("/").text
        assert "Approved 2: a-lamp, b-dock." in after
        assert "Not approved: " in after and results["c-q3"].thread_id in after
        assert 'id="bulk-name" value="ana"' not in after  # no plain text left: no form
        thread_page = client.get(f"/thread/{results['c-q3'].thread_id}").text
        assert 'id="name" name="name" value="ana"' in thread_page  # the name is kept
    with Runner(s) as runner:
        for bid in ("a-lamp", "b-dock"):
            rec = runner.runlog.by_thread(results[bid].thread_id)
            assert rec["stop_reason"] == "approved_by_human" and rec["decided_by"] == "ana"
        assert runner.runlog.by_thread(results["c-q3"].thread_id)["status"] == "awaiting_human"


def test_a_text_changed_since_the_list_was_read_is_not_approved_from_it(project):
    s, models, results = morning(project)
    tid = results["a-lamp"].thread_id
    with TestClient(web.create_app(s, models=models, strict=True)) as client:
        page = client.get("/").text
        form = [
            ("csrf", csrf_of(page)),
            ("name", "bo"),
            ("thread", tid),
            (f"seen:{tid}", "an-older-state"),
        ]
        post_form(client, form)
        assert "None approved." in client.get("/").text
    with Runner(s) as runner:
        assert runner.runlog.by_thread(tid)["status"] == "awaiting_human"


# a word of a cell that the browser broke over two lines although the cell is wide
# enough for it whole: what "words break letter by letter" looks like
_BROKEN_WORDS = """() => {
  const broken = [];
  const walker = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
  const probe = document.createElement('span');
  probe.style.whiteSpace = 'nowrap';
  probe.style.position = 'absolute';
  probe.style.visibility = 'hidden';
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const box = 'td, th, p, li, h1, h2, label, div';
    const cell = node.parentElement.closest(box) || node.parentElement;
    const style = getComputedStyle(cell);
    const width = cell.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    for (const m of node.textContent.matchAll(/\\S+/g)) {
      const range = document.createRange();
      range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
      const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
      if (lines.size < 2) continue;
      probe.style.font = getComputedStyle(node.parentElement).font;
      probe.textContent = m[0];
      node.parentElement.appendChild(probe);
      const natural = probe.getBoundingClientRect().width;
      probe.remove();
      if (natural <= width) broken.push(m[0]);
    }
  }
  return broken;
}"""


@pytest.mark.parametrize("width", [390, 1280])
def test_the_waiting_page_breaks_no_word_on_a_phone_or_a_desk(project, tmp_path, width):
    s, models, _ = morning(project)
    app = web.create_app(s, models=models, strict=True)
    with running(app) as base, browser(tmp_path) as context:
        page = context.new_page()
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(base + "/")
        assert page.get_by_role("heading", name="Waiting for a person (3)").is_visible()
        assert page.evaluate(_BROKEN_WORDS) == []
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(tmp_path / f"waiting-{width}.png"), full_page=True)


def test_the_page_tells_the_wait_in_local_time_and_words(project):
    s, models, results = morning(project)
    with TestClient(web.create_app(s, models=models, strict=True)) as client:
        page = client.get(f"/thread/{results['a-lamp'].thread_id}").text
    waited = re.search(r'<span id="waited">([^<]+)</span>', page)[1]
    # to the minute, with its zone, and how long ago: no ISO seconds or microseconds
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d \S+ \((just now|\d+ min ago)\)", waited), waited
