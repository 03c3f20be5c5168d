"""Real PostgreSQL and Redis servers for the tests: on 127.0.0.1, on a free port, with
their data in a temporary folder.

Each server is the test process's own child (not a daemon), so `kill()` can SIGKILL it
and reap it, and `restart()` brings it back on the same port and data folder for the
clients to reconnect to. PostgreSQL refuses to run as root: as root, its data folder is
owned by the `postgres` system user (else `nobody`) and its programs run as that user.
Whatever is still running when the interpreter exits is stopped then, and a server whose
parent dies without that (SIGKILL) gets SIGKILL too (PR_SET_PDEATHSIG: the parent is the
thread that started it, so start servers from the main thread or one that outlives them).
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import glob
import itertools
import os
import pwd
import re
import shutil
import signal
import socket
import stat
import subprocess
import tempfile
import time
from pathlib import Path

HOST = "127.0.0.1"
START_TIMEOUT = 30.0
STOP_TIMEOUT = 30.0

_live: set[_Server] = set()  # not closed yet: closed at exit


def free_port() -> int:
    """A TCP port on loopback that nothing listens on right now."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def _log_tail(path: Path, lines: int = 25) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return f"(no log at {path})"
    return "\n".join(text.splitlines()[-lines:]) or f"(empty log at {path})"


try:
    _prctl = ctypes.CDLL(None, use_errno=True).prctl  # Linux
except (OSError, AttributeError):
    _prctl = None
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER, PR_GET_CHILD_SUBREAPER = 1, 36, 37


def _die_with_parent():
    """Run in the child between fork and exec (after the switch to the server's user,
    which would clear it): SIGKILL when the thread that started it ends."""
    if _prctl is None:
        return None
    prctl = _prctl

    def preexec() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)

    return preexec


@contextlib.contextmanager
def _subreaper():
    """While in it, the orphans of our children become ours, not init's: then they can
    be reaped. (Some containers' init never reaps, and a zombie keeps its PID.) Yields
    whether that worked."""
    was = ctypes.c_int(0)
    if _prctl is None or _prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(was)) != 0:
        yield False
        return
    if was.value:
        yield True
        return
    ok = _prctl(PR_SET_CHILD_SUBREAPER, 1) == 0
    try:
        yield ok
    finally:
        if ok:
            _prctl(PR_SET_CHILD_SUBREAPER, 0)


class ServerError(RuntimeError):
    """A server did not start or stop; the message ends with its log's last lines."""


class _PortTaken(ServerError):
    """Someone else listens on the port."""


