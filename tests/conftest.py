"""Shared fixtures: a scripted model that records what it was sent, and settings in tmp."""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import processes
import pytest

from batch import config
from batch.models.base import Completion, RoleModel, Sampling

from fake_ollama import writer_text
from servers import PostgresServer, RedisServer

REPO = Path(__file__).resolve().parent.parent


class ScriptedModel(RoleModel):
    """Answers from a queue; records every message list (and max_tokens) it was sent.

    A queued item is a dict (sent back as JSON; a writer answer asked for plain text
    is sent as its text: fake_ollama.writer_text), a str (sent back as is, e.g. broken
    JSON), a Completion (returned as is, e.g. with truncated=True), an exception
    instance (raised), or a callable taking the messages.
    """

    def __init__(
        self,
        answers: list[Any] | None = None,
        name: str = "scripted",
        num_ctx: int = 32_000,
        max_tokens: int = 1000,
    ):
        super().__init__(name, num_ctx, max_tokens)
        self.answers = list(answers or [])
        self.sent: list[list[dict[str, str]]] = []
        self.schemas: list[dict] = []
        self.max_tokens_sent: list[int] = []  # the answer limit each call had
        self.samplings: list[Sampling | None] = []  # the sampling override of each call

    def queue(self, *answers: Any) -> ScriptedModel:
        self.answers.extend(answers)
        return self

    def complete(
        self,
        messages: list[dict[str, str]],
        schema: dict,
        max_tokens: int | None = None,
        sampling: Sampling | None = None,
    ) -> Completion:
        self.sent.append(messages)
        self.samplings.append(sampling)
        self.schemas.append(schema)
        self.max_tokens_sent.append(self.max_tokens if max_tokens is None else max_tokens)
        if not self.answers:
            raise AssertionError(f"{self.name}: no scripted answer left")
        item = self.answers.pop(0)
        if callable(item) and not isinstance(item, type):
            item = item(messages)
        if isinstance(item, BaseException):
            raise item
        if isinstance(item, Completion):
            return item
        if schema is None and isinstance(item, dict) and "draft" in item:
            item = writer_text(item)  # asked for plain text, a writer writes the text
        text = item if isinstance(item, str) else json.dumps(item)
        return Completion(
            text=text, input_tokens=len(json.dumps(messages)) // 4, output_tokens=len(text) // 4
        )

    @property
    def calls(self) -> int:
        return len(self.sent)


def writer_answer(draft: str, needs: list[tuple[str, str]] = (), deviations=()) -> dict:
    return {
        "draft": draft,
        "deliberate_deviations": [{"point": p, "reason": r} for p, r in deviations],
        "needs_from_human": [{"placeholder": p, "question": q} for p, q in needs],
    }


MEMO_CRITERIA = ("covers_brief", "accuracy", "clarity", "actionable")


def critic_answer(score: int | dict = 5, must_fix=(), would_improve=()) -> dict:
    scores = score if isinstance(score, dict) else {c: score for c in MEMO_CRITERIA}
    return {"must_fix": list(must_fix), "would_improve": list(would_improve), "scores": scores}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project folder with the repo's rubrics and house rules and an empty briefs dir."""
    shutil.copytree(REPO / "rubrics", tmp_path / "rubrics")
    shutil.copytree(REPO / "house_rules", tmp_path / "house_rules")
    (tmp_path / "briefs").mkdir()
    return tmp_path


# The tests run the product as it ships (the defaults of batch.config); a test that needs
# another setting asks for it, with `@pytest.mark.settings(**ONE_OF_THESE)`, which every
# make_settings of the test applies (its own overrides still win), or in its
# make_settings call:
# - it scripts the critic model's verdict (shipped: "checks", the code checks alone judge)
CRITIC_GATE = {"models.critic_mode": "gate"}
# - it scripts each round's whole draft (shipped: the rounds after the first repair what
#   the checks found, one small change at a time, and ask the model other questions)
WHOLE_REWRITES = {"loop.repairs": False}
# - it sees how the loop itself ends (shipped: a text the machine could not approve waits
#   for a person instead of being set aside)
LOOP_ENDS_ALONE = {"loop.review": "when_needed"}

