"""The real PostgreSQL and Redis servers the cluster tests run against (tests/servers.py):
they answer on loopback, keep their data across a restart and a SIGKILL, come back on the
same port, and leave nothing running."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from conftest import _require
from servers import PostgresServer, RedisServer, _descendants, _state

cluster = pytest.mark.cluster


def query(server: PostgresServer, dsn: str, sql: str) -> list[tuple[str, ...]]:
    """Rows (as strings) through the DSN: with psycopg when it is installed, else psql."""
    try:
        import psycopg
    except ImportError:
        out = subprocess.run(
            [
                str(server.bindir / "psql"),
                "-X",
                "-q",
                "-A",
                "-t",
                "-v",
                "ON_ERROR_STOP=1",
                "-d",
                dsn,
                "-c",
                sql,
            ],
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        ).stdout
        return [tuple(line.split("|")) for line in out.splitlines()]
    with psycopg.connect(dsn, autocommit=True) as conn:
        cur = conn.execute(sql)
        return [tuple(str(v) for v in row) for row in cur.fetchall()] if cur.description else []


def refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    except ConnectionRefusedError:
        return True
    return False


def closed_by_server(client: socket.socket) -> bool:
    """Whether the server's end of this connection is gone (end of file, or a reset)."""
    try:
        return client.recv(1) == b""
    except ConnectionResetError:
        return True
    finally:
        client.close()


def uid_of(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("Uid:")).split()[1])


def alive(pids: list[int]) -> list[int]:
    return [p for p in pids if _state(p) not in (None, "Z")]


# -- PostgreSQL -----------------------------------------------------------------------


@cluster
def test_postgres_answers_on_loopback_as_briefloop(postgres_server: PostgresServer):
    dsn = postgres_server.dsn
    assert dsn == f"postgresql://briefloop@127.0.0.1:{postgres_server.port}/briefloop"
    assert query(postgres_server, dsn, "SELECT current_user, current_database()") == [
        ("briefloop", "briefloop")
    ]
    settings = dict(
        query(
            postgres_server,
            dsn,
            "SELECT name, setting FROM pg_settings WHERE "
            "name IN ('listen_addresses', 'fsync', 'max_connections')",
        )
    )
    assert settings == {"listen_addresses": "127.0.0.1", "fsync": "off", "max_connections": "200"}
    assert query(postgres_server, dsn, "SHOW server_encoding") == [("UTF8",)]


@cluster
def test_postgres_does_not_run_as_root(postgres_server: PostgresServer):
    uid = uid_of(postgres_server.proc.pid)
    datadir_owner = postgres_server.datadir.stat().st_uid
    if os.geteuid() == 0:
        assert uid != 0
        assert datadir_owner == uid
    else:
        assert uid == datadir_owner == os.geteuid()


@cluster
@pytest.mark.parametrize("run", [1, 2])
def test_each_test_has_a_fresh_database(postgres_server: PostgresServer, pg_dsn: str, run):
    assert query(
        postgres_server, pg_dsn, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"
    ) == [("0",)]
    query(postgres_server, pg_dsn, "CREATE TABLE leftover (n int)")


