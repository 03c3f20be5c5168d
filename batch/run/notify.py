"""A message after a batch in which a text waits for a person or a brief failed.

Two channels, each optional ([notify] in the config): e-mail through SMTP (STARTTLS
before login; the password is read from the environment variable the config names, at
send time) and a Slack-compatible incoming webhook (POST {"text": ...}). `send` tries
every configured channel and returns what went wrong as one-line warnings: a
notification that cannot be delivered never fails the batch that has already run.

Transient failures (refused, timed out, SMTP 4xx, HTTP 429/5xx) are retried up to
`attempts` times with a short doubling backoff; permanent ones (SMTP 5xx such as 535
authentication failed, HTTP 4xx other than 429, a certificate that does not verify) are
not. No message, warning or error names the password, a URL's user:password@ part or a
webhook's path (a Slack webhook's path is its secret).
"""

from __future__ import annotations

import os
import re
import smtplib
import socket
import ssl
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from typing import Any

import requests

from batch import placeholders
from batch.config import Notify, Retry, Settings, mask_credentials, scrub_url, url_shown
from batch.judging.checks.support import additions_of
from batch.judging.support import marked
from batch.outcomes import OUTCOME_ORDER, label, unfinished_words
from batch.retrying import retrying

BACKOFF_SECONDS = 1.0  # the first wait before a retry; doubles each time
MAX_BACKOFF_SECONDS = 30.0  # also the most of a Retry-After header that is honoured
_ONE_LINE_CHARS = 300


@dataclass(frozen=True)
class Named:
    """A text as the message names it: one that waits for a person (or, unfinished, was
    set aside for one), and the placeholders only a person can fill. (The review
    page's own `review.threads.Waiting` is the whole state of a waiting thread.)"""

    brief_id: str
    title: str
    needs: list[str]
    link: str = ""  # its own page on the review page, when the message links threads
    unfinished: str = ""  # why the machine could not finish it (max_rounds, no_progress)
    findings: int = 0  # what the checks still find in it
    # its sentences that add what the brief does not say, the added words in «»
    additions: tuple[str, ...] = ()
    first_finding: str = ""  # the first thing the checks still find, in their words
    # a link that approves it with one tap (batch.review.one_tap), for a text that needs
    # nothing but an approval
    approve: str = ""


@dataclass(frozen=True)
class Failed:
    """A brief that failed: its error in one line, and its page when the message links."""

    brief_id: str
    error: str
    link: str = ""


def failed_of(record: Mapping[str, Any], link: Callable[[str], str] | None = None) -> Failed:
    return Failed(
        str(record.get("brief_id") or ""),
        str(record.get("error") or "error"),
        link(str(record["thread_id"])) if link and record.get("thread_id") else "",
    )


def waiting_of(
    record: Mapping[str, Any],
    link: Callable[[str], str] | None = None,
    approve: Callable[[str], str] | None = None,
) -> Named:
    """A run-log record as the message names it; `approve` gives a thread its one-tap
    approve link ("" when it needs more than an approval)."""
    needs = record.get("needs_from_human") or []
    return Named(
        str(record.get("brief_id") or ""),
        str(record.get("title") or ""),
        placeholders.named(needs),
        link(str(record["thread_id"])) if link and record.get("thread_id") else "",
        str(record.get("unfinished") or ""),
        len(record.get("open_must_fix") or []),
        tuple(
            marked(a["sentence"], a["added"])
            for a in additions_of(
                (record.get("judgement") or {}).get("findings") or [],
                held_only=False,
            )
        ),
        str((record.get("open_must_fix") or [""])[0]),
        approve(str(record["thread_id"])) if approve and record.get("thread_id") else "",
    )


@dataclass(frozen=True)
class Report:
    """What one batch did, as the message tells it."""

    counts: dict[str, int]  # outcome -> briefs, e.g. {"approved": 2, "error": 1}
    waiting: list[Named]
    failed: list[Failed]
    source: str  # what the batch ran on
    # unfinished texts set aside without waiting for a person (loop.review = when_needed)
    set_aside: list[Named] = field(default_factory=list)
    # the Waiting page, signed for the reader (batch.review.links.waiting_link); else
    # the message links `notify.review_url` as it is
    review_link: str = ""
    # the batch's hours ran out: what was left for the next run, in a sentence
    stopped: str = ""
    # the first line's start instead of "Batch on <source>" (a digest of several batches)
    heading: str = ""


def should_notify(report: Report) -> bool:
    """Whether anything needs a person: a text waits, one was set aside unfinished, or
    a brief failed."""
    return bool(report.waiting or report.failed or report.set_aside or report.stopped)