_ASKED: dict[str, Any] = {}


def settings_mark(*asks: dict[str, Any]) -> pytest.MarkDecorator:
    """The `settings` mark of one case of a parametrized test: `pytest.param(...,
    marks=settings_mark(CRITIC_GATE))`."""
    return pytest.mark.settings(**{k: v for ask in asks for k, v in ask.items()})


@pytest.fixture(autouse=True)
def _processes_end_with_their_test() -> Iterator[None]:
    """What a test started (tests/processes.py) is ended when it ends, pass or fail."""
    before = set(processes.SESSIONS)
    yield
    processes.end(processes.SESSIONS - before)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A process of the run still alive at its end fails the run, and is ended."""
    left = processes.end(processes.SESSIONS, children_of=os.getpid())
    if left:
        print("\nprocesses the tests left running (now ended):\n  " + "\n  ".join(left))
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(autouse=True)
def _asked_settings(request: pytest.FixtureRequest) -> Iterator[None]:
    """What the test's `settings` marker asks for, applied by make_settings."""
    marker = request.node.get_closest_marker("settings")
    _ASKED.clear()
    _ASKED.update(marker.kwargs if marker else {})
    yield
    _ASKED.clear()


def make_settings(project: Path, **overrides: Any) -> config.Settings:
    flat = {
        "paths.root": str(project),
        "paths.model_cache": str(project / "models"),
        "log.format": "csv",
        "log.path": "output/runs.csv",
        "retry.initial_seconds": 0.01,
        "retry.max_seconds": 0.02,
    }
    flat.update(_ASKED)
    flat.update(overrides)
    cfg = project / "briefloop.toml"
    if not cfg.exists():
        cfg.write_text("", encoding="utf-8")
    return config.load(cfg, overrides=flat, environ={})


@pytest.fixture
def settings(project: Path, _asked_settings: None) -> config.Settings:
    return make_settings(project)


def write_brief(project: Path, name: str, body: str, **front: Any) -> Path:
    path = project / "briefs" / name
    if front:
        lines = "\n".join(f"{k}: {v}" for k, v in front.items())
        body = f"---\n{lines}\n---\n{body}"
    path.write_text(body, encoding="utf-8")
    return path


# One answer that validates as both a writer and a critic answer (extra keys are
# ignored), so the fake Ollama server need not know which role is asking.
UNIVERSAL = json.dumps(
    {
        "needs_from_human": [],
        "draft": "The office is closed on Friday.",
        "deliberate_deviations": [],
        "must_fix": [],
        "would_improve": [],
        "scores": {"covers_brief": 5, "accuracy": 5, "clarity": 5, "actionable": 5},
    }
)


def ollama_config(
    project: Path,
    base_url: str,
    extra: str = "",
    model_extra: str = "",
    critic_mode: str | None = None,
) -> Path:
    """A config file for `project` whose roles talk to a (fake) Ollama server;
    `model_extra`: more lines of both roles' model tables; `critic_mode`: as for
    make_settings, asked for by a test that needs other than the shipped default."""
    cfg = project / "briefloop.toml"
    model = (
        f'provider = "ollama"\nmodel = "qwen2.5:7b"\nbase_url = "{base_url}"\n'
        f"timeout = 10\n{model_extra}"
    )
    cfg.write_text(
        "[models]\n"
        + (f'critic_mode = "{critic_mode}"\n' if critic_mode else "")
        + f"[models.writer]\n{model}\n[models.critic]\n{model}\n"
        + '[paths]\nroot = "."\n[log]\nformat = "csv"\npath = "output/runs.csv"\n'
        + "[retry]\nattempts = 2\ninitial_seconds = 0.05\n"
        + extra,
        encoding="utf-8",
    )
    return cfg