@cluster
def test_a_database_is_dropped_with_clients_still_connected(postgres_server: PostgresServer):
    dsn = postgres_server.create_database("held_open")
    client = subprocess.Popen(
        [str(postgres_server.bindir / "psql"), "-X", "-d", dsn, "-c", "SELECT pg_sleep(60)"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while not postgres_server.sql(
            "SELECT 1 FROM pg_stat_activity WHERE datname = 'held_open'"
        ).strip():
            assert client.poll() is None
        postgres_server.drop_database("held_open")
        assert client.wait(10) != 0  # its backend was terminated
    finally:
        client.kill()
        client.wait()
    assert not postgres_server.sql("SELECT 1 FROM pg_database WHERE datname = 'held_open'")


@cluster
def test_a_row_survives_a_postgres_restart(postgres_server: PostgresServer, pg_dsn: str):
    query(postgres_server, pg_dsn, "CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)")
    port = postgres_server.port

    postgres_server.restart()

    assert postgres_server.port == port
    assert query(postgres_server, pg_dsn, "SELECT n FROM kept") == [("7",)]


@cluster
def test_postgres_killed_comes_back_on_its_port_with_committed_rows(
    postgres_server: PostgresServer, pg_dsn: str
):
    query(postgres_server, pg_dsn, "CREATE TABLE kept (n int); INSERT INTO kept VALUES (8)")
    port = postgres_server.port
    client = socket.create_connection(("127.0.0.1", port), timeout=5)
    pids = [postgres_server.proc.pid, *_descendants(postgres_server.proc.pid)]
    assert len(pids) > 1  # the postmaster and its background processes

    postgres_server.kill()

    assert not postgres_server.running
    assert alive(pids) == []  # backends included: nothing holds the data folder
    assert closed_by_server(client)
    assert refused(port)

    postgres_server.start()

    assert postgres_server.port == port
    assert query(postgres_server, pg_dsn, "SELECT n FROM kept") == [("8",)]


@cluster
def test_a_private_postgres_leaves_nothing_behind(tmp_path: Path):
    with PostgresServer(tmp_path) as server:
        assert query(server, server.create_database("extra"), "SELECT 1") == [("1",)]
        pids = [server.proc.pid, *_descendants(server.proc.pid)]
        scratch = server.scratch
    assert alive(pids) == []
    assert refused(server.port)
    if scratch is not None:  # as root: a folder of its own, which PostgreSQL's user reaches
        assert not scratch.exists()
    assert "database system is shut down" in server.log.read_text()


# -- Redis ----------------------------------------------------------------------------


def raw(url: str, *lines: bytes) -> bytes:
    """Send inline commands to the Redis of `url` over a plain socket; all it answers."""
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=5) as s:
        s.sendall(b"".join(line + b"\r\n" for line in lines) + b"QUIT\r\n")
        answer = b""
        while chunk := s.recv(4096):
            answer += chunk
    return answer


@cluster
def test_redis_answers_on_loopback(redis_server: RedisServer, redis_url: str):
    assert redis_url == f"redis://127.0.0.1:{redis_server.port}/0"
    assert raw(redis_url, b"PING", b"SET greeting hello", b"GET greeting") == (
        b"+PONG\r\n+OK\r\n$5\r\nhello\r\n+OK\r\n"
    )
    assert redis_server.command("GET", "greeting") == b"hello"
    assert redis_server.command("CONFIG", "GET", "appendonly") == [b"appendonly", b"yes"]


@cluster
@pytest.mark.parametrize("run", [1, 2])
def test_each_test_has_an_empty_redis(redis_server: RedisServer, redis_url: str, run):
    assert redis_server.command("DBSIZE") == 0
    redis_server.command("RPUSH", "queue", "left over")


@cluster
@pytest.mark.parametrize("how", ["restart", "kill"])
def test_a_queued_message_survives_a_redis_restart(
    redis_server: RedisServer, redis_url: str, how: str
):
    redis_server.command("RPUSH", "queue", "message 1", "message 2")
    port = redis_server.port

    if how == "kill":
        client = socket.create_connection(("127.0.0.1", port), timeout=5)
        redis_server.kill()
        assert closed_by_server(client)
        assert refused(port)
        redis_server.start()
    else:
        redis_server.restart()

    assert redis_server.port == port
    assert redis_server.command("LRANGE", "queue", 0, -1) == [b"message 1", b"message 2"]


@cluster
def test_a_private_redis_leaves_nothing_behind(tmp_path: Path):
    with RedisServer(tmp_path) as server:
        server.command("SET", "k", "v", db=2)
        assert server.command("GET", "k", db=2) == b"v"
        pid = server.proc.pid
    assert _state(pid) is None
    assert refused(server.port)


# -- When a server is not installed -------------------------------------------------------


def test_missing_servers_say_how_to_install(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr("servers.shutil.which", lambda name: None)
    monkeypatch.setattr("servers.glob.glob", lambda pattern: [])

    assert "apt-get install postgresql" in PostgresServer.missing()
    assert "apt-get install redis-server" in RedisServer.missing()


def test_a_missing_server_skips_locally_and_fails_in_ci(monkeypatch: pytest.MonkeyPatch):
    _require(None)

    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install"):
        _require("Redis server not found: apt-get install redis-server")

    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="apt-get install"):
        _require("Redis server not found: apt-get install redis-server")
