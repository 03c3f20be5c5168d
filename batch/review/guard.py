"""The review page's guard: the access token (or a link's token scoped to one thread, or
to the Waiting page),
the CSRF cookie, the origin check, the size limit of a form, and the security headers
on every answer."""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable
from urllib.parse import quote, urlencode

from markupsafe import escape
from starlette.concurrency import run_in_threadpool
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp

from batch.review.links import LINK_PARAM, WAITING_SCOPE, expires_of
from batch.review.links import problem as link_problem

CSP = (
    "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
TOKEN_COOKIE = "briefloop_token"
CSRF_COOKIE = "briefloop_csrf"
LINK_COOKIE = "briefloop_link"  # a link's token, on its thread's path only
WAITING_COOKIE = "briefloop_waiting"  # the Waiting page link's token


class Guard(BaseHTTPMiddleware):
    """The access token (when there is one), the CSRF cookie and the security headers.
    With a token, a link's token scoped to one thread (batch.review.links) opens that
    thread's page and its answer, and nothing else."""

    def __init__(
        self, app: ASGIApp, token: str | None, link_secret: Callable[[], bytes] | None = None
    ):
        super().__init__(app)
        self.token = token
        self.link_secret = link_secret

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        request.state.scoped = None  # the one thread a link's token opens, if that is all
        request.state.link_expires = None  # when that token expires
        if self.token is not None:
            given = request.query_params.get("token")
            if given is not None and hmac.compare_digest(given.encode(), self.token.encode()):
                # Trade the token in the address for a cookie, and drop it from the URL.
                response: Response = RedirectResponse(_without(request, "token"), status_code=303)
                response.set_cookie(
                    TOKEN_COOKIE,
                    self.token,
                    httponly=True,
                    samesite="strict",
                    path="/",
                    secure=request.url.scheme == "https",
                )
                return with_headers(response)
            cookie = request.cookies.get(TOKEN_COOKIE, "")
            if not hmac.compare_digest(cookie.encode(), self.token.encode()):
                scoped = await self._scoped(request)
                if isinstance(scoped, Response):
                    return with_headers(scoped)
                request.state.scoped = scoped
        csrf = request.cookies.get(CSRF_COOKIE)
        fresh = None
        if not csrf or len(csrf) < 32:
            fresh = csrf = secrets.token_urlsafe(32)
        request.state.csrf = csrf
        request.state.csrf_fresh = fresh is not None
        response = await call_next(request)
        if fresh is not None:
            response.set_cookie(
                CSRF_COOKIE,
                fresh,
                httponly=True,
                samesite="strict",
                path="/",
                secure=request.url.scheme == "https",
            )
        return with_headers(response)

    async def _scoped(self, request: Request) -> str | Response:
        """The thread a link's token (in the address, else in its cookie) opens for this
        request, or the page that refuses it."""
        # the path as the router matches it (decoded once, by the server), never re-read
        path = request.scope["path"]
        thread_id = WAITING_SCOPE if path == "/" else _thread_of(path)
        given = request.query_params.get(LINK_PARAM)
        cookie_name = WAITING_COOKIE if thread_id == WAITING_SCOPE else LINK_COOKIE
        cookie = request.cookies.get(cookie_name)
        if thread_id is None or self.link_secret is None or not (given or cookie):
            return PlainTextResponse(
                "401: this review page needs its token (open it with ?token=...)", status_code=401
            )
        secret = await run_in_threadpool(self.link_secret)
        why = link_problem(secret, thread_id, given or cookie or "")
        if why:
            return refused_page(why)
        if given:
            # the link's token goes into a cookie of this thread's path only (the Waiting
            # page's: of "/", read on "/" alone)
            response = RedirectResponse(_without(request, LINK_PARAM), status_code=303)
            where = "/" if thread_id == WAITING_SCOPE else f"/thread/{quote(thread_id, safe='')}"
            response.set_cookie(
                cookie_name,
                given,
                httponly=True,
                samesite="strict",
                path=where,
                secure=request.url.scheme == "https",
            )
            return response
        request.state.link_expires = expires_of(cookie or "")
        return thread_id


def _thread_of(path: str) -> str | None:
    """The thread id of a /thread/{id} path (as the router sees it), else None."""
    parts = path.split("/")
    if len(parts) == 3 and parts[0] == "" and parts[1] == "thread" and parts[2]:
        return parts[2]
    return None


def _without(request: Request, param: str) -> str:
    """This request's address without `param`: a path of this site only ("//evil.example/"
    would send the browser away)."""
    rest = [(k, v) for k, v in request.query_params.multi_items() if k != param]
    path = "/" + request.url.path.lstrip("/\\")
    return path + (f"?{urlencode(rest)}" if rest else "")


def refused_page(why: str) -> HTMLResponse:
    """A link that cannot be taken, said plainly."""
    return HTMLResponse(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>This link '
        'does not open the page</title></head><body style="font-family: system-ui, '
        'sans-serif; margin: 2rem"><h1>This link does not open the page</h1><p>'
        f"{escape(why)}</p></body></html>",
        status_code=403,
    )


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