def one_line_text(text: str, limit: int = _ONE_LINE_CHARS) -> str:
    """`text` on one line, cut with "…" past `limit` characters."""
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def subject(report: Report) -> str:
    parts = []
    if report.waiting:
        n = len(report.waiting)
        parts.append(f"{_plural(n, 'text', 'texts')} {'waits' if n == 1 else 'wait'} for you")
    if report.set_aside:
        parts.append(f"{len(report.set_aside)} unfinished")
    if report.failed:
        parts.append(f"{len(report.failed)} failed")
    if report.stopped:
        parts.append("out of time")
    return "briefloop: " + (", ".join(parts) if parts else "nothing waits, nothing failed")


def _counts_line(counts: Mapping[str, int]) -> str:
    known = [o for o in OUTCOME_ORDER if counts.get(o)]
    other = sorted(o for o in counts if o not in OUTCOME_ORDER and counts[o])
    return ", ".join(f"{label(o)} {counts[o]}" for o in known + other) or "no briefs"


def _named(w: Named) -> list[str]:
    """A text's line, and for an unfinished one why and what is still wrong."""
    title = f" ({one_line_text(w.title)})" if w.title.strip() else ""
    lines = [f"- {one_line_text(w.brief_id)}{title}"]
    if w.unfinished:
        still = (
            f"; the checks still find {_plural(w.findings, 'problem', 'problems')}"
            if w.findings
            else ""
        )
        lines.append(
            f"    needs work: the machine could not finish it "
            f"({unfinished_words(one_line_text(w.unfinished))}){still}"
        )
        if w.first_finding:
            lines.append(f"    first: {one_line_text(w.first_finding)}")
    if w.additions:
        n = len(w.additions)
        lines.append(
            f"    {_plural(n, 'sentence adds', 'sentences add')} what the brief does not "
            "say (added words in «»):"
        )
        lines += [f"      {one_line_text(a)}" for a in w.additions]
    return lines


def message(report: Report, review_url: str = "") -> tuple[str, str]:
    """The (subject, plain-text body) of the message about `report`."""
    heading = report.heading or f"Batch on {report.source}"
    lines = [f"{one_line_text(heading)}: {_counts_line(report.counts)}."]
    if report.stopped:
        lines += ["", one_line_text(report.stopped, 400)]
    if report.waiting:
        lines += ["", f"Waiting for you ({len(report.waiting)}):"]
        for w in report.waiting:
            lines += _named(w)
            if w.needs:
                lines += [f"    needs {one_line_text(need)}" for need in w.needs]
            elif not w.unfinished:
                lines.append("    needs your review")
            if w.link:
                lines.append(f"    open: {w.link}")
            if w.approve:
                lines.append(f"    approve (opens it with one Approve button): {w.approve}")
    if report.set_aside:
        lines += [
            "",
            f"Not finished, set aside in needs-work/ ({len(report.set_aside)}; "
            f'loop.review = "when_needed" does not hold them for a person):',
        ]
        for w in report.set_aside:
            lines += _named(w)
    if report.failed:
        lines += ["", f"Failed ({len(report.failed)}):"]
        for f in report.failed:
            lines.append(f"- {one_line_text(f.brief_id)}: {one_line_text(f.error) or 'error'}")
            if f.link:
                lines.append(f"    open: {f.link}")
    link = report.review_link.strip() or review_url.strip()
    if link:
        lines += ["", f"Review: {link}"]
    body = mask_credentials("\n".join(lines) + "\n")
    return subject(report), body


class _Failed(Exception):
    def __init__(self, text: str, transient: bool, wait: float = 0.0):
        super().__init__(text)
        self.text = one_line_text(text)
        self.transient = transient
        self.wait = wait


def _retrying(attempts: int, backoff: float, once: Callable[[], None]) -> str | None:
    """Run `once` until it succeeds, fails for good or `attempts` are used up, by the
    one retry policy (batch.retrying): None, or the failure as "<what went wrong> (<n>
    attempts)"."""
    policy = Retry(attempts=attempts, initial_seconds=backoff, max_seconds=MAX_BACKOFF_SECONDS)
    tries = 0
    try:
        for attempt in retrying(
            policy,
            lambda e: isinstance(e, _Failed) and e.transient,
            asked_wait=lambda e: (
                min(e.wait, MAX_BACKOFF_SECONDS) if isinstance(e, _Failed) and e.wait else None
            ),
        ):
            with attempt:
                tries = attempt.retry_state.attempt_number
                once()
    except _Failed as f:
        return f"{f.text} ({_plural(tries, 'attempt', 'attempts')})"
    return None


# --- e-mail --------------------------------------------------------------------------


def _smtp_text(error: bytes | str) -> str:
    if isinstance(error, bytes):
        error = error.decode("utf-8", "replace")
    return one_line_text(error)