class _Server:
    """A server process: the test process's child, on HOST:port."""

    name = "server"

    def __init__(self, folder: str | os.PathLike, port: int | None = None):
        self.folder = Path(folder).absolute()
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        # A port we picked may be taken before the server binds it: then it picks another,
        # on its first start only (after that, clients know the port).
        self._may_move = port is None
        _live.add(self)
        self.proc: subprocess.Popen | None = None
        self.log = self.folder / f"{self.name}.log"

    # -- to be filled in ------------------------------------------------------------
    def _popen(self) -> subprocess.Popen:
        raise NotImplementedError

    def _ready(self) -> bool:
        raise NotImplementedError

    def _stop_signal(self) -> int:
        return signal.SIGTERM

    # -- life cycle -------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> None:
        if self.running:
            return
        for attempt in range(3):
            try:
                self._start()
                break
            except _PortTaken:
                if not self._may_move or attempt == 2:
                    raise
                self.port = free_port()
        self._may_move = False

    def _start(self) -> None:
        with open(self.log, "ab") as log:
            log.write(f"--- {time.strftime('%H:%M:%S')} starting on port {self.port}\n".encode())
        self.proc = self._popen()
        _live.add(self)
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if self.proc.poll() is not None:
                code = self.proc.returncode
                self.proc = None
                tail = _log_tail(self.log)
                error = _PortTaken if "Address already in use" in tail else ServerError
                raise error(
                    f"{self.name} on port {self.port} exited with {code} while "
                    f"starting; {self.log}:\n{tail}"
                )
            if self._ready():
                return
            if time.monotonic() > deadline:
                self.kill()
                raise ServerError(
                    f"{self.name} on port {self.port} not ready after "
                    f"{START_TIMEOUT:.0f}s; {self.log}:\n{_log_tail(self.log)}"
                )
            time.sleep(0.02)

    def stop(self) -> None:
        """A clean shutdown; SIGKILL if it takes longer than STOP_TIMEOUT."""
        if not self.running:
            self.proc = None
            return
        assert self.proc is not None
        self.proc.send_signal(self._stop_signal())
        try:
            self.proc.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.kill()
            raise ServerError(
                f"{self.name} on port {self.port} did not stop within "
                f"{STOP_TIMEOUT:.0f}s; killed; {self.log}:\n"
                f"{_log_tail(self.log)}"
            ) from None
        self.proc = None

    def kill(self) -> None:
        """SIGKILL to the server and the processes it started, as in a crash: no
        shutdown, no goodbye to the clients. Returns once they are all gone (until then
        a new PostgreSQL would refuse the data folder: its shared memory still in use;
        left alone, PostgreSQL's backends, each in a session of its own, would exit only
        when they next notice the postmaster's death)."""
        if self.proc is None:
            return
        pid = self.proc.pid
        deadline = time.monotonic() + STOP_TIMEOUT
        with _subreaper() as reaping:
            if self.proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGSTOP)  # it starts no more processes
                while _state(pid) not in ("T", None) and time.monotonic() < deadline:
                    time.sleep(0.001)
            family = _descendants(pid)
            for other in family:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(other, signal.SIGKILL)
            self.proc.kill()
            self.proc.wait()
            self.proc = None
            # Now orphans: ours to reap if we are their subreaper, else init's.
            for other in family:
                while reaping:
                    try:
                        if os.waitpid(other, os.WNOHANG)[0]:
                            break
                    except ChildProcessError:
                        break
                    if time.monotonic() > deadline:
                        break
                    time.sleep(0.002)
        for other in family:
            while _state(other) not in ("Z", None):
                if time.monotonic() > deadline:
                    raise ServerError(f"{self.name}: process {other} outlived SIGKILL")
                time.sleep(0.005)

    def restart(self, kill: bool = False) -> None:
        """Stop (or with kill=True SIGKILL) and start again on the same port and data."""
        self.kill() if kill else self.stop()
        self.start()

    def close(self) -> None:
        """Stop, and SIGKILL if stopping fails: nothing is left running."""
        try:
            self.stop()
        finally:
            self.kill()
            _live.discard(self)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"<{type(self).__name__} {HOST}:{self.port} {state} in {self.folder}>"


def _state(pid: int) -> str | None:
    """A process's state letter (R, S, T, Z...), None when there is no such process."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()[0]


def _descendants(pid: int) -> list[int]:
    """The processes `pid` started, and theirs."""
    children: dict[int, list[int]] = {}
    for path in glob.glob("/proc/[0-9]*/stat"):
        try:
            text = Path(path).read_text()
        except OSError:
            continue
        ppid = int(text[text.rindex(")") + 2 :].split()[1])
        children.setdefault(ppid, []).append(int(Path(path).parent.name))
    found, todo = [], [pid]
    while todo:
        kids = children.get(todo.pop(), [])
        found += kids
        todo += kids
    return found


@atexit.register
def _close_all() -> None:
    for server in list(_live):
        with contextlib.suppress(Exception):
            server.close()


# -- PostgreSQL ---------------------------------------------------------------------


def query(dsn: str, sql: str) -> list[tuple]:
    """The rows of one SQL statement on the database at `dsn` (a fresh connection)."""
    import sqlalchemy as sa

    from batch.store.backends import sqlalchemy_url

    engine = sa.create_engine(sqlalchemy_url(dsn))
    try:
        with engine.connect() as conn:
            return [tuple(r) for r in conn.execute(sa.text(sql))]
    finally:
        engine.dispose()


def _postgres_bindir() -> Path | None:
    """The folder with initdb, postgres and psql: initdb's on PATH (symlinks followed),
    else Debian's /usr/lib/postgresql/VERSION/bin, the highest version."""
    needed = ("initdb", "postgres", "psql")
    candidates = []
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(Path(os.path.realpath(on_path)).parent)

    def version(path: str) -> tuple[int, ...]:
        return tuple(int(n) for n in re.findall(r"\d+", Path(path).parent.name))

    candidates += [
        Path(p) for p in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=version, reverse=True)
    ]
    for folder in candidates:
        if all(os.access(folder / n, os.X_OK) for n in needed):
            return folder
    return None


