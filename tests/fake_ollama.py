"""An in-process stand-in for an Ollama server, for tests and benchmarks.

`FakeOllama` listens on 127.0.0.1 on a free port and speaks the part of Ollama's HTTP API
that `langchain_ollama.ChatOllama` (through the `ollama` client) uses, with the same
wire shapes, so the real provider code runs unchanged against it:

    POST /api/chat     streamed NDJSON (the default, as in Ollama) or one JSON object
    GET  /api/tags     the configured models
    POST /api/show     minimal model details, 404 for a model it does not have
    GET  /api/version

What /api/chat answers is scripted: a queue of items, each either a string (the
assistant's content) or a `Reply` (content plus faults: an HTTP error, a delay, a dropped
connection, an error line inside the stream, a `done_reason`, token counts). Every request
is recorded in `requests` so a test can assert what the client sent.

A test can also act on progress instead of time: `wait_for_chats(n)` returns once n chat
requests have come in, and `on_chat(n, body)` is called for the n-th one before it is
answered, in the handler's thread, so whatever it does (e.g. kill the client process, or
block until the test has) happens while that request is still unanswered.

    with FakeOllama() as server:
        server.enqueue('{"text": "hi"}', http_error(500, "boom"))
        ... ModelSettings(provider="ollama", base_url=server.base_url, ...) ...
        assert server.chat_requests[0]["options"]["num_ctx"] == 4096
"""

from __future__ import annotations

import dataclasses
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAKE_VERSION = "0.12.6"


@dataclass(frozen=True)
class Reply:
    """One scripted answer to POST /api/chat."""

    content: str = ""
    # Anything but 200 answers {"error": error} with this status, as Ollama does for
    # faults found before generation starts (unknown model, model failed to load).
    status: int = 200
    error: str = ""
    # Seconds to wait before the first byte; longer than the client's timeout tests it.
    delay: float = 0.0
    # Close the socket instead of finishing: at once (drop_after_chunks=0), or partway
    # through the stream, which is what a crashed or restarted server looks like.
    # Unstreamed, any drop_after_chunks > 0 cuts the one JSON body short.
    drop: bool = False
    drop_after_chunks: int = 0
    # Ollama reports faults found mid-generation (e.g. its model runner died) as an
    # {"error": ...} line in a stream that already answered 200; unstreamed, as a 500.
    stream_error: str = ""
    done_reason: str = "stop"
    # None: a rough count of ~4 characters a token, so tests need not invent numbers.
    prompt_eval_count: int | None = None
    eval_count: int | None = None


def writer_text(answer: dict[str, Any]) -> str:
    """A scripted writer answer (a dict with a draft) as a writer asked for plain text
    writes it: the draft, then a DEVIATIONS: section when it has deviations."""
    text = answer["draft"]
    deviations = answer.get("deliberate_deviations") or []
    if deviations:
        text += "\n\nDEVIATIONS:\n" + "\n".join(
            f"- {d['point']}: {d['reason']}" for d in deviations
        )
    return text


def plain_answer(content: str) -> str:
    """What a model asked for no format sends for a scripted content: a writer answer
    scripted as JSON becomes its plain text; anything else is sent as it is."""
    try:
        data = json.loads(content)
    except ValueError:
        return content
    return writer_text(data) if isinstance(data, dict) and "draft" in data else content


def http_error(status: int, message: str) -> Reply:
    return Reply(status=status, error=message)


def model_not_found(model: str) -> Reply:
    # Ollama's own wording for /api/chat with a model that was never pulled.
    return http_error(404, f'model "{model}" not found, try pulling it first')


def delayed(seconds: float, content: str = "") -> Reply:
    return Reply(content=content, delay=seconds)


def dropped(after_chunks: int = 0, content: str = "") -> Reply:
    return Reply(content=content, drop=True, drop_after_chunks=after_chunks)


def stream_error(message: str, content: str = "") -> Reply:
    return Reply(content=content, stream_error=message)


@dataclass(frozen=True)
class Received:
    method: str
    path: str
    body: Any  # the parsed JSON body; None when there was none or it was not JSON


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _rough_tokens(text: str) -> int:
    return len(text) // 4 + 1


