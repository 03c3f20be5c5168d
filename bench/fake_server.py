"""The fake Ollama server of the benchmarks, in this process or in a process of its own.

A real Ollama is another process: its request handling does not compete with the
client for this process's GIL. `FakeOllamaProcess` runs `tests/fake_ollama.FakeOllama`
in a child process (`python -m bench.fake_server`: no threads or state of ours), with the
benchmark's scripted answers (`rounds_responder`, which counts drafts per brief: it
lives in the server's process), so what a benchmark measures is the client's cost
alone. This module imports only the test double, so the child starts fast.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))  # the test doubles

from fake_ollama import FakeOllama  # noqa: E402

ORDINALS = ["First", "Second", "Third", "Fourth", "Fifth", "Sixth"]


def rounds_responder(rounds: int) -> Callable[[dict], str]:
    """Writer and critic answers that make every brief take exactly `rounds` rounds."""
    drafts: dict[str, int] = {}

    def respond(body: dict) -> str:
        text = "\n".join(m["content"] for m in body["messages"])
        bid = re.search(r"BRIEF \(id ([^)]+)\)", text).group(1)
        if "format" not in body:  # the writer: plain text
            drafts[bid] = drafts.get(bid, 0) + 1
            return f"{ORDINALS[drafts[bid] - 1]} draft: the office is closed on Friday."
        final = f"{ORDINALS[rounds - 1]} draft" in text
        return json.dumps(
            {
                "must_fix": [] if final else ["Say it more plainly."],
                "would_improve": [],
                "scores": {
                    c: 5 if final else 3
                    for c in ("covers_brief", "accuracy", "clarity", "actionable")
                },
            }
        )

    return respond


def serve(rounds: int, latency: float, max_parallel: int | None) -> None:
    """The child: print the base URL, serve until a line (or EOF) on stdin, then print
    what was served as one JSON line."""
    with FakeOllama(
        default=rounds_responder(rounds), latency=latency, max_parallel=max_parallel
    ) as server:
        print(server.base_url, flush=True)
        sys.stdin.readline()  # stop
        stats = {
            "chat_count": server.chat_count,
            "peak_parallel": server.peak_parallel,
            "chat_seconds": server.chat_seconds,
        }
    print(json.dumps(stats), flush=True)


class FakeOllamaProcess:
    """`FakeOllama(default=rounds_responder(rounds), latency=..., max_parallel=...)` in a
    process of its own. `base_url` while it runs; `chat_count`, `peak_parallel` and
    `chat_seconds` (FakeOllama's) once it has stopped (leaving the `with` block stops
    it)."""

    def __init__(self, rounds: int, latency: float = 0.0, max_parallel: int | None = None):
        self._process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bench.fake_server",
                str(rounds),
                repr(latency),
                str(max_parallel or 0),
            ],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.chat_count = 0
        self.peak_parallel = 0
        self.chat_seconds = 0.0
        self.base_url = self._process.stdout.readline().strip()
        if not self.base_url.startswith("http://"):
            self._process.kill()
            self._process.wait()
            raise RuntimeError("the fake Ollama process did not start")

    def __enter__(self) -> FakeOllamaProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._process.poll() is None:
            try:
                out, _ = self._process.communicate("stop\n", timeout=30)
            except subprocess.TimeoutExpired:
                self._process.kill()
                out, _ = self._process.communicate()
            if out.strip():
                stats = json.loads(out.strip().splitlines()[-1])
                self.chat_count = stats["chat_count"]
                self.peak_parallel = stats["peak_parallel"]
                self.chat_seconds = stats["chat_seconds"]


if __name__ == "__main__":
    serve(int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]) or None)
