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

import hmac
import inspect
import re
import secrets
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlencode

import jinja2
from markdown_it import MarkdownIt
from markupsafe import Markup, escape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from batch.config import Settings, is_loopback
from batch.errors import BriefloopError, LockBusy
from batch.models import RoleModel
from batch.review import threads as review
from batch.run.runner import Batch

CSP = ("default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
       "form-action 'self'; frame-ancestors 'none'")
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
TOKEN_COOKIE = "briefloop_token"
CSRF_COOKIE = "briefloop_csrf"
FLASH_COOKIE = "briefloop_flash"
ACTIONS = ("approve", "edit", "revise", "reject")
# A review answer is a few fields of text (an edited draft at most): a larger body is
# refused before it is read whole, and before any form is parsed.
MAX_FORM_BYTES = 1024 * 1024
MAX_FORM_FIELDS = 200

_markdown = MarkdownIt("commonmark", {"html": False})


# -- rendering ---------------------------------------------------------------------------

def render_draft(draft: str, placeholders: list[str]) -> Markup:
    """The draft as HTML (CommonMark, raw HTML escaped), each placeholder in a <mark>.

    Placeholders are swapped for plain alphanumeric markers before Markdown sees the
    text (so their brackets and colons stay literal) and put back, escaped, after it:
    as a <mark> in text, as the plain text they were inside a tag (a link's title, an
    image's alt), and with the id only on the first mark of each."""
    nonce = secrets.token_hex(6)
    source = draft
    found: dict[str, tuple[int, str]] = {}
    # longest first: a placeholder inside another one must not split it
    order = sorted(enumerate(placeholders, start=1), key=lambda p: -len(p[1]))
    for number, placeholder in order:
        if not placeholder or placeholder not in source:
            continue
        marker = f"bfph{nonce}x{number}x"
        source = source.replace(placeholder, marker)
        found[marker] = (number, placeholder)
    html = _markdown.render(source)  # every character of the draft escaped here
    if not found:
        return Markup(html)
    pattern = re.compile("|".join(re.escape(m) for m in found))
    seen: set[str] = set()

    def mark(m: re.Match) -> str:
        number, placeholder = found[m.group(0)]
        first = m.group(0) not in seen
        seen.add(m.group(0))
        return str(Markup('<mark class="ph"{id}><a href="#field-{n}">{text}<sup>{n}</sup>'
                          '</a></mark>').format(
            n=number, text=placeholder,
            id=Markup(' id="ph-{}"').format(number) if first else ""))

    out = []
    for piece in re.split(r"(<[^>]*>)", html):
        if piece.startswith("<"):
            piece = pattern.sub(lambda m: str(escape(found[m.group(0)][1])), piece)
        else:
            piece = pattern.sub(mark, piece)
        out.append(piece)
    return Markup("".join(out))


def score_chart(history: list[float], width: int = 320, height: int = 90) -> Markup:
    """The score per round as an inline SVG bar chart (no script, no external file)."""
    if not history:
        return Markup("")
    top = max(100.0, *(float(s or 0) for s in history))
    pad, label_h = 4, 14
    slot = (width - 2 * pad) / len(history)
    bar_w = min(36.0, max(4.0, slot * 0.7))
    plot_h = height - label_h - pad
    parts = [Markup('<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" '
                    'width="{w}" height="{h}" viewBox="0 0 {w} {h}">'
                    '<title>Score per round</title>'
                    '<line x1="0" y1="{b}" x2="{w}" y2="{b}" stroke="#999"/>'
                    ).format(w=width, h=height, b=pad + plot_h)]
    points = []
    for i, score in enumerate(history):
        value = float(score or 0)
        bar_h = plot_h * value / top
        x = pad + i * slot + (slot - bar_w) / 2
        y = pad + plot_h - bar_h
        points.append(f"{x + bar_w / 2:.1f},{y:.1f}")
        parts.append(Markup(
            '<rect x="{x:.1f}" y="{y:.1f}" width="{bw:.1f}" height="{bh:.1f}" fill="#6b8fd6">'
            '<title>round {r}: {s:g}</title></rect>'
            '<text x="{cx:.1f}" y="{ty}" font-size="10" text-anchor="middle">{s:g}</text>'
        ).format(x=x, y=y, bw=bar_w, bh=bar_h, r=i + 1, s=value, cx=x + bar_w / 2,
                 ty=height - 2))
    if len(points) > 1:
        parts.append(Markup('<polyline points="{p}" fill="none" stroke="#c0392b" '
                            'stroke-width="1.5"/>').format(p=" ".join(points)))
    parts.append(Markup("</svg>"))
    return Markup("").join(parts)


