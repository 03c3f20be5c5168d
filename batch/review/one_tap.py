"""One-tap approve links: the message names a text that needs nothing but an approval
with a link that approves it, safely.

- **Signed**: the link's `approve` token is `EXPIRES.MARK.SIGNATURE`, an HMAC-SHA256
  with the project's link secret (batch.review.links) over the thread id, the action
  and MARK, the thread's state mark (its checkpoint id) when the message was made.
- **For the state shown**: a thread that moved since (answered, reopened, sent back,
  run on) has another mark, and the link then approves nothing.
- **Single-use**: the run log keeps every token taken (`used_links`), and a second tap,
  or a forwarded copy, is told when it was used.
- **Never by a fetch**: the link opens the text's page with one Approve button; only
  that button's POST (with the page's CSRF token) approves, so a mail scanner that
  follows every link changes nothing.

Only plain approvals get one (`Waiting.plain_approval`: no placeholder to fill, finished
by the machine, nothing the checks cannot vouch for), as for the Waiting page's bulk
approve.
"""

from __future__ import annotations

import hmac
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from batch.config import Settings
from batch.errors import BriefloopError, LockBusy
from batch.review import threads as review
from batch.review.links import SECRET_NAME, expires_of, linker, signature
from batch.run.runner import BriefResult, Runner

APPROVE_PARAM = "approve"
_ACTION = "approve"


def _signature(secret: bytes, thread_id: str, mark: str, expires: int) -> str:
    # signed as a thread link is, over a narrower scope: one that no thread link's can
    # be (a thread id holds no "\0", and a mark is a checkpoint id)
    return signature(secret, f"{thread_id}\0{_ACTION}\0{mark}", expires)


def sign(secret: bytes, thread_id: str, mark: str, expires: int) -> str:
    """The `approve` token of `thread_id` as it is at `mark`, working until `expires`."""
    return f"{expires}.{mark}.{_signature(secret, thread_id, mark, expires)}"


@dataclass(frozen=True)
class Token:
    """A token read apart: what it claims, not yet checked."""

    expires: int
    mark: str
    signature: str


def read(token: str) -> Token | None:
    """The parts of an `approve` token, or None when it has not their shape."""
    expires_text, _, rest = token.partition(".")
    mark, _, mac = rest.rpartition(".")
    expires = expires_of(expires_text)
    if expires is None or not mark or not mac or not mac.isascii():
        return None
    return Token(expires, mark, mac)


def problem(
    runner: Runner, secret: bytes, thread_id: str, token: str, now: float | None = None
) -> tuple[str, review.Waiting | None]:
    """("", the text) when `token` may approve `thread_id` now; else (why not, in words
    for the page, and the text as it waits now, if it does)."""
    parts = read(token)
    if parts is None or not hmac.compare_digest(
        parts.signature.encode(), _signature(secret, thread_id, parts.mark, parts.expires).encode()
    ):
        return (
            "this approve link is not one of this project's, or not for this text "
            "(it has been altered or cut)",
            None,
        )
    item = review.waiting(runner, thread_id)
    used = runner.runlog.link_used(parts.signature)
    if used:
        return f"this approve link was used on {_when(used)}; it approves once", item
    if (time.time() if now is None else now) > parts.expires:
        when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(parts.expires))
        return f"this approve link expired on {when}", item
    if item is None:
        return "this text no longer waits for a person: it was answered meanwhile", None
    if item.mark != parts.mark:
        return (
            "this text has changed since the message was sent (answered, reopened or run "
            "on meanwhile): read it as it is now before you approve it",
            item,
        )
    if not item.plain_approval():
        return f"this text now waits for more than an approval: {item.waits_for()}", item
    return "", item


def _when(iso: str) -> str:
    return iso[:16].replace("T", " ") + " UTC"


# who approved through a link with no name typed: never this server's account
UNNAMED_LINK = "an approve link (no name typed)"


def approve(
    runner: Runner,
    secret: bytes,
    thread_id: str,
    token: str,
    by: str | None,
    wait: float = 10.0,
) -> BriefResult:
    """Approve `thread_id` with its one-tap token: checked (`problem`), its intent
    recorded, taken in the run log so no second tap approves, then answered as the text
    was at the token's mark. A refused answer gives the token back. Cut short anywhere,
    `briefloop repair` (or the next nightly run) finishes it or gives the link back."""
    why, _ = problem(runner, secret, thread_id, token)
    if why:
        raise BriefloopError(why)
    parts = read(token)
    assert parts is not None  # problem() has read it
    intent = {
        "signature": parts.signature,
        "mark": parts.mark,
        "by": by or UNNAMED_LINK,
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    # recorded before the link is marked used: a tap cut short after that is finished
    # by batch.review.pending, never left as a used link that approved nothing
    action = runner.runlog.action_begun(thread_id, ONE_TAP, intent)
    used = runner.runlog.take_link(parts.signature, thread_id)
    if used:
        runner.runlog.action_ended(action)
        raise BriefloopError(f"this approve link was used on {_when(used)}")
    try:
        return finish_approval(runner, thread_id, intent, action, wait)
    except LockBusy:
        # another process has the thread: the person is told, and may tap again
        runner.runlog.give_back_link(parts.signature)
        runner.runlog.action_ended(action)
        raise


ONE_TAP = "one-tap approve"


def _answered_by(values: dict[str, Any], intent: dict[str, Any]) -> bool:
    decision = values.get("decision") or {}
    return (
        decision.get("type") == "approve"
        and decision.get("by") == intent["by"]
        and str(decision.get("at") or "") >= intent["at"]
    )


def finish_approval(
    runner: Runner, thread_id: str, intent: dict[str, Any], action: int, wait: float = 10.0
) -> BriefResult:
    """The steps of a one-tap approval, each of which may have been done already: the
    link taken, the answer given, the thread run to its end. Answered already (cut short
    after the answer's first checkpoint), it is run on; a link not yet taken is taken;
    an answer refused (the thread moved since the mail was made) gives the link back.
    LockBusy leaves the action for later: another process has the thread."""
    snapshot = runner.snapshot(thread_id)
    if _answered_by(snapshot.values, intent):
        ran_on = review.run_to_end(runner, thread_id, wait)
        runner.runlog.action_ended(action)
        return ran_on
    if not runner.runlog.link_used(intent["signature"]):
        runner.runlog.take_link(intent["signature"], thread_id)
    try:
        result = review.answer(
            runner, thread_id, "approve", {}, by=intent["by"], seen=intent["mark"], wait=wait
        )
    except LockBusy:
        raise
    except BriefloopError:
        runner.runlog.give_back_link(intent["signature"])
        runner.runlog.action_ended(action)
        raise
    assert result is not None  # not check_only
    runner.runlog.action_ended(action)
    return result


def approver(
    settings: Settings, runner: Runner, environ: dict[str, str] | None = None
) -> Callable[[str], str] | None:
    """thread id -> its one-tap approve link ("" for a text that needs more than an
    approval); None when the message links no thread or `notify.approve_links` is off."""
    link = linker(settings, runner.runlog, environ)
    if link is None or not settings.notify.approve_links:
        return None
    secret = runner.runlog.secret(SECRET_NAME)
    days = settings.notify.link_days

    def of(thread_id: str) -> str:
        item = review.waiting(runner, thread_id)
        if item is None or not item.plain_approval():
            return ""
        expires = int(time.time() + days * 86400)
        url = link(thread_id)
        joiner = "&" if "?" in url else "?"
        token = quote(sign(secret, thread_id, item.mark, expires), safe="")
        return f"{url}{joiner}{APPROVE_PARAM}={token}"

    return of
