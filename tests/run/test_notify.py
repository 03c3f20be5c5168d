"""batch.run.notify against real servers on loopback: aiosmtpd (plain, STARTTLS + AUTH) and
an http.server webhook; [notify] in the config."""

from __future__ import annotations

import datetime as dt
import email
import ipaddress
import json
import socket
import ssl
import threading
import time
from email import policy
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote, unquote

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

from batch import config
from batch.config import Notify
from batch.errors import ConfigError
from batch.run.notify import Failed, Named, Report, message, send, should_notify

FAST = 0.01  # backoff base in tests
PASSWORD = "s3cret-Pa55word"

REPORT = Report(
    counts={"approved": 2, "awaiting_human": 1, "error": 1},
    waiting=[
        Named(
            "memo-7", "Quarterly API note", ["[FIGURE NEEDED: Q3 revenue]", "[DATE NEEDED: launch]"]
        )
    ],
    failed=[Failed("memo-9", "ModelUnavailable: connection refused\n  (after 4 attempts)")],
    source="briefs/",
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- SMTP ----------------------------------------------------------------------------


class Recorder:
    def __init__(self):
        self.messages: list[email.message.EmailMessage] = []
        self.envelopes = []

    async def handle_DATA(self, server, session, envelope):
        self.envelopes.append((envelope.mail_from, list(envelope.rcpt_tos)))
        self.messages.append(
            email.message_from_bytes(envelope.original_content, policy=policy.default)
        )
        return "250 OK"


class Auth:
    """Accepts one user and password; records every AUTH attempt and its session."""

    def __init__(self):
        self.attempts: list[tuple[int, str, bytes]] = []

    def __call__(self, server, session, envelope, mechanism, auth_data):
        assert isinstance(auth_data, LoginPassword)
        self.attempts.append((id(session), mechanism, auth_data.login))
        ok = auth_data.login == b"briefloop@example.com" and auth_data.password == PASSWORD.encode()
        return AuthResult(success=ok, handled=False)


@pytest.fixture
def relay():
    """A plain local relay: no TLS, no login."""
    handler = Recorder()
    controller = Controller(handler, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        yield controller, handler
    finally:
        controller.stop()


@pytest.fixture(scope="module")
def certificate(tmp_path_factory) -> Path:
    """A self-signed certificate for 127.0.0.1 (and its key) in a PEM file each."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    folder = tmp_path_factory.mktemp("tls")
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    (folder / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (folder / "key.pem").write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return folder


def tls_server(certificate: Path, **tls):
    """A submission server with AUTH and the given TLS: (controller, recorder, auth),
    running until the generator is closed."""
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_ctx.load_cert_chain(certificate / "cert.pem", certificate / "key.pem")
    handler, auth = Recorder(), Auth()
    options = {key: server_ctx if value is ssl.SSLContext else value for key, value in tls.items()}
    controller = Controller(
        handler,
        hostname="127.0.0.1",
        port=free_port(),
        authenticator=auth,
        auth_required=True,
        **options,
    )
    controller.start()
    try:
        yield controller, handler, auth
    finally:
        controller.stop()


@pytest.fixture
def submission(certificate):
    """A submission server as on port 587: STARTTLS required, then AUTH."""
    yield from tls_server(certificate, tls_context=ssl.SSLContext, require_starttls=True)


@pytest.fixture
def client_ctx(certificate) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(certificate / "cert.pem"))


def mail_settings(port: int, **kw) -> Notify:
    values = dict(
        smtp_host="127.0.0.1",
        smtp_port=port,
        mail_from="briefloop@example.com",
        mail_to=["editor@example.com"],
        review_url="https://review.example.com/r",
        timeout_seconds=5.0,
    )
    return Notify(**(values | kw))


def test_plain_relay_delivers_the_message(relay):
    controller, handler = relay
    settings = mail_settings(controller.port, smtp_starttls=False)
    assert send(settings, REPORT, environ={}, backoff=FAST) == []
    [mail] = handler.messages
    assert handler.envelopes == [("briefloop@example.com", ["editor@example.com"])]
    assert mail["Subject"] == "briefloop: 1 text waits for you, 1 failed"
    assert mail["To"] == "editor@example.com"
    body = mail.get_content()
    assert "memo-7 (Quarterly API note)" in body
    assert "[FIGURE NEEDED: Q3 revenue]" in body and "[DATE NEEDED: launch]" in body
    assert "memo-9: ModelUnavailable: connection refused (after 4 attempts)" in body
    assert "Review: https://review.example.com/r" in body


def test_starttls_and_login_deliver_without_the_password_in_the_message(submission, client_ctx):
    controller, handler, auth = submission
    settings = mail_settings(
        controller.port, smtp_user="briefloop@example.com", smtp_password_env="TEST_SMTP_PASSWORD"
    )
    warnings = send(
        settings,
        REPORT,
        environ={"TEST_SMTP_PASSWORD": PASSWORD},
        ssl_context=client_ctx,
        backoff=FAST,
    )
    assert warnings == []
    [mail] = handler.messages
    assert "1 text waits for you" in mail["Subject"]
    body = mail.get_content()
    assert "memo-7" in body and "[FIGURE NEEDED: Q3 revenue]" in body
    assert PASSWORD not in mail.as_string()
    assert len(auth.attempts) == 1  # logged in once, after STARTTLS


def test_the_default_context_does_not_trust_a_self_signed_certificate(submission):
    controller, handler, _ = submission
    settings = mail_settings(
        controller.port, smtp_user="briefloop@example.com", smtp_password_env="TEST_SMTP_PASSWORD"
    )
    [warning] = send(settings, REPORT, environ={"TEST_SMTP_PASSWORD": PASSWORD}, backoff=FAST)
    assert "TLS certificate not trusted" in warning and "(1 attempt)" in warning
    assert handler.messages == []


def test_a_wrong_password_is_one_warning_and_not_retried(submission, client_ctx):
    controller, handler, auth = submission
    settings = mail_settings(
        controller.port,
        smtp_user="briefloop@example.com",
        smtp_password_env="TEST_SMTP_PASSWORD",
        attempts=3,
    )
    [warning] = send(
        settings,
        REPORT,
        environ={"TEST_SMTP_PASSWORD": "wrong-password"},
        ssl_context=client_ctx,
        backoff=FAST,
    )
    assert warning.startswith("notification by e-mail to editor@example.com via 127.0.0.1:")
    assert "535" in warning and "(1 attempt)" in warning
    assert "wrong-password" not in warning
    # one connection: smtplib itself tries each mechanism the server offers once
    assert len({session for session, _, _ in auth.attempts}) == 1
    assert len(auth.attempts) <= 2
    assert handler.messages == []


def test_an_unset_password_variable_is_a_warning_and_nothing_is_sent(submission):
    controller, handler, auth = submission
    settings = mail_settings(
        controller.port, smtp_user="briefloop@example.com", smtp_password_env="TEST_SMTP_PASSWORD"
    )
    [warning] = send(settings, REPORT, environ={}, backoff=FAST)
    assert warning == (
        "notification by e-mail to editor@example.com not sent: "
        "$TEST_SMTP_PASSWORD (the SMTP password for briefloop@example.com) "
        "is not set"
    )
    assert auth.attempts == [] and handler.messages == []


def test_a_server_that_is_down_is_retried_a_bounded_number_of_times():
    settings = mail_settings(free_port(), smtp_starttls=False, attempts=3)
    start = time.monotonic()
    [warning] = send(settings, REPORT, environ={}, backoff=FAST)
    assert time.monotonic() - start < 3
    assert "refused" in warning.lower() and warning.endswith("(3 attempts)")


# --- webhook -------------------------------------------------------------------------


class Hook(BaseHTTPRequestHandler):
    statuses: list[int]  # answered in turn; the last one again once they run out
    received: list[dict]

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        self.received.append(
            {
                "body": json.loads(self.rfile.read(length)),
                "type": self.headers.get("Content-Type"),
                "auth": self.headers.get("Authorization"),
            }
        )
        status = self.statuses.pop(0) if len(self.statuses) > 1 else self.statuses[0]
        answer = b"ok" if status == 200 else b"no_service"
        self.send_response(status)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


@pytest.fixture
def hook(monkeypatch):
    """start(statuses) -> (url of a webhook on loopback, what it received)."""
    for name in (
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ):
        monkeypatch.delenv(name, raising=False)
    servers = []

    def start(statuses: list[int]) -> tuple[str, list[dict]]:
        handler = type("H", (Hook,), {"statuses": list(statuses), "received": []})
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        servers.append(server)
        return f"127.0.0.1:{server.server_address[1]}", handler.received

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def test_the_webhook_gets_json_text(hook):
    address, received = hook([200])
    settings = Notify(
        webhook_url=f"http://{address}/services/T0/B0/XyZ",
        review_url="https://review.example.com/r",
    )
    assert send(settings, REPORT, backoff=FAST) == []
    [post] = received
    assert post["type"] == "application/json"
    assert set(post["body"]) == {"text"}
    text = post["body"]["text"]
    assert text.startswith("briefloop: 1 text waits for you, 1 failed\n")
    assert "memo-7" in text and "[FIGURE NEEDED: Q3 revenue]" in text
    assert "https://review.example.com/r" in text


def test_the_webhook_escapes_what_slack_would_read_as_mentions(hook):
    address, received = hook([200])
    report = Report({"awaiting_human": 1}, [Named("b1", "<!channel> R&D", [])], [], "x")
    assert send(Notify(webhook_url=f"http://{address}/h"), report, backoff=FAST) == []
    assert "&lt;!channel&gt; R&amp;D" in received[0]["body"]["text"]


def test_5xx_is_retried_until_delivered(hook):
    address, received = hook([500, 500, 200])
    settings = Notify(webhook_url=f"http://{address}/hook", attempts=3)
    assert send(settings, REPORT, backoff=FAST) == []
    assert len(received) == 3


def test_5xx_past_the_attempts_is_a_warning(hook):
    address, received = hook([503])
    settings = Notify(webhook_url=f"http://{address}/hook", attempts=2)
    [warning] = send(settings, REPORT, backoff=FAST)
    assert warning == (
        f"notification by webhook http://{address}/… failed: "
        f"HTTP 503 Service Unavailable: no_service (2 attempts)"
    )
    assert len(received) == 2


def test_403_is_one_warning_and_not_retried(hook):
    address, received = hook([403])
    settings = Notify(webhook_url=f"http://{address}/services/T0/B0/SECRETPATH", attempts=3)
    [warning] = send(settings, REPORT, backoff=FAST)
    assert "HTTP 403 Forbidden" in warning and warning.endswith("(1 attempt)")
    assert "SECRETPATH" not in warning
    assert len(received) == 1


def test_credentials_in_the_webhook_url_are_masked(hook):
    address, received = hook([403])
    settings = Notify(webhook_url=f"http://hookuser:hookpass@{address}/hook")
    [warning] = send(settings, REPORT, backoff=FAST)
    assert "hookpass" not in warning and "hookuser" not in warning
    assert received[0]["auth"].startswith("Basic ")  # requests sent them as basic auth


def test_a_webhook_that_is_down_is_a_warning_without_its_secrets():
    settings = Notify(
        webhook_url=f"http://u:pw@127.0.0.1:{free_port()}/services/SECRETPATH", attempts=2
    )
    [warning] = send(settings, REPORT, backoff=FAST)
    assert "cannot connect" in warning and warning.endswith("(2 attempts)")
    assert "SECRETPATH" not in warning and "pw" not in warning.replace("webhook", "")


def test_both_channels_each_warn(hook):
    address, _ = hook([403])
    settings = Notify(
        webhook_url=f"http://{address}/h",
        smtp_host="127.0.0.1",
        smtp_port=free_port(),
        smtp_starttls=False,
        mail_to=["editor@example.com"],
        mail_from="b@example.com",
        attempts=1,
    )
    warnings = send(settings, REPORT, environ={}, backoff=FAST)
    assert [w.split(" ")[2] for w in warnings] == ["e-mail", "webhook"]


def test_no_channel_sends_nothing():
    assert send(Notify(), REPORT, environ={}) == []


# --- the message ---------------------------------------------------------------------


def test_should_notify_only_when_something_waits_or_failed():
    assert not should_notify(Report({"approved": 3}, [], [], "briefs/"))
    assert should_notify(Report({"error": 1}, [], [("b", "boom")], "briefs/"))
    assert should_notify(Report({"awaiting_human": 1}, [Named("b", "T", [])], [], "x"))


def test_the_message_lists_counts_waiting_failed_and_the_link():
    subject, body = message(REPORT, "https://editor:hunter2@sheets.example.com/d/1")
    assert subject == "briefloop: 1 text waits for you, 1 failed"
    assert body == (
        "Batch on briefs/: approved 2, awaiting human 1, error 1.\n"
        "\n"
        "Waiting for you (1):\n"
        "- memo-7 (Quarterly API note)\n"
        "    needs [FIGURE NEEDED: Q3 revenue]\n"
        "    needs [DATE NEEDED: launch]\n"
        "\n"
        "Failed (1):\n"
        "- memo-9: ModelUnavailable: connection refused (after 4 attempts)\n"
        "\n"
        "Review: https://***@sheets.example.com/d/1\n"
    )


def test_subjects():
    two = [Named("a", "A", []), Named("b", "B", [])]
    assert message(Report({}, two, [], "x"))[0] == "briefloop: 2 texts wait for you"
    assert message(Report({}, [], [Failed("a", "e")], "x"))[0] == "briefloop: 1 failed"
    _, body = message(Report({"awaiting_human": 1}, two[:1], [], "gsheet://u:p@x/y"))
    assert "needs your review" in body and "u:p@" not in body


# --- [notify] in the config ----------------------------------------------------------


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "briefloop.toml"
    p.write_text(text, encoding="utf-8")
    return p


NOTIFY_TOML = """
[notify]
smtp_host = "smtp.example.com"
smtp_port = 587
smtp_starttls = true
smtp_user = "briefloop@example.com"
smtp_password_env = "SMTP_PASSWORD"
mail_from = "briefloop@example.com"
mail_to = ["editor@example.com"]
webhook_url = ""
review_url = "https://docs.google.com/spreadsheets/d/abc"
timeout_seconds = 10
attempts = 3
"""


def test_notify_parses(tmp_path):
    s = config.load(write(tmp_path, NOTIFY_TOML), environ={})
    n = s.notify
    assert (n.smtp_host, n.smtp_port, n.smtp_starttls, n.mail_to, n.attempts) == (
        "smtp.example.com",
        587,
        True,
        ["editor@example.com"],
        3,
    )
    assert n.timeout_seconds == 10.0 and n.webhook_url == ""
    assert config.Settings().notify == Notify()  # the default: no channel


def test_the_webhook_comes_from_the_environment(tmp_path):
    s = config.load(
        write(tmp_path, NOTIFY_TOML),
        environ={"BRIEFLOOP_NOTIFY__WEBHOOK_URL": "https://hooks.example.com/services/T/B/x"},
    )
    assert s.notify.webhook_url == "https://hooks.example.com/services/T/B/x"


@pytest.mark.parametrize(
    "url",
    [
        "ftp://u:secretpw@hooks.example.com/x",
        "hooks.example.com/x",
        "https://u:secretpw@hooks.example.com:99999/x",
    ],
)
def test_a_bad_webhook_url_is_a_one_line_error_without_credentials(tmp_path, url):
    with pytest.raises(ConfigError, match=r"notify\.webhook_url: ") as e:
        config.load(write(tmp_path, f'[notify]\nwebhook_url = "{url}"\n'), environ={})
    assert "\n" not in str(e.value) and "secretpw" not in str(e.value)


def test_mail_to_is_needed_with_smtp_host(tmp_path):
    with pytest.raises(ConfigError, match=r"mail_to must list at least one address"):
        config.load(
            write(
                tmp_path, '[notify]\nsmtp_host = "smtp.example.com"\nmail_from = "a@example.com"\n'
            ),
            environ={},
        )


def test_the_password_variable_is_not_a_briefloop_config_variable(tmp_path):
    with pytest.raises(ConfigError, match=r"BRIEFLOOP_\* variables are read as config keys"):
        config.load(
            write(tmp_path, '[notify]\nsmtp_password_env = "BRIEFLOOP_SMTP_PW"\n'), environ={}
        )


def test_the_password_never_goes_in_the_file(tmp_path):
    with pytest.raises(ConfigError, match=r"notify\.smtp_password: unknown key"):
        config.load(write(tmp_path, '[notify]\nsmtp_password = "x"\n'), environ={})


@pytest.mark.parametrize("host", ["smtp.example.com", "192.0.2.10"])
def test_a_login_without_tls_to_another_machine_is_refused(host):
    with pytest.raises(ValueError, match="in clear text"):
        Notify(
            smtp_host=host,
            smtp_starttls=False,
            smtp_user="u@example.com",
            mail_to=["a@example.com"],
        )
    # a relay on this machine may go without TLS, and TLS makes the others fine
    Notify(
        smtp_host="127.0.0.1",
        smtp_starttls=False,
        smtp_user="u@example.com",
        mail_to=["a@example.com"],
    )
    Notify(
        smtp_host=host,
        smtp_starttls=False,
        smtp_ssl=True,
        smtp_user="u@example.com",
        mail_to=["a@example.com"],
    )


@pytest.fixture
def implicit_tls(certificate):
    """A submission server as on port 465: TLS from the first byte, then AUTH."""
    yield from tls_server(certificate, ssl_context=ssl.SSLContext, auth_require_tls=False)


# aiosmtpd counts STARTTLS only as TLS; here the connection is TLS from the first byte
@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")
def test_implicit_tls_delivers_and_logs_in_once(implicit_tls, client_ctx):
    controller, handler, auth = implicit_tls
    settings = mail_settings(
        controller.port,
        smtp_user="briefloop@example.com",
        smtp_password_env="TEST_SMTP_PASSWORD",
        smtp_ssl=True,
    )
    warnings = send(
        settings,
        REPORT,
        environ={"TEST_SMTP_PASSWORD": PASSWORD},
        ssl_context=client_ctx,
        backoff=FAST,
    )
    assert warnings == []
    [mail] = handler.messages
    assert "memo-7" in mail.get_content() and len(auth.attempts) == 1
    # and the default context does not trust the self-signed certificate
    assert "certificate" in " ".join(
        send(settings, REPORT, environ={"TEST_SMTP_PASSWORD": PASSWORD}, backoff=FAST)
    )


class Echo(BaseHTTPRequestHandler):
    """A server that names the path it could not serve, as Express does, the path as
    sent or percent-encoded."""

    encoded = False

    def answer(self) -> tuple[int, str]:
        path = self.path.split("?", 1)[0]
        return 404, f"Cannot POST {path.replace('/', '%2F') if self.encoded else path}"

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        code, text = self.answer()
        answer = text.encode()
        self.send_response(code)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


def warning_from(monkeypatch, handler: type, url_tail: str) -> str:
    """The one warning `send` gives for a webhook served by `handler` at `url_tail`."""
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        port = server.server_address[1]
        settings = Notify(webhook_url=f"http://127.0.0.1:{port}{url_tail}", attempts=1)
        [warning] = send(settings, REPORT, backoff=FAST)
    finally:
        server.shutdown()
        server.server_close()
    return warning


@pytest.mark.parametrize("encoded", [False, True])
def test_a_server_echoing_the_path_never_shows_the_secret(monkeypatch, encoded):
    warning = warning_from(
        monkeypatch, type("E", (Echo,), {"encoded": encoded}), "/hooks/SECRETPATH?channel=x"
    )
    assert "HTTP 404" in warning and "SECRETPATH" not in warning.upper()


@pytest.mark.parametrize(
    "url",
    ["http://hooks.example.com:99999/hooks/SECRETPATH", "ftp://hooks.example.com/hooks/SECRETPATH"],
)
def test_a_malformed_webhook_url_is_refused_without_its_path(tmp_path, url):
    with pytest.raises(ConfigError, match=r"notify\.webhook_url: ") as e:
        config.load(write(tmp_path, f'[notify]\nwebhook_url = "{url}"\n'), environ={})
    assert "SECRETPATH" not in str(e.value) and "hooks.example.com" in str(e.value)


class EchoAll(Echo):
    """A server whose error message quotes one part of the URL it was called at."""

    part = "query-value"

    def answer(self) -> tuple[int, str]:
        path, _, query = self.path.partition("?")
        values = [v.partition("=")[2] for v in query.split("&") if v]
        return 403, {
            "query-value": f"invalid key {values[0] if values else ''}",
            "segment": f"no hook named {path.rsplit('/', 1)[-1]}",
            "whole": f"rejected {self.path}",
        }[self.part]


@pytest.mark.parametrize(
    "part,url_tail,secret",
    [
        ("query-value", "/hook?key=SECRETKEY123", "SECRETKEY123"),  # the reported one
        ("query-value", "/hook?token=Ab9&x=1", "Ab9"),  # a short value
        ("segment", "/hooks/K7Q2Z", "K7Q2Z"),  # a segment under 6
        ("segment", "/hooks/t%C3%A9st99", "t%C3%A9st99"),  # percent-encoded
        ("whole", "/x/ABC?sig=Zz9Zz9", "Zz9Zz9"),
    ],
)
def test_no_secret_part_of_the_webhook_leaves_in_a_warning(monkeypatch, part, url_tail, secret):
    warning = warning_from(monkeypatch, type("E", (EchoAll,), {"part": part}), url_tail)
    assert "HTTP 403" in warning
    for shown in {secret, unquote(secret), quote(unquote(secret), safe="")}:
        assert shown.lower() not in warning.lower(), warning


@pytest.mark.parametrize(
    "url",
    [
        "http://[::1/hooks/SECRETPATH99",  # the reported one: not parseable at all
        "http://[::1]:x/hooks/SECRETPATH99",
        "http://hooks.example.com/hooks/SECRETPATH99#frag",
        "https://u:SECRETPATH99@[fe80::1/x",
    ],
)
def test_a_webhook_url_that_does_not_parse_is_refused_without_its_secret(tmp_path, url):
    try:
        config.load(write(tmp_path, f'[notify]\nwebhook_url = "{url}"\n'), environ={})
    except ConfigError as e:
        assert "SECRETPATH99" not in str(e) and "\n" not in str(e)
    else:
        assert url.endswith("#frag")  # the only valid one


def test_the_message_links_a_failed_text_and_says_what_a_text_needing_work_lacks():
    report = Report(
        counts={"error": 1, "awaiting_human": 1},
        waiting=[
            Named(
                "memo-7",
                "Quarterly note",
                [],
                link="https://review.example/thread/memo-7-1?link=abc",
                unfinished="max_rounds",
                findings=2,
                first_finding="The text does not say what the brief gives as "
                "'Q3 closed 42 accounts'.",
            )
        ],
        failed=[
            Failed(
                "memo-9",
                "ModelUnavailable: connection refused",
                link="https://review.example/thread/memo-9-1?link=def",
            )
        ],
        source="briefs/",
    )
    body = message(report)[1]
    assert "first: The text does not say what the brief gives as 'Q3 closed 42 accounts'." in body
    failed = body[body.index("Failed (1):") :]
    assert "- memo-9: ModelUnavailable: connection refused" in failed
    assert "    open: https://review.example/thread/memo-9-1?link=def" in failed