def _pieces(content: str) -> list[str]:
    """Split content into up to three chunks, like a (very coarse) token stream."""
    if not content:
        return []
    step = max(1, -(-len(content) // 3))
    return [content[i : i + step] for i in range(0, len(content), step)]


class FakeOllama:
    def __init__(
        self,
        replies: Iterable[str | Reply] = (),
        *,
        default: str | Reply | Callable[[dict[str, Any]], str | Reply] | None = None,
        models: Iterable[str] = ("qwen2.5:7b",),
        max_parallel: int | None = None,
        latency: float = 0.0,
        on_chat: Callable[[int, dict[str, Any]], None] | None = None,
        port: int = 0,
    ):
        """Start serving at once; `close()` (or leaving the `with` block) stops it.

        default: the answer once the queue is empty, or a function of the request body
            returning one; None answers 500, so a test that makes more calls than it
            scripted fails loudly instead of passing by luck.
        models: what /api/tags lists; /api/chat and /api/show answer 404 for any other,
            as Ollama does for a model that was never pulled.
        max_parallel, latency: model a server with that many generation slots, each call
            holding one for `latency` seconds; further calls queue for a slot, as Ollama
            does beyond OLLAMA_NUM_PARALLEL. For benchmarks of concurrent batches. The
            latency (and a Reply's delay) counts from the request's arrival, or from when
            its slot came free or its on_chat returned, whichever is last: the fake's own
            work in Python (parsing the request, choosing and encoding the answer) is done
            within it, so a benchmark measures the client, not this double.
        on_chat: called as on_chat(n, body) for the n-th POST /api/chat (n from 1, as
            `chat_count` counts them) that asks for a model the server has, before its
            reply is chosen or sent; it runs in that request's handler thread, so the
            reply waits for it to return.
        port: 0 for a free one; the port of a closed server brings that host back.
        """
        self.models = tuple(models)
        self.default = default
        self.latency = latency
        self.on_chat = on_chat
        self.requests: list[Received] = []
        # The most chat calls that were generating at the same moment.
        self.peak_parallel = 0
        # Seconds the chat requests were held here, from arrival to the answer's write:
        # the latency, and what the fake itself took beyond it (a benchmark takes this
        # off the wall time to see the client's own).
        self.chat_seconds = 0.0

        self._replies: deque[str | Reply] = deque(replies)
        self._lock = threading.Lock()
        # Notified on every request recorded, for wait_for_chats.
        self._arrived = threading.Condition(self._lock)
        self._chats = 0
        self._slots = threading.BoundedSemaphore(max_parallel) if max_parallel else None
        self._active = 0
        # Set on close so handlers sleeping in a delay or latency give up at once.
        self._closing = threading.Event()
        self._connections: set[socket.socket] = set()

        self._server = ThreadingHTTPServer(("127.0.0.1", port), _Handler)
        self._server.daemon_threads = True
        self._server.fake = self  # type: ignore[attr-defined]
        host, port = self._server.server_address[:2]
        self.base_url = f"http://{host}:{port}"
        # A short poll interval: shutdown() waits up to one interval, at every teardown.
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            args=(0.05,),
            name=f"fake-ollama-{port}",
            daemon=True,
        )
        self._thread.start()

    def __enter__(self) -> FakeOllama:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._closing.is_set():
            return
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()
        # Keep-alive connections would otherwise keep their handler threads (and the
        # client's pooled sockets) alive past the test.
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            with suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)

    def enqueue(self, *replies: str | Reply) -> None:
        with self._lock:
            self._replies.extend(replies)

    @property
    def pending(self) -> int:
        """Scripted replies not yet used."""
        with self._lock:
            return len(self._replies)

    @property
    def chat_count(self) -> int:
        """POST /api/chat requests received so far (answered or not)."""
        with self._lock:
            return self._chats

    def wait_for_chats(self, n: int, timeout: float) -> bool:
        """Block until at least n chat requests have come in; False on timeout."""
        with self._arrived:
            return self._arrived.wait_for(lambda: self._chats >= n, timeout)

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        """The JSON bodies of the POST /api/chat requests, oldest first."""
        with self._lock:
            return [r.body for r in self.requests if r.path == "/api/chat"]

    # -- used by the handler --------------------------------------------------------

    def _record(self, received: Received) -> int:
        """Keep the request; returns how many chat requests there are, this one included."""
        with self._arrived:
            self.requests.append(received)
            if received.path == "/api/chat":
                self._chats += 1
            self._arrived.notify_all()
            return self._chats

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            item = self._replies.popleft() if self._replies else self.default
        if callable(item):  # a responder: the answer depends on the request
            item = item(body)
        if item is None:
            return http_error(500, "fake ollama: no scripted reply left and no default")
        reply = Reply(content=item) if isinstance(item, str) else item
        if "format" not in body and reply.content:
            reply = dataclasses.replace(reply, content=plain_answer(reply.content))
        return reply

    @contextmanager
    def _slot(self) -> Iterator[float | None]:
        """Hold a generation slot; yields the perf_counter() time one came free when the
        call had to wait for it, else None."""
        freed = None
        if self._slots is not None and not self._slots.acquire(blocking=False):
            self._slots.acquire()
            freed = time.perf_counter()
        try:
            with self._lock:
                self._active += 1
                self.peak_parallel = max(self.peak_parallel, self._active)
            try:
                yield freed
            finally:
                with self._lock:
                    self._active -= 1
        finally:
            if self._slots is not None:
                self._slots.release()

    def _sleep(self, seconds: float) -> bool:
        """Sleep unless the server closes first; False means it closed."""
        return seconds <= 0 or not self._closing.wait(seconds)