def briefloop_process(cfg: Path, *args: str) -> subprocess.Popen:
    """A real `briefloop` process (python -m batch), output captured; ended with the
    test that started it, whatever the test did (tests/processes.py)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BRIEFLOOP_")}
    return processes.register(
        subprocess.Popen(
            [sys.executable, "-m", "batch", "--config", str(cfg), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
    )


def query(db: Path, sql: str, *args) -> list[tuple]:
    """Rows from a SQLite file another process writes; [] while it does not exist yet."""
    if not db.exists():
        return []
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return conn.execute(sql, args).fetchall()
    except sqlite3.OperationalError:  # the table is not created yet
        return []


# -- Real PostgreSQL and Redis servers, on loopback (tests/servers.py) --------------
# One of each per session, started on first use; a fresh database (PostgreSQL) or an
# emptied server (Redis) per test. Not installed: the tests skip, but in CI (CI=true)
# they fail, naming the package.


def _require(missing: str | None) -> None:
    if missing:
        if os.environ.get("CI") == "true":
            pytest.fail(missing, pytrace=False)
        pytest.skip(missing)


@pytest.fixture(scope="session")
def postgres_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PostgresServer]:
    """A PostgreSQL server for the session: superuser `briefloop`, trust authentication."""
    _require(PostgresServer.missing())
    with PostgresServer(tmp_path_factory.mktemp("postgres")) as server:
        yield server


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """A Redis server for the session, its append-only file fsynced on every write."""
    _require(RedisServer.missing())
    with RedisServer(tmp_path_factory.mktemp("redis")) as server:
        yield server


_databases = itertools.count(1)


@pytest.fixture
def pg_dsn(postgres_server: PostgresServer, request: pytest.FixtureRequest) -> Iterator[str]:
    """postgresql://briefloop@127.0.0.1:PORT/NAME of a fresh empty database, dropped after
    the test. (The server is started again if a test left it stopped.)"""
    slug = re.sub(r"[^a-z0-9]+", "_", request.node.name.lower()).strip("_")
    name = f"t{next(_databases)}_{slug}"[:63]
    postgres_server.start()
    dsn = postgres_server.create_database(name)
    yield dsn
    postgres_server.start()
    postgres_server.drop_database(name)


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """redis://127.0.0.1:PORT/0 of the session's Redis, emptied for this test. (It is
    started again if a test left it stopped.)"""
    redis_server.start()
    redis_server.flush()
    return redis_server.url


# -- a real local webhook server (the message after a batch) --------------------------


@pytest.fixture
def webhook(monkeypatch):
    """(url, the JSON bodies POSTed to it so far) of a webhook server on loopback."""
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(var, raising=False)
    received: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - the http.server interface
            received.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/hook", received
    server.shutdown()


def run_checks(*args, **kw):
    """The registry's findings on a draft, the context given as CheckContext's fields."""
    from batch.judging import checks

    return checks.judge(checks.CheckContext(*args, **kw)).findings


def csv_log_config(project: Path) -> Path:
    """A config file for `project` with its run log in output/runs.csv: what the CLI
    reads in tests that drive it."""
    cfg = project / "briefloop.toml"
    cfg.write_text('[paths]\nroot = "."\n[log]\nformat = "csv"\npath = "output/runs.csv"\n')
    return cfg


def run_one(project: Path, brief: str, text: str, brief_id: str, **settings_overrides):
    """One brief run to its end by a writer that answers `text` and a critic that gives
    full marks, the project's paths its own: (settings, models, the brief's result)."""
    from batch.run.runner import Runner

    settings = make_settings(project, **{"paths.root": str(project), **settings_overrides})
    write_brief(project, f"{brief_id}.md", brief, id=brief_id)
    models = {
        "writer": ScriptedModel([writer_answer(text)]),
        "critic": ScriptedModel([critic_answer(5)]),
    }
    with Runner(settings, models=models, strict=True) as runner:
        [result] = runner.run(project / "briefs").results
    return settings, models, result