def _os_failure(e: OSError) -> _Failed:
    if isinstance(e, ssl.SSLCertVerificationError):
        return _Failed(f"TLS certificate not trusted: {e.verify_message or e}", False)
    if isinstance(e, TimeoutError | socket.timeout):
        return _Failed("timed out", True)
    if isinstance(e, socket.gaierror):
        # a name that does not resolve stays so; "try again" is the resolver's own word
        return _Failed(f"host not found: {e.strerror or e}", e.errno == socket.EAI_AGAIN)
    return _Failed(e.strerror or str(e) or e.__class__.__name__, True)


def _smtp_once(
    settings: Notify, mail: EmailMessage, password: str | None, context: ssl.SSLContext
) -> None:
    refused = _smtp_session(settings, password, context, lambda smtp: smtp.send_message(mail))
    if refused:  # the others have it: a retry would send it to them twice
        text = "; ".join(f"{who}: {code} {_smtp_text(msg)}" for who, (code, msg) in refused.items())
        raise _Failed(f"not accepted for {text}", False)


def _smtp_session(
    settings: Notify,
    password: str | None,
    context: ssl.SSLContext,
    act: Callable[[smtplib.SMTP], dict[str, Any]],
) -> dict[str, Any]:
    """Connect, STARTTLS and log in as configured, then `act` on the connection: what
    it returns, or _Failed saying what went wrong."""
    smtp: smtplib.SMTP
    try:
        if settings.smtp_ssl:
            smtp = smtplib.SMTP_SSL(
                settings.smtp_host,
                settings.smtp_port,
                timeout=settings.timeout_seconds,
                context=context,
            )
        else:
            smtp = smtplib.SMTP(
                settings.smtp_host, settings.smtp_port, timeout=settings.timeout_seconds
            )
    except smtplib.SMTPResponseException as e:  # the greeting refused us (421, 554)
        raise _Failed(
            f"{e.smtp_code} {_smtp_text(e.smtp_error)}", 400 <= e.smtp_code < 500
        ) from None
    except OSError as e:
        raise _os_failure(e) from None
    try:
        if settings.smtp_starttls and not settings.smtp_ssl:
            smtp.starttls(context=context)
        if settings.smtp_user:
            smtp.login(settings.smtp_user, password or "")
        return act(smtp)
    except smtplib.SMTPRecipientsRefused as e:  # every recipient
        codes = [code for code, _ in e.recipients.values()]
        text = "; ".join(
            f"{who}: {code} {_smtp_text(msg)}" for who, (code, msg) in e.recipients.items()
        )
        raise _Failed(f"recipients refused: {text}", all(400 <= c < 500 for c in codes)) from None
    except smtplib.SMTPResponseException as e:  # 535 auth failed, 4xx try later, ...
        raise _Failed(
            f"{e.smtp_code} {_smtp_text(e.smtp_error)}", 400 <= e.smtp_code < 500
        ) from None
    except smtplib.SMTPServerDisconnected as e:
        raise _Failed(f"server disconnected: {e}", True) from None
    except smtplib.SMTPException as e:  # STARTTLS or AUTH not offered: a setup mistake
        raise _Failed(str(e) or e.__class__.__name__, False) from None
    except OSError as e:
        raise _os_failure(e) from None
    except (ValueError, UnicodeError) as e:  # e.g. a password that is not ASCII
        raise _Failed(f"{e.__class__.__name__}: {e}", False) from None
    finally:
        _quit(smtp)


def _quit(smtp: smtplib.SMTP) -> None:
    try:
        smtp.quit()
    except (smtplib.SMTPException, OSError):
        smtp.close()


def _mail(settings: Notify, subject_line: str, body: str) -> EmailMessage:
    mail = EmailMessage()
    mail["Subject"] = subject_line
    mail["From"] = settings.mail_from or settings.smtp_user
    mail["To"] = ", ".join(settings.mail_to)
    mail["Date"] = formatdate(localtime=True)
    mail["Message-ID"] = make_msgid(domain=settings.smtp_host)
    mail.set_content(body)
    return mail


def _password(settings: Notify, environ: Mapping[str, str]) -> tuple[str | None, str | None]:
    """The SMTP password, or why there is none when the login needs one."""
    if not settings.smtp_user:
        return None, None
    password = environ.get(settings.smtp_password_env)
    if password:
        return password, None
    return None, (
        f"${settings.smtp_password_env} (the SMTP password for {settings.smtp_user}) is not set"
    )


def _noop(smtp: smtplib.SMTP) -> dict[str, Any]:
    code, said = smtp.noop()
    if code != 250:
        raise _Failed(f"{code} {_smtp_text(said)}", False)
    return {}