class _Handler(BaseHTTPRequestHandler):
    # HTTP/1.1 for keep-alive and chunked streams, as the real server (Go net/http).
    protocol_version = "HTTP/1.1"
    # Go sets TCP_NODELAY on every connection. Without it, each small write after the
    # first waits for the client's delayed ACK: ~40 ms a call on a busy connection.
    disable_nagle_algorithm = True
    server_version = "FakeOllama"

    @property
    def fake(self) -> FakeOllama:
        return self.server.fake  # type: ignore[attr-defined]

    def setup(self) -> None:
        super().setup()
        with self.fake._lock:
            self.fake._connections.add(self.connection)

    def finish(self) -> None:
        with self.fake._lock:
            self.fake._connections.discard(self.connection)
        # The client may have gone first (it timed out, or we dropped it).
        with suppress(OSError):
            super().finish()

    def handle(self) -> None:
        # A client that timed out may close its end while we are still answering.
        with suppress(BrokenPipeError, ConnectionResetError):
            super().handle()

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean; `requests` is the log that matters

    def parse_request(self) -> bool:
        # When the request came in (its line is read, its headers not yet): a chat's
        # latency counts from here.
        self.arrived = time.perf_counter()
        self.answering: float | None = None  # when the answer's last write began
        return super().parse_request()

    # -- routing ------------------------------------------------------------------

    def do_GET(self) -> None:
        self.fake._record(Received("GET", self.path, None))
        if self.path == "/api/tags":
            self._send_json(200, {"models": [self._model_entry(m) for m in self.fake.models]})
        elif self.path == "/api/version":
            self._send_json(200, {"version": FAKE_VERSION})
        elif self.path == "/":
            self._send(200, b"Ollama is running", "text/plain; charset=utf-8")
        else:
            self._send(404, b"404 page not found", "text/plain")

    def do_POST(self) -> None:
        body = self._read_json()
        number = self.fake._record(Received("POST", self.path, body))
        if self.path == "/api/chat":
            try:
                self._chat(body if isinstance(body, dict) else {}, number)
            finally:
                # Until the answer is handed to the socket: the client runs from there
                # on, and on a shared core it may run before this thread goes on.
                held = (self.answering or time.perf_counter()) - self.arrived
                with self.fake._lock:
                    self.fake.chat_seconds += held
        elif self.path == "/api/show":
            self._show(body if isinstance(body, dict) else {})
        else:
            self._send(404, b"404 page not found", "text/plain")

    # -- endpoints ----------------------------------------------------------------

    def _show(self, body: dict[str, Any]) -> None:
        model = body.get("model") or body.get("name") or ""
        if model not in self.fake.models:
            self._send_json(404, {"error": f"model '{model}' not found"})
            return
        self._send_json(
            200,
            {
                "license": "",
                "modelfile": f"FROM {model}\n",
                "parameters": "",
                "template": "{{ .Prompt }}",
                "details": self._details(),
                "model_info": {"general.architecture": "fake", "fake.context_length": 32768},
                "capabilities": ["completion"],
                "modified_at": _now(),
            },
        )

    def _chat(self, body: dict[str, Any], number: int) -> None:
        model = body.get("model", "")
        if model not in self.fake.models:
            self._send_json(404, {"error": f'model "{model}" not found, try pulling it first'})
            return
        begin = self.arrived
        if self.fake.on_chat is not None:
            self.fake.on_chat(number, body)
            begin = time.perf_counter()  # a hook that holds the request is not latency
        reply = self.fake._next_reply(body)
        streamed = body.get("stream", True)
        # An unstreamed answer is ready before the wait, as a server has its answer when
        # its generation ends: after the wait there is only the write.
        payload = (
            json.dumps(self._final(model, body, reply, reply.content)).encode()
            if not streamed and reply.status == 200 and not reply.stream_error
            else b""
        )
        answer = (
            self._response(200, payload, "application/json; charset=utf-8")
            if payload and not reply.drop
            else b""
        )
        with self.fake._slot() as freed:
            held = time.perf_counter() - (begin if freed is None else max(begin, freed))
            if not self.fake._sleep(reply.delay + self.fake.latency - held):
                self.close_connection = True
                return
            if reply.status != 200:
                self._send_json(reply.status, {"error": reply.error})
                return
            if reply.drop and reply.drop_after_chunks == 0:
                # Nothing written: the client sees the peer close without an answer.
                self.close_connection = True
                return
            # Ollama streams unless the request says "stream": false.
            if streamed:
                self._stream_chat(model, body, reply)
            elif answer:
                self.log_request(200)
                self.answering = time.perf_counter()
                self.wfile.write(answer)
            else:
                self._whole_chat(reply, payload)

    def _stream_chat(self, model: str, body: dict[str, Any], reply: Reply) -> None:
        started = time.perf_counter_ns()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for n, piece in enumerate(_pieces(reply.content)):
            if reply.drop and n == reply.drop_after_chunks:
                # No terminating chunk: the client sees an incomplete chunked body.
                self.close_connection = True
                return
            self._write_line(
                {
                    "model": model,
                    "created_at": _now(),
                    "message": {"role": "assistant", "content": piece},
                    "done": False,
                }
            )
        if reply.drop:
            self.close_connection = True
            return
        if reply.stream_error:
            self._write_line({"error": reply.stream_error})
        else:
            # The last chunk carries no content, only the statistics.
            self._write_line(self._final(model, body, reply, "", started))
        self._write_chunk(b"")

    def _whole_chat(self, reply: Reply, payload: bytes) -> None:
        if reply.stream_error:
            # Unstreamed, Ollama collects the answer first and reports the fault instead.
            self._send_json(500, {"error": reply.stream_error})
            return
        if reply.drop:
            # The headers promise the whole body; the peer closes partway through it.
            self.send_response(200)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload[: len(payload) // 2])
            self.close_connection = True
            return
        self._send(200, payload, "application/json; charset=utf-8")

    # -- wire helpers -------------------------------------------------------------

    def _final(
        self,
        model: str,
        body: dict[str, Any],
        reply: Reply,
        content: str,
        started: int | None = None,
    ) -> dict[str, Any]:
        prompt = "".join(str(m.get("content", "")) for m in body.get("messages") or [])
        prompt_tokens = reply.prompt_eval_count
        if prompt_tokens is None:
            prompt_tokens = _rough_tokens(prompt)
        eval_tokens = reply.eval_count
        if eval_tokens is None:
            eval_tokens = _rough_tokens(reply.content)
        total = max(1, time.perf_counter_ns() - started) if started else 1_000_000
        return {
            "model": model,
            "created_at": _now(),
            "message": {"role": "assistant", "content": content},
            "done": True,
            "done_reason": reply.done_reason,
            "total_duration": total,
            "load_duration": 1_000,
            "prompt_eval_count": prompt_tokens,
            "prompt_eval_duration": total // 4,
            "eval_count": eval_tokens,
            "eval_duration": total // 2,
        }

    def _model_entry(self, model: str) -> dict[str, Any]:
        return {
            "name": model,
            "model": model,
            "modified_at": _now(),
            "size": 4_683_087_332,
            "digest": "0" * 64,
            "details": self._details(),
        }

    @staticmethod
    def _details() -> dict[str, Any]:
        return {
            "parent_model": "",
            "format": "gguf",
            "family": "fake",
            "families": ["fake"],
            "parameter_size": "7.6B",
            "quantization_level": "Q4_K_M",
        }

    def _read_json(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw) if raw else None
        except json.JSONDecodeError:
            return None

    def _response(self, status: int, payload: bytes, content_type: str) -> bytes:
        """A whole answer, status line, headers and body, to send in one write, as Go's
        net/http sends a small one: two writes would be two TCP segments, and a client
        woken by the first would wait again for the second."""
        head = (
            f"{self.protocol_version} {status} "
            f"{self.responses.get(status, ('',))[0]}\r\n"
            f"Server: {self.version_string()}\r\n"
            f"Date: {self.date_time_string()}\r\n"
            f"Content-Type: {content_type}\r\n"
            f"Content-Length: {len(payload)}\r\n\r\n"
        )
        return head.encode("latin-1") + payload

    def _send(self, status: int, payload: bytes, content_type: str) -> None:
        self.log_request(status)
        self.wfile.write(self._response(status, payload, content_type))

    def _send_json(self, status: int, data: Any) -> None:
        self._send(status, json.dumps(data).encode(), "application/json; charset=utf-8")

    def _write_line(self, data: dict[str, Any]) -> None:
        self._write_chunk(json.dumps(data).encode() + b"\n")

    def _write_chunk(self, data: bytes) -> None:
        # An empty chunk is the chunked-encoding terminator.
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()
