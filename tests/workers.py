"""`briefloop worker` processes for the cluster tests and the cluster benchmark."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path


class Worker:
    """A `briefloop worker` process (and its prefork children) in its own process group."""

    def __init__(self, cfg: Path, log: Path, concurrency: int = 1):
        env = {k: v for k, v in os.environ.items() if not k.startswith("BRIEFLOOP_")}
        self.log = log
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "batch",
                "--config",
                str(cfg),
                "worker",
                "--concurrency",
                str(concurrency),
            ],
            stdout=log.open("w"),
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )

    def wait_ready(self, timeout: float = 30.0) -> Worker:
        deadline = time.monotonic() + timeout
        while " ready." not in self.log.read_text(errors="replace"):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"worker did not start:\n{self.log.read_text()}")
            time.sleep(0.1)
        return self

    def kill(self) -> None:
        """SIGKILL the worker and its pool processes at once: a machine that died."""
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()
