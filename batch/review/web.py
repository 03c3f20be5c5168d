"""A local review page for the threads waiting for a person.

`create_app(settings)` is a Starlette app over the same library calls as
`briefloop review` (batch.review.threads): a list of the waiting threads, a page per thread
(the brief, the draft with its placeholders highlighted, what the checks and the critic
found, the score history) and forms to approve, edit, revise or reject it.
`serve(settings)` runs it with uvicorn.

Security: it binds to loopback unless given a token; with a token every request must
carry it (`?token=` once, then an HttpOnly cookie). Every POST carries a per-session CSRF
token (double submit: cookie and form field) and is refused when its Origin is not this
server; a POST without the session's CSRF cookie is refused before its body is read, and
a body over MAX_FORM_BYTES is never read whole. The token swap's redirect is a local
path (never "//host/"). Everything a model or a brief wrote is escaped (Jinja2
autoescape; Markdown is rendered with raw HTML off), and the Content-Security-Policy
allows no script at all.
"""

from __future__ import annotations

import errno
import hmac
import logging
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import jinja2
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from batch.config import Settings, is_loopback
from batch.errors import BriefloopError, LockBusy
from batch.judging.checklist.fixes import KIND_NAMES
from batch.loop.decisions import MAX_MORE_ROUNDS
from batch.models import RoleModel
from batch.outcomes import label
from batch.review import attempts, history, one_tap
from batch.review import sheet as review_sheet
from batch.review import threads as review
from batch.review.guard import CSRF_COOKIE, Guard, body_within, origin_ok, with_headers
from batch.review.jobs import Jobs
from batch.review.links import LINK_PARAM, SECRET_NAME, WAITING_SCOPE, sign
from batch.review.pages import ago, local_time, runs_csv, runs_view, story_view, waiting_view
from batch.review.render import (
    SEVERITY_WORDS,
    mark_added,
    render_draft,
    reviewer_words,
    score_chart,
)
from batch.run.runner import BriefResult, Resumer, Runner
from batch.store.backends import open_runlog
from batch.thread_inputs import brief_of, limits_of

FLASH_COOKIE = "briefloop_flash"
REVIEWER_COOKIE = "briefloop_reviewer"  # the name a reviewer typed last, for the next form
MAX_BULK = 200  # texts one press of "Approve the selected" may approve
JOB_REFRESH_SECONDS = 3  # how often a page following a job reloads
# A review answer is a few fields of text (an edited draft at most): a larger body is
# refused before it is read whole, and before any form is parsed.
MAX_FORM_BYTES = 1024 * 1024
MAX_FORM_FIELDS = 200

log = logging.getLogger(__name__)


