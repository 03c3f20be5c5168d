"""Links that open one thread: the message after a batch names each waiting text with a
link to its own page on the review page.

Off loopback the review page needs its token; a link instead carries a token scoped to
its thread and expiring: `EXPIRES.SIGNATURE`, the signature an HMAC-SHA256 over the
thread id and the expiry with the project's secret (kept in its database, so the batch
that sends the message and the server that checks the link share it). It grants that
one thread's page and its answer, nothing else.

The message's general link opens the Waiting page the same way: a token over
`WAITING_SCOPE` (which no thread id can be), granting that list, whose rows then link
each waiting thread with a token of its own, expiring with the list's.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import time
from collections.abc import Callable, Mapping
from urllib.parse import urlsplit

from batch.config import ENV_REVIEW_TOKEN, Settings, is_loopback, thread_page
from batch.store.runlog import RunLog

SECRET_NAME = "review-link"
LINK_PARAM = "link"
WAITING_SCOPE = "/waiting"  # a thread id never holds "/" (batch.output.safe_filename)


def signature(secret: bytes, scope: str, expires: int) -> str:
    """The HMAC-SHA256 of `scope` (a thread id, WAITING_SCOPE, or a narrower scope of
    a thread) and the expiry, with the project's secret, URL-safe."""
    mac = hmac.new(secret, f"{scope}\0{expires}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode().rstrip("=")


def sign(secret: bytes, thread_id: str, expires: int) -> str:
    """The token of a link to `thread_id` that works until `expires` (Unix seconds)."""
    return f"{expires}.{signature(secret, thread_id, expires)}"


def problem(secret: bytes, thread_id: str, token: str, now: float | None = None) -> str | None:
    """None when `token` opens `thread_id` now, else why not, in words for the page."""
    expires, given = expires_of(token), token.partition(".")[2]
    if expires is None or not given.isascii() or not given:
        return "this link is not a link of this review page (it has been altered or cut)"
    if not hmac.compare_digest(given.encode(), signature(secret, thread_id, expires).encode()):
        return (
            "this link does not open this text: it has been altered, or it was made "
            "for another thread or another project"
        )
    if (time.time() if now is None else now) > expires:
        when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(expires))
        return (
            f"this link expired on {when}; ask for a new one, or open the review page "
            f"with its token"
        )
    return None


def thread_url(
    review_url: str,
    thread_id: str,
    secret: bytes,
    days: float,
    now: float | None = None,
    token_needed: bool = False,
) -> str:
    """The address of `thread_id`'s page on the review page at `review_url`, with a
    scoped token unless the page is on this machine and asks for no token (a page on
    loopback may still be served with one, or behind a proxy that needs it)."""
    url = thread_page(review_url, thread_id)
    host = urlsplit(review_url).hostname or ""
    if is_loopback(host) and not token_needed:
        return url
    expires = int((time.time() if now is None else now) + days * 86400)
    return f"{url}?{LINK_PARAM}={sign(secret, thread_id, expires)}"


def expires_of(token: str) -> int | None:
    """The expiry a token carries (checked or not: check it with `problem` first)."""
    expires_text = token.partition(".")[0]
    # ASCII digits only, and no more than a date needs: "²" is a digit to isdigit(), and
    # int() of thousands of digits raises
    return (
        int(expires_text)
        if expires_text.isascii() and expires_text.isdigit() and len(expires_text) <= 12
        else None
    )


def waiting_url(
    review_url: str,
    secret: bytes,
    days: float,
    now: float | None = None,
    token_needed: bool = False,
) -> str:
    """The address of the Waiting page at `review_url`, signed as `thread_url` is."""
    url = review_url.rstrip("/") + "/"
    host = urlsplit(review_url).hostname or ""
    if is_loopback(host) and not token_needed:
        return url
    expires = int((time.time() if now is None else now) + days * 86400)
    return f"{url}?{LINK_PARAM}={sign(secret, WAITING_SCOPE, expires)}"


def _signing(
    settings: Settings, runlog: RunLog, environ: Mapping[str, str] | None
) -> tuple[str, bytes, float, bool] | None:
    """(review page, secret, days, signed on loopback too) when the message links the
    review page: a `notify.review_url` with `notify.thread_links` on, not a Google
    sheet. Where the page is served with a token ($BRIEFLOOP_REVIEW_TOKEN), every link
    is signed, on loopback too: an unsigned one would open nothing."""
    url = settings.notify.review_page
    if not url:
        return None
    env = os.environ if environ is None else environ
    return (
        url,
        runlog.secret(SECRET_NAME),
        settings.notify.link_days,
        bool(env.get(ENV_REVIEW_TOKEN, "").strip()),
    )


def linker(
    settings: Settings, runlog: RunLog, environ: Mapping[str, str] | None = None
) -> Callable[[str], str] | None:
    """thread id -> the link the message gives it; None when the message links no
    thread (see `_signing`)."""
    signing = _signing(settings, runlog, environ)
    if signing is None:
        return None
    url, secret, days, token_needed = signing
    return lambda thread_id: thread_url(url, thread_id, secret, days, token_needed=token_needed)


def waiting_link(
    settings: Settings, runlog: RunLog, environ: Mapping[str, str] | None = None
) -> str:
    """The message's general link: the Waiting page, signed for whoever reads the
    message; "" when the message links no review page (see `_signing`)."""
    signing = _signing(settings, runlog, environ)
    if signing is None:
        return ""
    url, secret, days, token_needed = signing
    return waiting_url(url, secret, days, token_needed=token_needed)