def check_mail(
    settings: Notify, environ: Mapping[str, str], ssl_context: ssl.SSLContext | None = None
) -> str | None:
    """None when the SMTP server greets us and STARTTLS and the login pass (a NOOP,
    nothing sent), else what went wrong in one line. Tried once: a person is waiting."""
    password, missing = _password(settings, environ)
    if missing:
        return missing
    ctx = ssl_context if ssl_context is not None else ssl.create_default_context()

    def greet() -> None:
        _smtp_session(settings, password, ctx, _noop)

    failure = _retrying(1, 0.0, greet)
    return failure.replace(password, "***") if failure and password else failure


def _send_mail(
    settings: Notify,
    subject_line: str,
    body: str,
    environ: Mapping[str, str],
    context: ssl.SSLContext | None,
    backoff: float,
) -> str | None:
    what = f"notification by e-mail to {', '.join(settings.mail_to)}"
    password, missing = _password(settings, environ)
    if missing:
        return f"{what} not sent: {missing}"
    if password:
        body = body.replace(password, "***")
    mail = _mail(settings, subject_line, body)
    ctx = context if context is not None else ssl.create_default_context()
    failure = _retrying(
        settings.attempts, backoff, lambda: _smtp_once(settings, mail, password, ctx)
    )
    if failure is None:
        return None
    if password:
        failure = failure.replace(password, "***")
    return f"{what} via {settings.smtp_host}:{settings.smtp_port} failed: {failure}"


# --- webhook -------------------------------------------------------------------------


def _slack_escape(text: str) -> str:
    """Slack reads <...> as links and mentions (<!channel>) and & as an entity."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _retry_after(response: requests.Response) -> float:
    try:
        return max(0.0, float(response.headers.get("Retry-After", "")))
    except ValueError:  # absent, or an HTTP date: the backoff decides
        return 0.0


def _connect_reason(e: requests.RequestException) -> str:
    m = re.search(r"\[Errno -?\d+\] ([^'\")\]]+)", str(e))
    return m.group(1).strip() if m else e.__class__.__name__


def _webhook_once(url: str, text: str, timeout: float) -> None:
    try:
        response = requests.post(url, json={"text": text}, timeout=timeout, allow_redirects=False)
    except requests.Timeout:
        raise _Failed("timed out", True) from None
    except requests.ConnectionError as e:
        raise _Failed(f"cannot connect: {_connect_reason(e)}", True) from None
    except requests.RequestException as e:
        raise _Failed(scrub_url(f"{e.__class__.__name__}: {e}", url), False) from None
    code = response.status_code
    if 200 <= code < 300:
        return
    answer = one_line_text(response.text, 200)
    text = f"HTTP {code} {response.reason or ''}".rstrip() + (f": {answer}" if answer else "")
    raise _Failed(scrub_url(text, url), code == 429 or code >= 500, _retry_after(response))


def _send_webhook(settings: Notify, subject_line: str, body: str, backoff: float) -> str | None:
    text = _slack_escape(f"{subject_line}\n{body}")
    failure = _retrying(
        settings.attempts,
        backoff,
        lambda: _webhook_once(settings.webhook_url, text, settings.timeout_seconds),
    )
    if failure is None:
        return None
    return f"notification by webhook {url_shown(settings.webhook_url)} failed: {failure}"


def send(
    settings: Notify,
    report: Report,
    environ: Mapping[str, str] | None = None,
    *,
    ssl_context: ssl.SSLContext | None = None,
    backoff: float = BACKOFF_SECONDS,
) -> list[str]:
    """Send the message about `report` to every configured channel: the warnings, one
    line each (empty: delivered, or no channel configured). Never raises for a delivery
    failure. The caller decides whether to send (`should_notify`). `environ` holds the
    SMTP password's variable (default os.environ); `ssl_context` replaces the default
    one for STARTTLS (tests trust their own certificate with it)."""
    env = os.environ if environ is None else environ
    subject_line, body = message(report, settings.review_url)
    warnings = []
    if settings.smtp_host:
        warning = _send_mail(settings, subject_line, body, env, ssl_context, backoff)
        if warning:
            warnings.append(warning)
    if settings.webhook_url:
        warning = _send_webhook(settings, subject_line, body, backoff)
        if warning:
            warnings.append(warning)
    return warnings


def settings_for(settings: Settings) -> Notify:
    """[notify], its link defaulting to the shared Google sheet when there is one."""
    if settings.notify.review_url or settings.log.gsheet is None:
        return settings.notify
    sheet = f"https://docs.google.com/spreadsheets/d/{settings.log.gsheet.spreadsheet}"
    return settings.notify.model_copy(update={"review_url": sheet})
