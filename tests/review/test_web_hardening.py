"""The review page's edges, against the real server (uvicorn on loopback): where the
token swap may send a browser, and what an unauthenticated or oversized POST costs."""

from __future__ import annotations

import http.client
import re
import socket
import time
from urllib.parse import urlsplit

import pytest
from test_web import pause
from test_web_browser import running

from batch.review import web


def connect(base: str) -> http.client.HTTPConnection:
    parts = urlsplit(base)
    return http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)


@pytest.mark.parametrize("path", ["//evil.example/", "///evil.example/x", "/\\evil.example/"])
def test_the_token_swap_redirects_to_a_path_of_this_site_only(project, settings, path):
    tid, models = pause(project, settings)
    app = web.create_app(settings, models=models, strict=True, token="s3cret-token")
    with running(app) as base:
        conn = connect(base)
        conn.request("GET", f"{path}?token=s3cret-token")
        response = conn.getresponse()
        location = response.getheader("location")
        assert response.status == 303
        assert location.startswith("/") and not location.startswith(("//", "/\\"))
        assert urlsplit(location).netloc == ""


def _session(base: str, tid: str) -> tuple[str, str]:
    """(the cookies a browser holds after loading the thread's page, its CSRF token)."""
    conn = connect(base)
    conn.request("GET", f"/thread/{tid}")
    response = conn.getresponse()
    html = response.read().decode()
    cookies = "; ".join(c.split(";", 1)[0] for c in response.headers.get_all("set-cookie"))
    return cookies, re.search(r'name="csrf" value="([^"]+)"', html).group(1)


def test_a_post_without_a_session_is_refused_before_its_body_is_read(project, settings):
    tid, models = pause(project, settings)
    with running(web.create_app(settings, models=models, strict=True)) as base:
        parts = urlsplit(base)
        with socket.create_connection((parts.hostname, parts.port), timeout=10) as s:
            # a gigabyte announced, a few bytes sent: an answer that waited for the body
            # would never come
            s.sendall(
                f"POST /thread/{tid} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
                f"Content-Type: application/x-www-form-urlencoded\r\n"
                f"Content-Length: 1000000000\r\n\r\nab=".encode()
            )
            started = time.monotonic()
            head = s.recv(4096).decode()
            assert head.startswith("HTTP/1.1 403") and time.monotonic() - started < 5


def test_an_oversized_form_is_refused_and_a_normal_one_still_works(project, settings):
    tid, models = pause(project, settings)
    with running(web.create_app(settings, models=models, strict=True)) as base:
        cookies, csrf = _session(base, tid)
        headers = {"Cookie": cookies, "Content-Type": "application/x-www-form-urlencoded"}
        big = f"csrf={csrf}&notes=" + "x" * (web.MAX_FORM_BYTES + 10)
        for chunked in (False, True):  # a declared length, and a body streamed in chunks
            conn = connect(base)
            if chunked:
                conn.putrequest("POST", f"/thread/{tid}")
                for k, v in headers.items():
                    conn.putheader(k, v)
                conn.putheader("Transfer-Encoding", "chunked")
                conn.endheaders()
                data = big.encode()
                for i in range(0, len(data), 65536):
                    piece = data[i : i + 65536]
                    conn.send(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                conn.send(b"0\r\n\r\n")
            else:
                conn.request("POST", f"/thread/{tid}", body=big, headers=headers)
            assert conn.getresponse().status == 413
        many = "&".join([f"csrf={csrf}"] + [f"f{i}=x" for i in range(web.MAX_FORM_FIELDS + 5)])
        conn = connect(base)
        conn.request("POST", f"/thread/{tid}", body=many, headers=headers)
        assert conn.getresponse().status == 400
        conn = connect(base)
        conn.request(
            "POST",
            f"/thread/{tid}",
            headers=headers,
            body=f"csrf={csrf}&action=reject&reason=Not+needed.&name=cy",
        )
        answer = conn.getresponse()
        assert answer.status in (200, 303), answer.read()[:300]


def test_a_failing_page_still_sends_the_security_headers(project, settings, monkeypatch):
    tid, models = pause(project, settings)

    def broken(*args, **kwargs):
        raise RuntimeError("/srv/secret/path exploded")

    monkeypatch.setattr(web, "thread_view", broken)
    with running(web.create_app(settings, models=models, strict=True)) as base:
        conn = connect(base)
        conn.request("GET", f"/thread/{tid}")
        response = conn.getresponse()
        body = response.read().decode()
    assert response.status == 500 and "/srv/secret" not in body
    for header in ("content-security-policy", "x-content-type-options"):
        assert response.getheader(header), header