def _templates() -> Jinja2Templates:
    env = jinja2.Environment(loader=jinja2.PackageLoader("batch", "templates"),
                             autoescape=True, undefined=jinja2.StrictUndefined)
    return Jinja2Templates(env=env)


# -- what the pages show (run in a worker thread, one Batch per request) --------------------

def thread_view(batch: Batch, thread_id: str) -> dict[str, Any]:
    item = review.require_waiting(batch, thread_id)
    values = batch.snapshot(thread_id).values
    findings = sorted(values.get("findings", []) or [],
                      key=lambda f: f.get("severity") != "must_fix")
    placeholders = [n["placeholder"] for n in item.needs]
    return {
        "item": item,
        "brief_text": (values.get("brief") or {}).get("text", ""),
        "draft_html": render_draft(item.draft, placeholders),
        # a text the machine could not approve: what its best draft still has wrong
        "must_fix": item.must_fix if item.stopped else list(values.get("must_fix", []) or []),
        # a stopped text shows its best draft: the last round's findings are of another
        "findings": [] if item.stopped else findings,
        "chart": score_chart(item.score_history),
        "superseded": item.superseded_note(),
    }


def supports_edit() -> bool:
    params = inspect.signature(review.answer).parameters
    return "edited" in params and "override" in params


def shown_path(settings: Settings, path: str | None) -> str:
    if not path:
        return ""
    try:
        return str(Path(path).resolve().relative_to(settings.path(".").resolve()))
    except (ValueError, OSError):
        return str(path)


def act(batch: Batch, settings: Settings, thread_id: str, action: str,
        form: dict[str, Any]) -> str:
    """Answer the thread as the form asks; the outcome as one line for the list page."""
    by = form["name"] or None
    answers = form["answers"]
    override = {"override": form["override"] or None} if supports_edit() else {}
    if action == "approve":
        result = review.answer(batch, thread_id, "approve", answers, by=by, **override)
    elif action == "edit":
        if not supports_edit():
            raise BriefloopError("editing the text is not available in this version of "
                                 "briefloop: approve, revise or reject it")
        if not form["edited"].strip():
            raise BriefloopError("edit needs the text: the box is empty")
        result = review.answer(batch, thread_id, "approve", answers, by=by,
                               edited=form["edited"], **override)
    elif action == "revise":
        result = review.answer(batch, thread_id, "revise", answers, text=form["notes"], by=by)
    elif action == "reject":
        result = review.answer(batch, thread_id, "reject", {}, text=form["reason"], by=by)
    else:
        raise BriefloopError(f"unknown action {action!r}")
    record = result.record or {}
    if result.outcome == "error":
        return f"{thread_id}: error: {result.error}"
    if result.outcome == "queued":  # a cluster: a worker runs it on
        return f"queued for the workers: {thread_id}"
    where = shown_path(settings, record.get("output_path"))
    return f"{result.outcome}: {where}" if where else f"{result.outcome}: {thread_id}"


# -- the app --------------------------------------------------------------------------------