def _postgres_user() -> pwd.struct_passwd | None:
    """Who runs PostgreSQL: None when we are not root, else the `postgres` system user
    (Debian's package makes it), else `nobody`."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(name)
    raise ServerError(
        "running as root, and neither a `postgres` nor a `nobody` user exists "
        "to run PostgreSQL as (it refuses root): useradd --system postgres"
    )


def _clean_env() -> dict[str, str]:
    """The environment without PG* variables that could point a client elsewhere."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    env.update(LC_ALL="C.UTF-8", LANG="C.UTF-8")
    return env


_MAX_SOCKET_PATH = 107 - len("/.s.PGSQL.65535")


class PostgresServer(_Server):
    """PostgreSQL with trust authentication for the superuser `briefloop`, and a database
    `briefloop`. `dsn` is postgresql://briefloop@127.0.0.1:PORT/briefloop."""

    name = "postgres"
    user = "briefloop"
    database = "briefloop"
    _names = itertools.count(1)

    @classmethod
    def missing(cls) -> str | None:
        if _postgres_bindir() is None:
            return (
                "PostgreSQL server not found (initdb, postgres and psql, on PATH or in "
                "/usr/lib/postgresql/VERSION/bin): apt-get install postgresql "
                "(or run .ci/run)"
            )
        return None

    def __init__(self, folder: str | os.PathLike, port: int | None = None):
        bindir = _postgres_bindir()
        if bindir is None:
            raise ServerError(self.missing())
        self.bindir = bindir
        super().__init__(folder, port)
        self.owner = _postgres_user()
        self.scratch: Path | None = None  # a folder of our own when `folder` will not do
        self.datadir = self._make_datadir()
        self._has_database = False  # known to have the database `briefloop`

    # -- where the data goes ---------------------------------------------------------
    def _as_owner(self) -> dict:
        """subprocess arguments that run a program as the data folder's owner."""
        if self.owner is None:
            return {}
        return {"user": self.owner.pw_uid, "group": self.owner.pw_gid, "extra_groups": []}

    def _owner_can_enter(self, folder: Path) -> bool:
        """Whether the owner may pass through `folder` and every folder above it (by the
        mode bits; the owner runs with its own group only, see _as_owner)."""
        if self.owner is None:
            return True
        for place in (folder, *folder.parents):
            st = place.stat()
            if st.st_uid == self.owner.pw_uid:
                bit = stat.S_IXUSR
            elif st.st_gid == self.owner.pw_gid:
                bit = stat.S_IXGRP
            else:
                bit = stat.S_IXOTH
            if not st.st_mode & bit:
                return False
        return True

    def _make_datadir(self) -> Path:
        # The data folder holds the Unix socket too, whose path has a length limit; and
        # as root, PostgreSQL's user must be able to reach it (pytest's folders under
        # /tmp/pytest-of-root are 0700). Else the data goes in a folder of our own.
        datadir = self.folder / "data"
        if len(str(datadir)) > _MAX_SOCKET_PATH or not self._owner_can_enter(self.folder):
            self.scratch = Path(tempfile.mkdtemp(prefix="briefloop-pg-"))
            self.scratch.chmod(0o711)  # its owner, root, keeps it; PostgreSQL passes through
            datadir = self.scratch / "data"
            if not self._owner_can_enter(self.scratch):
                raise ServerError(
                    f"{self.owner.pw_name} cannot reach {self.scratch}: "
                    f"make {tempfile.gettempdir()} world-searchable or set TMPDIR"
                )
        datadir.mkdir(mode=0o700, exist_ok=True)
        if self.owner is not None:
            os.chown(datadir, self.owner.pw_uid, self.owner.pw_gid)
        return datadir

    # -- server ------------------------------------------------------------------------
    def _run(self, *cmd: str) -> str:
        result = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            env=_clean_env(),
            cwd=self.datadir,
            **self._as_owner(),
        )
        if result.returncode:
            raise ServerError(
                f"{' '.join(cmd)} failed ({result.returncode}):\n{result.stdout}{result.stderr}"
            )
        return result.stdout

    def start(self) -> None:
        if self.running:
            return
        if not (self.datadir / "PG_VERSION").exists():
            self._run(
                str(self.bindir / "initdb"),
                "-D",
                str(self.datadir),
                "-A",
                "trust",
                "-U",
                self.user,
                "--no-sync",
                "-E",
                "UTF8",
                "--locale=C.UTF-8",
            )
        super().start()
        if not self._has_database:
            if not self.sql(
                f"SELECT 1 FROM pg_database WHERE datname = '{self.database}'", database="postgres"
            ).strip():
                self.sql(f'CREATE DATABASE "{self.database}"', database="postgres")
            self._has_database = True

    def _popen(self) -> subprocess.Popen:
        with open(self.log, "ab") as log:
            return subprocess.Popen(
                [
                    str(self.bindir / "postgres"),
                    "-D",
                    str(self.datadir),
                    "-k",
                    str(self.datadir),
                    "-p",
                    str(self.port),
                    "-c",
                    f"listen_addresses={HOST}",
                    "-c",
                    "fsync=off",
                    "-c",
                    "max_connections=200",
                ],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=_clean_env(),
                cwd=self.datadir,
                start_new_session=True,
                preexec_fn=_die_with_parent(),
                **self._as_owner(),
            )

    def _ready(self) -> bool:
        # What `pg_ctl -w` waits for: postmaster.pid naming this process, status "ready".
        # (After a kill the file left behind names the dead one.)
        try:
            lines = (self.datadir / "postmaster.pid").read_text().splitlines()
        except OSError:
            return False
        if len(lines) < 8 or lines[0].strip() != str(self.proc.pid):
            return False
        return lines[7].strip() == "ready"

    def _stop_signal(self) -> int:
        return signal.SIGINT  # "fast" shutdown: clients are disconnected, not waited for

    def close(self) -> None:
        try:
            super().close()
        finally:
            if self.scratch is not None:
                shutil.rmtree(self.scratch, ignore_errors=True)
                self.scratch = None

    # -- clients -----------------------------------------------------------------------
    def dsn_for(self, database: str) -> str:
        return f"postgresql://{self.user}@{HOST}:{self.port}/{database}"

    @property
    def dsn(self) -> str:
        return self.dsn_for(self.database)

    def sql(self, sql: str, database: str | None = None) -> str:
        """Run SQL with psql; its output unaligned, tuples only (`|` between columns)."""
        result = subprocess.run(
            [
                str(self.bindir / "psql"),
                "-X",
                "-q",
                "-A",
                "-t",
                "-v",
                "ON_ERROR_STOP=1",
                "-h",
                HOST,
                "-p",
                str(self.port),
                "-U",
                self.user,
                "-d",
                database or self.database,
                "-f",
                "-",
            ],
            input=sql,
            capture_output=True,
            text=True,
            env=_clean_env(),
            timeout=60,
        )
        if result.returncode:
            raise ServerError(
                f"psql on port {self.port} failed ({result.returncode}): "
                f"{result.stderr.strip()}\nSQL: {sql}"
            )
        return result.stdout

    def create_database(self, name: str | None = None) -> str:
        """A fresh empty database (named `name`, else a new name); its DSN."""
        name = name or f"test_{next(self._names)}"
        if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", name):
            raise ValueError(f"database name {name!r}: lowercase letters, digits, _")
        self.sql(f'CREATE DATABASE "{name}"', database="postgres")
        return self.dsn_for(name)

    def drop_database(self, name: str) -> None:
        """Drop it, disconnecting whoever is still connected."""
        self.sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)', database="postgres")