def _templates() -> Jinja2Templates:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("batch", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["reviewer"] = reviewer_words
    env.globals["severity_words"] = SEVERITY_WORDS
    return Jinja2Templates(env=env)


# -- what the pages show (run in a worker thread, one Runner per request) --------------------


def thread_view(runner: Runner, item: review.Waiting) -> dict[str, Any]:
    """A waiting thread's page: what to answer, and its story so far."""
    told = history.story(runner, item.thread_id)
    snapshot = runner.snapshot(item.thread_id)
    values = snapshot.values
    findings = sorted(
        values.get("findings", []) or [], key=lambda f: f.get("severity") != "must_fix"
    )
    placeholders = [n["placeholder"] for n in item.needs]
    return {
        "item": item,
        "brief_text": brief_of(values).text if values.get("brief") else "",
        "draft_html": render_draft(item.draft, placeholders),
        "additions": [
            {"n": a["n"], "html": mark_added(a["sentence"], a["added"])} for a in item.additions
        ],
        # a text the machine could not approve: what its best draft still has wrong
        "must_fix": item.must_fix if item.stopped else list(values.get("must_fix", []) or []),
        # a stopped text shows its best draft: the last round's findings are of another
        "findings": [] if item.stopped else findings,
        "chart": score_chart(item.score_history),
        "waited": {"ago": ago(item.waiting_since), "since": local_time(item.waiting_since)},
        "seen": review.mark_of(snapshot),
        "superseded": item.superseded_note(),
        "max_more_rounds": MAX_MORE_ROUNDS,
        "kind_names": KIND_NAMES,
        "rounds_default": limits_of(values).revision_rounds,
        **(story_view(told) if told is not None else {"story": None, "rounds": []}),
    }


def shown_path(settings: Settings, path: str | None) -> str:
    if not path:
        return ""
    try:
        return str(Path(path).resolve().relative_to(settings.path(".").resolve()))
    except (ValueError, OSError):
        return str(path)


def _refresh_sheet(runner: Runner) -> None:
    """The Review worksheet after an answer here (batch.review.sheet.refresh); one the
    sheet could not take is said in the server's log, the answer stands."""
    unsynced = review_sheet.refresh(runner)
    if unsynced:
        log.warning("%s", unsynced)


# Who decided, when the person typed no name: the page, never this server's account
# (reviewer_name's fallback is for the command line, where the account is the person).
UNNAMED = "someone on the review page (no name typed)"


def named(name: str) -> str:
    return name or UNNAMED


def act(
    runner: Runner, settings: Settings, thread_id: str, action: str, form: dict[str, Any]
) -> str:
    """Answer the thread as the form asks; the outcome as one line for the list page."""
    by = named(form["name"])
    answers = form["answers"]
    override = form["override"] or None
    seen = form.get("seen") or None  # a form without it (an older page) is not held to it
    if action == "approve":
        result = review.answer(
            runner, thread_id, "approve", answers, by=by, override=override, seen=seen
        )
    elif action == "edit":
        result = review.answer(
            runner,
            thread_id,
            "approve",
            answers,
            by=by,
            edited=form["edited"],
            override=override,
            seen=seen,
        )
    elif action == "revise":
        result = review.answer(
            runner,
            thread_id,
            "revise",
            answers,
            text=form["notes"],
            by=by,
            rounds=form.get("rounds") or None,
            seen=seen,
        )
    elif action == "reject":
        result = review.answer(
            runner, thread_id, "reject", {}, text=form["reason"], by=by, seen=seen
        )
    elif action == "fix":
        return fix_line(runner, settings, thread_id, form, by, seen)
    else:
        raise BriefloopError(f"unknown action {action!r}")
    _refresh_sheet(runner)
    return outcome_line(settings, thread_id, result)


def fix_line(
    runner: Runner,
    settings: Settings,
    thread_id: str,
    form: dict[str, Any],
    by: str | None,
    seen: str | None,
) -> str:
    """Fix an item of the checklist as the form asks ("fix_as": "drop" or a kind,
    "fix_value": its words); the outcome as one line for the page."""
    chosen = form.get("fix_as") or ""
    value = form.get("fix_value") or ""
    if value.strip() and chosen in ("", "value"):
        action, kind = "value", ""
    elif chosen == "drop":
        action, kind = "drop", ""
    elif chosen:
        action, kind = "kind", chosen
    else:
        raise BriefloopError("choose what the item is, or type its words")
    done = review.fix_item(
        runner,
        thread_id,
        form.get("fix_item") or "",
        action,
        kind,
        value,
        by,
        seen=seen,
        approve=bool(form.get("fix_approve")),
    )
    _refresh_sheet(runner)
    fixed = f"{done.fix['item']} fixed"
    if done.approved is not None:
        return f"{fixed}; " + outcome_line(settings, thread_id, done.approved)
    if done.item is None:
        return f"{fixed}: a worker judges the text again"
    if done.item.nothing_stands():
        return f"{fixed}: the text was judged again and nothing else holds it back"
    return f"{fixed}: the text was judged again and still waits (see below)"


def outcome_line(settings: Settings, thread_id: str, result: BriefResult | None) -> str:
    """What came of an answer, in one line for the page's flash."""
    assert result is not None  # an answer that is not check_only
    record = result.record or {}
    if result.outcome == "error":
        return f"{thread_id} failed: {result.error}"
    if result.outcome == "queued":  # a cluster: a worker runs it on
        return f"queued for the workers: {thread_id}"
    where = shown_path(settings, record.get("output_path"))
    said = label(result.outcome).capitalize()
    return f"{said}: the text is in {where}" if where else f"{said}: {thread_id}"


# -- the routes: each reads what the app was made with from request.app.state -------------


class LinkSecret:
    """The project's key for links to one thread, read once (the Guard checks links with
    it, the Waiting page signs them)."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.key: bytes | None = None

    def __call__(self) -> bytes:
        if self.key is None:
            with open_runlog(self.settings) as log:
                self.key = log.secret(SECRET_NAME)
        return self.key


def runner_for(request: Request) -> Runner:
    """A Runner over the app's settings and models, for one request to open and close."""
    return app_runner(request.app.state)


def app_runner(state: Any) -> Runner:
    """A Runner over what the app was made with (`app.state`), for a background job
    that outlives its request."""
    return Runner(state.settings, models=state.models, strict=state.strict, resumer=state.resumer)


def start_job(
    request: Request, thread_id: str, what: str, work: Callable[[], Any], started: str
) -> Response:
    """Start `work` as the thread's job and send the person to the thread's page, which
    follows it; or tell them there why it did not start."""
    target = f"/thread/{quote(thread_id, safe='')}"
    try:
        request.app.state.jobs.start(thread_id, what, work)
    except BriefloopError as e:
        return flashed(request, str(e), target)
    return flashed(request, started, target)


def page(request: Request, name: str, context: dict[str, Any], status_code: int = 200) -> Response:
    context = {
        "csrf": request.state.csrf,
        "scoped": request.state.scoped,
        "job": None,
        "refresh": None,
        **context,
    }
    templates: Jinja2Templates = request.app.state.templates
    return templates.TemplateResponse(request, name, context, status_code=status_code)


def flashed(request: Request, outcome: str, target: str) -> Response:
    """A redirect to `target` that shows `outcome` there once."""
    response = RedirectResponse(target, status_code=303)
    response.set_cookie(
        FLASH_COOKIE,
        quote(outcome),
        httponly=True,
        samesite="strict",
        path="/",
        max_age=120,
        secure=request.url.scheme == "https",
    )
    return response


async def index(request: Request) -> Response:
    def load() -> list[review.Waiting]:
        with runner_for(request) as runner:
            return review.list_waiting(runner)

    items = await run_in_threadpool(load)
    flash = unquote(request.cookies.get(FLASH_COOKIE, ""))
    links = {item.thread_id: f"/thread/{quote(item.thread_id, safe='')}" for item in items}
    expires = request.state.link_expires
    if request.state.scoped == WAITING_SCOPE and expires is not None:
        # opened with the message's link: each row opens its thread the same way,
        # until the same time
        secret = await run_in_threadpool(request.app.state.link_secret)
        links = {
            tid: f"{url}?{LINK_PARAM}={sign(secret, tid, expires)}" for tid, url in links.items()
        }
    view = waiting_view(items, request.query_params)
    reviewer = unquote(request.cookies.get(REVIEWER_COOKIE, ""))
    response = page(
        request, "list.html", {**view, "flash": flash, "links": links, "reviewer": reviewer}
    )
    if flash:
        response.delete_cookie(FLASH_COOKIE, path="/")
    return response


def remember_reviewer(request: Request, response: Response, name: str) -> Response:
    """The reviewer's name, kept for the next form on this browser (a year)."""
    if name:
        response.set_cookie(
            REVIEWER_COOKIE,
            quote(name[:120]),
            httponly=True,
            samesite="strict",
            path="/",
            max_age=365 * 86400,
            secure=request.url.scheme == "https",
        )
    return response


async def approve_many(request: Request) -> Response:
    """Approve the texts ticked on the Waiting page, each only if it still is as listed
    (its state mark) and may be approved without anything typed (plain_approval)."""
    if request.state.scoped:
        return PlainTextResponse("403: a link opens one thread only", status_code=403)
    refused = await checked_form(request)
    if isinstance(refused, Response):
        return refused
    raw = refused
    chosen = [str(t) for t in raw.getlist("thread")][:MAX_BULK]
    by = str(raw.get("name", "")).strip()
    if not chosen:
        return flashed(request, "Nothing was selected.", "/")

    def run() -> str:
        done, refused_ = [], []
        with runner_for(request) as runner:
            for tid in chosen:
                item = review.waiting(runner, tid)
                seen = str(raw.get(f"seen:{tid}", ""))
                if item is None or not item.plain_approval():
                    refused_.append(f"{tid} (open it to answer)")
                    continue
                try:
                    review.answer(runner, tid, "approve", {}, by=named(by), seen=seen)
                    done.append(item.brief_id)
                except BriefloopError as e:
                    refused_.append(f"{item.brief_id} ({e})")
            _refresh_sheet(runner)
        said = f"Approved {len(done)}: {', '.join(done)}." if done else "None approved."
        return said + (f" Not approved: {'; '.join(refused_)}." if refused_ else "")

    outcome = await run_in_threadpool(run)
    return remember_reviewer(request, flashed(request, outcome, "/"), by)


def empty_form(view: dict[str, Any]) -> dict[str, Any]:
    item = view["item"]
    return {
        "answers": dict(item.answers),
        "name": "",
        "edited": item.draft,
        "override": "",
        "notes": "",
        "reason": "",
        "rounds": "",
    }


def not_this_thread(request: Request, thread_id: str) -> Response | None:
    """A link's token opens its own thread only (the guard checked it; the route's
    own reading of the path is held to it too)."""
    scoped = request.state.scoped
    if scoped is not None and scoped != thread_id:
        return PlainTextResponse("401: this link opens another thread", status_code=401)
    return None


async def thread(request: Request) -> Response:
    thread_id = request.path_params["thread_id"]
    if (refused := not_this_thread(request, thread_id)) is not None:
        return refused

    once = request.query_params.get(one_tap.APPROVE_PARAM, "")
    secret = await run_in_threadpool(request.app.state.link_secret) if once else b""

    def load() -> dict[str, Any] | None:
        with runner_for(request) as runner:
            # a one-tap approve link: its button, or why it approves nothing now
            why = one_tap.problem(runner, secret, thread_id, once)[0] if once else ""
            item = review.waiting(runner, thread_id)
            if item is not None:
                told = {"one_tap": {"token": once, "problem": why}} if once else {}
                return {**thread_view(runner, item), **told}
            story = history.story(runner, thread_id)
            return None if story is None else {"story": story, "one_tap_problem": why}

    view = await run_in_threadpool(load)
    if view is None:
        return page(request, "error.html", {"message": f"no thread {thread_id!r}"}, status_code=404)
    flash = unquote(request.cookies.get(FLASH_COOKIE, ""))
    jobs: Jobs = request.app.state.jobs
    job = jobs.of(thread_id)
    if job is not None:
        # working on it: the page follows it until it ends, then says once what came of it
        progress = await run_in_threadpool(lambda: job_progress(request, thread_id))
        view = {**view, "job": {**vars(job), "progress": progress}}
        if job.done:
            jobs.told(thread_id)
        else:
            view["refresh"] = JOB_REFRESH_SECONDS
    if "item" not in view:  # finished, failed or still running: its story
        response = page(
            request,
            "story.html",
            {
                **story_view(view["story"]),
                "flash": flash,
                "job": view.get("job"),
                "refresh": view.get("refresh"),
                "error": (
                    f"The approve link approves nothing: {view['one_tap_problem']}."
                    if view.get("one_tap_problem")
                    else ""
                ),
            },
        )
    else:
        # thread.html still has a branch for a briefloop that could not edit
        response = page(
            request,
            "thread.html",
            {
                **view,
                "form": {
                    **empty_form(view),
                    "name": unquote(request.cookies.get(REVIEWER_COOKIE, "")),
                },
                "error": "",
                "flash": flash,
            },
        )
    if flash:
        response.delete_cookie(FLASH_COOKIE, path="/")
    return response


async def runs_page(request: Request) -> Response:
    query = request.query_params
    raw = query.get("page", "")
    number = int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 6 else 1
    outcome, brief = query.get("outcome") or None, query.get("brief") or None
    day = query.get("day") or None
    one = request.path_params.get("batch_id")
    batch_id = int(one) if one is not None else None

    def load() -> dict[str, Any] | str | None:
        with open_runlog(request.app.state.settings) as log:
            if request.url.path.endswith(".csv"):
                return runs_csv(log, batch_id, outcome, brief, day)
            return runs_view(log, batch_id, max(1, number), outcome, brief, day)

    view = await run_in_threadpool(load)
    if view is None:
        return page(request, "error.html", {"message": f"no batch {one}"}, status_code=404)
    if isinstance(view, str):
        name = f"runs-{one}.csv" if one is not None else "runs.csv"
        return Response(
            view,
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )
    return page(request, "runs.html", view)


async def checked_form(request: Request) -> Any:
    """A POST's form once its origin, CSRF token and size pass; else the refusal."""
    if not origin_ok(request):
        return PlainTextResponse("403: cross-origin request refused", status_code=403)
    csrf_refused = PlainTextResponse(
        "403: the form's CSRF token is missing or wrong (reload the page and try again)",
        status_code=403,
    )
    cookie = request.cookies.get(CSRF_COOKIE, "")
    if not cookie or request.state.csrf_fresh:
        return csrf_refused  # no page of ours was loaded: nothing is read
    if not await body_within(request, MAX_FORM_BYTES):
        return PlainTextResponse("413: the form is too large", status_code=413)
    raw = await request.form(max_fields=MAX_FORM_FIELDS, max_files=0)
    sent = str(raw.get("csrf", ""))
    if not sent or not hmac.compare_digest(sent.encode(), cookie.encode()):
        return csrf_refused
    return raw


async def answer(request: Request) -> Response:
    thread_id = request.path_params["thread_id"]
    if (refused := not_this_thread(request, thread_id)) is not None:
        return refused
    raw = await checked_form(request)
    if isinstance(raw, Response):
        return raw
    action = str(raw.get("action", ""))
    running = request.app.state.jobs.of(thread_id)
    if running is not None and not running.done:
        # its rounds are running: an answer now would wait on them, then find the text
        # changed; the page says so at once
        return flashed(
            request,
            f"Already working on this text ({running.what}): wait for it to end.",
            f"/thread/{quote(thread_id, safe='')}",
        )
    answers = {
        key[len("ph:") :]: str(value) for key, value in raw.multi_items() if key.startswith("ph:")
    }
    form: dict[str, Any] = {
        "answers": answers,
        "name": str(raw.get("name", "")).strip(),
        "edited": str(raw.get("edited", "")),
        "override": str(raw.get("override", "")).strip(),
        "notes": str(raw.get("notes", "")),
        "reason": str(raw.get("reason", "")),
        "rounds": str(raw.get("rounds", "")).strip(),
        "seen": str(raw.get("seen", "")).strip(),
        "fix_item": str(raw.get("fix_item", "")).strip(),
        "fix_as": str(raw.get("fix_as", "")).strip(),
        "fix_value": str(raw.get("fix_value", "")),
        "fix_approve": str(raw.get("fix_approve", "")).strip(),
    }
    if action in ("retry", "reopen"):
        return await again(request, thread_id, action, form)
    if action == "approve_once":
        return await approve_once(request, thread_id, str(raw.get("once", "")), form)
    if action == "revise" and not request.state.scoped:
        checked = await answer_refused(request, thread_id, form)
        return checked or await in_background(request, thread_id, form)

    def run() -> str:
        with runner_for(request) as runner:
            return act(runner, request.app.state.settings, thread_id, action, form)

    try:
        outcome = await run_in_threadpool(run)
    except BriefloopError as e:
        return await refused_page(request, thread_id, form, action, e)
    # a link's token opens this thread only: its page then tells the outcome; a fix of
    # the checklist shows the text judged again
    own_page = request.state.scoped or action == "fix"
    target = f"/thread/{quote(thread_id, safe='')}" if own_page else "/"
    return remember_reviewer(request, flashed(request, outcome, target), form["name"])


async def approve_once(
    request: Request, thread_id: str, token: str, form: dict[str, Any]
) -> Response:
    """The Approve button of a one-tap link's page: the text approved as the message
    showed it, once (batch.review.one_tap); the thread's page then shows what went out."""
    secret = await run_in_threadpool(request.app.state.link_secret)

    def run() -> str:
        with runner_for(request) as runner:
            result = one_tap.approve(runner, secret, thread_id, token, form["name"] or None)
            _refresh_sheet(runner)
            return outcome_line(request.app.state.settings, thread_id, result)

    try:
        outcome = await run_in_threadpool(run)
    except BriefloopError as e:
        return await refused_page(request, thread_id, form, "approve", e)
    target = f"/thread/{quote(thread_id, safe='')}"
    return remember_reviewer(request, flashed(request, outcome, target), form["name"])


async def refused_page(
    request: Request, thread_id: str, form: dict[str, Any], action: str, e: BriefloopError
) -> Response:
    """The thread's page again, with what the person typed and why it was refused."""
    status = 409 if isinstance(e, LockBusy) else 400

    def reload() -> dict[str, Any] | None:
        with runner_for(request) as runner:
            item = review.waiting(runner, thread_id)
            return None if item is None else thread_view(runner, item)

    view = await run_in_threadpool(reload)
    if view is None:  # answered meanwhile, or never there
        return page(request, "error.html", {"message": str(e)}, status_code=409)
    return page(
        request,
        "thread.html",
        {**view, "form": form, "error": str(e), "action": action},
        status_code=status,
    )


async def answer_refused(request: Request, thread_id: str, form: dict[str, Any]) -> Response | None:
    """The thread's page with the reason a send-back would be refused (its notes too
    long, the thread answered meanwhile, a number of rounds out of range), or None."""

    def check() -> None:
        with runner_for(request) as runner:
            review.answer(
                runner,
                thread_id,
                "revise",
                form["answers"],
                text=form["notes"],
                by=named(form["name"]),
                rounds=form.get("rounds") or None,
                seen=form.get("seen") or None,
                check_only=True,
            )

    try:
        await run_in_threadpool(check)
    except BriefloopError as e:
        return await refused_page(request, thread_id, form, "revise", e)
    return None


def job_progress(request: Request, thread_id: str) -> str:
    """Where the loop of a thread stands while a job runs it: its round of its rounds."""
    with runner_for(request) as runner:
        values = runner.snapshot(thread_id).values or {}
    rounds = limits_of(values).max_rounds if values.get("limits") else None
    at = values.get("round", 0)
    return f"round {at} of {rounds}" if rounds else f"round {at}"


async def in_background(request: Request, thread_id: str, form: dict[str, Any]) -> Response:
    """A send-back answered at once (answer_refused has checked it): its rounds run on
    a thread of their own, and the thread's page follows them."""
    rounds = form.get("rounds") or ""
    what = (
        f"sent back for {rounds} more round{'s' if rounds != '1' else ''}"
        if rounds
        else "sent back"
    )
    app_state = request.app.state

    def work() -> str:
        with app_runner(app_state) as runner:
            return act(runner, app_state.settings, thread_id, "revise", form)

    response = start_job(request, thread_id, what, work, f"Started: {what}. This page follows it.")
    return remember_reviewer(request, response, form["name"])


async def again(request: Request, thread_id: str, action: str, form: dict[str, Any]) -> Response:
    """Retry a thread that ended, or reopen an approved one, from its story page. Not
    through a link: a link answers the text it was sent for, and a thread decided since
    is not its to start again."""
    if request.state.scoped is not None:
        return page(
            request,
            "error.html",
            {
                "message": f"a link answers the text it was sent for; to {action} thread "
                f"{thread_id}, open the review page with its token"
            },
            status_code=403,
        )

    if action == "retry":
        app_state = request.app.state

        def work() -> tuple[str, str]:
            with app_runner(app_state) as runner:
                result = attempts.retry(runner, thread_id)
                _refresh_sheet(runner)
            new = result.thread_id
            return (
                f"retried as thread {new}: {label(result.outcome)}",
                f"/thread/{quote(new, safe='')}",
            )

        started = "Started: a new attempt of this brief. This page follows it."
        return start_job(request, thread_id, "retry", work, started)

    def run() -> tuple[str, str]:
        with runner_for(request) as runner:
            done = attempts.reopen(runner, thread_id, form["reason"], named(form["name"]))
            _refresh_sheet(runner)
            saved = " (saved as a judged case)" if done.case else ""
            return thread_id, f"reopened: it waits for a person again{saved}"

    try:
        target_id, outcome = await run_in_threadpool(run)
    except BriefloopError as e:

        def reload() -> Any:
            with runner_for(request) as runner:
                return history.story(runner, thread_id)

        told = await run_in_threadpool(reload)
        if told is None:
            return page(request, "error.html", {"message": str(e)}, status_code=404)
        return page(
            request,
            "story.html",
            {**story_view(told), "flash": "", "error": str(e), "form": form},
            status_code=409 if isinstance(e, LockBusy) else 400,
        )
    # a link's token opens its own thread only: the new attempt is named in the flash
    shown = thread_id if request.state.scoped else target_id
    return flashed(request, outcome, f"/thread/{quote(shown, safe='')}")


async def failed(request: Request, exc: Exception) -> Response:
    # answered by Starlette's outermost layer, above Guard: the headers are set here
    return with_headers(
        PlainTextResponse("500: the review page failed; the server's log says why", status_code=500)
    )


# -- the app --------------------------------------------------------------------------------


def create_app(
    settings: Settings,
    *,
    token: str | None = None,
    models: dict[str, RoleModel | None] | None = None,
    strict: bool = False,
    allowed_hosts: list[str] | None = None,
    resumer: Resumer | None = None,
) -> Starlette:
    """The review app. `models` replaces configured models by role (tests), as in Runner;
    `allowed_hosts` limits the Host header (serve() sets it on loopback, against DNS
    rebinding); `resumer` hands an answer to a cluster's workers (Runner.run_on)."""
    link_secret = LinkSecret(settings)
    middleware = [Middleware(Guard, token=token, link_secret=link_secret)]
    if allowed_hosts:
        middleware.insert(0, Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts))
    routes = [
        Route("/", index, methods=["GET"]),
        Route("/runs", runs_page, methods=["GET"]),
        Route("/runs.csv", runs_page, methods=["GET"]),
        Route("/runs/{batch_id:int}", runs_page, methods=["GET"]),
        Route("/runs/{batch_id:int}.csv", runs_page, methods=["GET"]),
        Route("/thread/{thread_id}", thread, methods=["GET"]),
        Route("/thread/{thread_id}", answer, methods=["POST"]),
        Route("/approve", approve_many, methods=["POST"]),
    ]
    app = Starlette(routes=routes, middleware=middleware, exception_handlers={Exception: failed})
    app.state.settings = settings
    app.state.models = models
    app.state.strict = strict
    app.state.resumer = resumer
    app.state.templates = _templates()
    app.state.jobs = Jobs()
    app.state.link_secret = link_secret
    return app