class Guard(BaseHTTPMiddleware):
    """The access token (when there is one), the CSRF cookie and the security headers."""

    def __init__(self, app, token: str | None):
        super().__init__(app)
        self.token = token

    async def dispatch(self, request: Request, call_next) -> Response:
        if self.token is not None:
            given = request.query_params.get("token")
            if given is not None and hmac.compare_digest(given.encode(), self.token.encode()):
                # Trade the token in the address for a cookie, and drop it from the URL.
                rest = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
                # a path of this site only: "//evil.example/" would send the browser away
                path = "/" + request.url.path.lstrip("/\\")
                target = path + (f"?{urlencode(rest)}" if rest else "")
                response: Response = RedirectResponse(target, status_code=303)
                response.set_cookie(TOKEN_COOKIE, self.token, httponly=True,
                                    samesite="strict", path="/")
                return with_headers(response)
            cookie = request.cookies.get(TOKEN_COOKIE, "")
            if not hmac.compare_digest(cookie.encode(), self.token.encode()):
                return with_headers(PlainTextResponse(
                    "401: this review page needs its token (open it with ?token=...)",
                    status_code=401))
        csrf = request.cookies.get(CSRF_COOKIE)
        fresh = None
        if not csrf or len(csrf) < 32:
            fresh = csrf = secrets.token_urlsafe(32)
        request.state.csrf = csrf
        request.state.csrf_fresh = fresh is not None
        response = await call_next(request)
        if fresh is not None:
            response.set_cookie(CSRF_COOKIE, fresh, httponly=True, samesite="strict", path="/")
        return with_headers(response)


async def body_within(request: Request, limit: int) -> bool:
    """Read the body (kept for request.form()) unless it is over `limit` bytes: False
    then, having read at most `limit` + one chunk of it."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        return False
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return False
        chunks.append(chunk)
    request._body = b"".join(chunks)  # what request.body() and .form() read from then on
    return True


def with_headers(response: Response) -> Response:
    for key, value in SECURITY_HEADERS.items():
        response.headers[key] = value
    return response


def origin_ok(request: Request) -> bool:
    """False for a POST a browser says came from another site. With Referrer-Policy
    no-referrer a browser sends `Origin: null` even from our own page, so "null" is taken
    only when Sec-Fetch-Site (which browsers always send) says same-origin; the CSRF
    token is checked as well in any case."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = request.headers.get("origin")
    if origin is None:
        return True
    if origin == "null":
        return site == "same-origin"
    return origin == f"{request.url.scheme}://{request.url.netloc}"