# -- Redis --------------------------------------------------------------------------


def _resp(*args: str | bytes | int) -> bytes:
    parts = [f"*{len(args)}\r\n".encode()]
    for arg in args:
        data = arg if isinstance(arg, bytes) else str(arg).encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(parts)


class RedisServer(_Server):
    """Redis with an append-only file fsynced on every write, so what was written
    survives a restart, a SIGKILL too. `url` is redis://127.0.0.1:PORT/0."""

    name = "redis"

    @classmethod
    def missing(cls) -> str | None:
        if shutil.which("redis-server") is None:
            return (
                "Redis server not found (redis-server on PATH): apt-get install "
                "redis-server (or run .ci/run)"
            )
        return None

    def __init__(self, folder: str | os.PathLike, port: int | None = None):
        binary = shutil.which("redis-server")
        if binary is None:
            raise ServerError(self.missing())
        self.binary = binary
        super().__init__(folder, port)

    def _popen(self) -> subprocess.Popen:
        with open(self.log, "ab") as log:
            return subprocess.Popen(
                [
                    self.binary,
                    "--port",
                    str(self.port),
                    "--bind",
                    HOST,
                    "--dir",
                    str(self.folder),
                    "--save",
                    "",
                    "--appendonly",
                    "yes",
                    "--appendfsync",
                    "always",
                    "--daemonize",
                    "no",
                ],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=self.folder,
                start_new_session=True,
                preexec_fn=_die_with_parent(),
            )

    def _ready(self) -> bool:
        # PING answers -LOADING while the append-only file is read back.
        try:
            return self.command("PING", timeout=1) == "PONG"
        except (OSError, RedisReplyError):
            return False

    def url_for(self, db: int = 0) -> str:
        return f"redis://{HOST}:{self.port}/{db}"

    @property
    def url(self) -> str:
        return self.url_for(0)

    def command(self, *args: str | bytes | int, db: int = 0, timeout: float = 10):
        """One command over a fresh connection (to database `db`), without the `redis`
        package: its reply as str (status), bytes (bulk string), int, list or None;
        an error reply raises RedisReplyError."""
        with (
            socket.create_connection((HOST, self.port), timeout=timeout) as s,
            s.makefile("rb") as replies,
        ):
            if db:
                s.sendall(_resp("SELECT", db))
                _read_reply(replies)
            s.sendall(_resp(*args))
            return _read_reply(replies)

    def flush(self) -> None:
        """Empty all databases."""
        self.command("FLUSHALL")


class RedisReplyError(Exception):
    """Redis answered a command with an error."""


def _read_reply(replies) -> str | bytes | int | list | None:
    line = replies.readline()
    if not line.endswith(b"\r\n"):
        raise ConnectionError("redis closed the connection")
    kind, rest = line[:1], line[1:-2]
    if kind == b"+":
        return rest.decode()
    if kind == b"-":
        raise RedisReplyError(rest.decode())
    if kind == b":":
        return int(rest)
    if kind == b"$":
        size = int(rest)
        return None if size < 0 else replies.read(size + 2)[:-2]
    if kind == b"*":
        size = int(rest)
        return None if size < 0 else [_read_reply(replies) for _ in range(size)]
    raise ConnectionError(f"not a RESP reply: {line!r}")