def listening_socket(host: str, port: int) -> socket.socket:
    """The page's socket, bound and listening, or BriefloopError saying why not (a port
    in use): before anything says the page is up."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    # as uvicorn does: a port left in TIME_WAIT by the last page is free, one another
    # process listens on is not
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(2048)
    except OSError as e:
        sock.close()
        if e.errno == errno.EADDRINUSE:
            raise BriefloopError(
                f"port {port} on {host} is in use (another review page?): stop it, or "
                f"choose another port with --port"
            ) from None
        raise BriefloopError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    return sock


def serve(
    settings: Settings,
    host: str = "127.0.0.1",
    port: int = 8765,
    token: str | None = None,
    resumer: Resumer | None = None,
    on_ready: Callable[[], None] | None = None,
) -> None:
    """Run the review page until interrupted. Anything but loopback needs a token.
    `on_ready` is called once the port is ours, before the first request."""
    loopback = is_loopback(host)
    if ":" in host and not token:
        # Starlette's host check cannot parse IPv6 hosts: without it a DNS-rebinding page
        # could drive the review page, so here a token stands in for it.
        raise BriefloopError(f"on {host} the review page needs a token (or bind to 127.0.0.1)")
    if not loopback and not token:
        raise BriefloopError(
            f"the review page would be reachable from other machines on "
            f"{host}: a token is required (or bind to 127.0.0.1)"
        )
    import uvicorn

    allowed = None
    if loopback and ":" not in host:  # Starlette's host check cannot parse IPv6 hosts
        allowed = ["127.0.0.1", "localhost"]
        if host not in allowed:
            allowed.append(host)
    app = create_app(settings, token=token, allowed_hosts=allowed, resumer=resumer)
    sock = listening_socket(host, port)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", server_header=False))
    if on_ready is not None:
        on_ready()
    server.run(sockets=[sock])