def create_app(settings: Settings, *, token: str | None = None,
               models: dict[str, RoleModel | None] | None = None, strict: bool = False,
               allowed_hosts: list[str] | None = None) -> Starlette:
    """The review app. `models` replaces configured models by role (tests), as in Batch;
    `allowed_hosts` limits the Host header (serve() sets it on loopback, against DNS
    rebinding)."""
    templates = _templates()

    def open_batch() -> Batch:
        return Batch(settings, models=models, strict=strict)

    def page(request: Request, name: str, context: dict[str, Any],
             status_code: int = 200) -> Response:
        context = {"csrf": request.state.csrf, **context}
        return templates.TemplateResponse(request, name, context, status_code=status_code)

    async def index(request: Request) -> Response:
        def load() -> list[review.Waiting]:
            with open_batch() as batch:
                return review.list_waiting(batch)

        items = await run_in_threadpool(load)
        flash = unquote(request.cookies.get(FLASH_COOKIE, ""))
        response = page(request, "list.html", {"items": items, "flash": flash})
        if flash:
            response.delete_cookie(FLASH_COOKIE, path="/")
        return response

    def empty_form(view: dict[str, Any]) -> dict[str, Any]:
        item = view["item"]
        return {"answers": dict(item.answers), "name": "", "edited": item.draft,
                "override": "", "notes": "", "reason": ""}

    async def thread(request: Request) -> Response:
        thread_id = request.path_params["thread_id"]

        def load() -> dict[str, Any]:
            with open_batch() as batch:
                return thread_view(batch, thread_id)

        try:
            view = await run_in_threadpool(load)
        except BriefloopError as e:
            return page(request, "error.html", {"message": str(e)}, status_code=404)
        return page(request, "thread.html", {**view, "form": empty_form(view), "error": "",
                                             "can_edit": supports_edit()})

    async def answer(request: Request) -> Response:
        thread_id = request.path_params["thread_id"]
        if not origin_ok(request):
            return PlainTextResponse("403: cross-origin request refused", status_code=403)
        csrf_refused = PlainTextResponse("403: the form's CSRF token is missing or wrong "
                                         "(reload the page and try again)", status_code=403)
        cookie = request.cookies.get(CSRF_COOKIE, "")
        if not cookie or request.state.csrf_fresh:
            return csrf_refused  # no page of ours was loaded: nothing is read
        if not await body_within(request, MAX_FORM_BYTES):
            return PlainTextResponse("413: the form is too large", status_code=413)
        raw = await request.form(max_fields=MAX_FORM_FIELDS, max_files=0)
        sent = str(raw.get("csrf", ""))
        if not sent or not hmac.compare_digest(sent.encode(), cookie.encode()):
            return csrf_refused
        action = str(raw.get("action", ""))
        answers = {key[len("ph:"):]: str(value) for key, value in raw.multi_items()
                   if key.startswith("ph:")}
        form = {"answers": answers, "name": str(raw.get("name", "")).strip(),
                "edited": str(raw.get("edited", "")),
                "override": str(raw.get("override", "")).strip(),
                "notes": str(raw.get("notes", "")), "reason": str(raw.get("reason", ""))}

        def run() -> str:
            with open_batch() as batch:
                return act(batch, settings, thread_id, action, form)

        try:
            outcome = await run_in_threadpool(run)
        except BriefloopError as e:
            status = 409 if isinstance(e, LockBusy) else 400

            def reload() -> dict[str, Any] | None:
                with open_batch() as batch:
                    try:
                        return thread_view(batch, thread_id)
                    except BriefloopError:
                        return None

            view = await run_in_threadpool(reload)
            if view is None:  # answered meanwhile, or never there
                return page(request, "error.html", {"message": str(e)}, status_code=409)
            return page(request, "thread.html", {**view, "form": form, "error": str(e),
                                                 "action": action,
                                                 "can_edit": supports_edit()},
                        status_code=status)
        response = RedirectResponse("/", status_code=303)
        response.set_cookie(FLASH_COOKIE, quote(outcome), httponly=True, samesite="strict",
                            path="/", max_age=120)
        return response

    middleware = [Middleware(Guard, token=token)]
    if allowed_hosts:
        middleware.insert(0, Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts))
    routes = [
        Route("/", index, methods=["GET"]),
        Route("/thread/{thread_id}", thread, methods=["GET"]),
        Route("/thread/{thread_id}", answer, methods=["POST"]),
    ]
    async def failed(request: Request, exc: Exception) -> Response:
        # answered by Starlette's outermost layer, above Guard: the headers are set here
        return with_headers(PlainTextResponse("500: the review page failed; the "
                                              "server's log says why", status_code=500))

    return Starlette(routes=routes, middleware=middleware,
                     exception_handlers={Exception: failed})


def serve(settings: Settings, host: str = "127.0.0.1", port: int = 8765,
          token: str | None = None) -> None:
    """Run the review page until interrupted. Anything but loopback needs a token."""
    loopback = is_loopback(host)
    if ":" in host and not token:
        # Starlette's host check cannot parse IPv6 hosts: without it a DNS-rebinding page
        # could drive the review page, so here a token stands in for it.
        raise BriefloopError(f"on {host} the review page needs a token (or bind to "
                             f"127.0.0.1)")
    if not loopback and not token:
        raise BriefloopError(f"the review page would be reachable from other machines on "
                             f"{host}: a token is required (or bind to 127.0.0.1)")
    import uvicorn

    allowed = None
    if loopback and ":" not in host:  # Starlette's host check cannot parse IPv6 hosts
        allowed = ["127.0.0.1", "localhost"]
        if host not in allowed:
            allowed.append(host)
    app = create_app(settings, token=token, allowed_hosts=allowed)
    uvicorn.run(app, host=host, port=port, log_level="warning", server_header=False)
