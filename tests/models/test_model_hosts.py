"""A pool of Ollama hosts: calls spread by load, failed hosts rested and skipped, the
host of each call recorded. Real HTTP to one FakeOllama per host."""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest

from batch import config
from batch.config import Models, ModelSettings
from batch.errors import ConfigError, ModelNotFound, ModelUnavailable
from batch.loop.answers import WriterAnswer
from batch.models.base import CallStat, Completion, ask
from batch.models.hosts import HostPool, PooledModel
from batch.models.ollama import build_ollama
from batch.models.pool import ModelSet

from fake_ollama import FakeOllama, http_error

MODEL = "qwen2.5:7b"
MESSAGES = [{"role": "user", "content": "Write a memo announcing the new on-call rota."}]
VALID = json.dumps(
    {"draft": "# Rota\n\nWeekly from Monday.", "deliberate_deviations": [], "needs_from_human": []}
)
SCHEMA = WriterAnswer.model_json_schema()


def pooled(base_url: str | list, **overrides: object) -> PooledModel:
    values: dict[str, object] = {
        "provider": "ollama",
        "model": MODEL,
        "base_url": base_url,
        "timeout": 5.0,
        "num_ctx": 2048,
        "max_tokens": 300,
    }
    values.update(overrides)
    return build_ollama(ModelSettings(**values))


def call(model: PooledModel) -> Completion:
    return model.complete(MESSAGES, SCHEMA)


def concurrently(model: PooledModel, n: int) -> list[Completion]:
    with ThreadPoolExecutor(n) as pool:
        return list(pool.map(lambda _: call(model), range(n)))


def dead_url() -> str:
    with FakeOllama() as fake:
        return fake.base_url  # closed on leaving: nothing listens there now


# -- spreading the calls ----------------------------------------------------------------


def test_calls_go_to_the_least_busy_host_and_never_past_max_parallel():
    with FakeOllama(default=VALID, latency=0.3) as a, FakeOllama(default=VALID, latency=0.3) as b:
        model = pooled([a.base_url, b.base_url], max_parallel=3)

        first = concurrently(model, 4)  # a, b, a, b (the first free would be a, a, a, b)
        assert (a.chat_count, b.chat_count) == (2, 2)

        started = time.monotonic()
        more = concurrently(model, 10)  # 6 slots: the other 4 wait for one
        elapsed = time.monotonic() - started

    assert (a.peak_parallel, b.peak_parallel) == (3, 3)
    assert a.chat_count + b.chat_count == 14
    assert elapsed >= 0.55  # two waves of 0.3 s
    assert Counter(c.host for c in first + more) == {
        a.base_url: a.chat_count,
        b.base_url: b.chat_count,
    }


def test_busy_means_in_flight_over_max_parallel_set_per_host():
    with FakeOllama(default=VALID, latency=0.3) as a, FakeOllama(default=VALID, latency=0.3) as b:
        model = pooled([{"url": a.base_url, "max_parallel": 2}, b.base_url], max_parallel=4)
        concurrently(model, 3)  # a, b, then b again: 1/4 busy is less than 1/2

    assert (a.chat_count, b.chat_count) == (1, 2)


def test_acquire_waits_for_a_free_slot_then_gives_up_at_the_timeout():
    pool = HostPool([("http://a", 1), ("http://b", 1)], cooldown=30)
    a, b = pool.acquire(1), pool.acquire(1)
    assert (a.url, b.url) == ("http://a", "http://b")

    got: list[str] = []
    waiter = threading.Thread(target=lambda: got.append(pool.acquire(5).url))
    waiter.start()
    time.sleep(0.05)
    assert got == []  # both full: it waits
    pool.release(b, failed=False)
    waiter.join(2)
    assert got == ["http://b"]

    started = time.monotonic()
    with pytest.raises(ModelUnavailable, match="no host had a free slot within 0.1s"):
        pool.acquire(0.1)
    assert 0.09 <= time.monotonic() - started < 1


# -- failing hosts ----------------------------------------------------------------------


def test_a_stopped_host_is_rested_and_the_call_goes_to_the_other():
    with FakeOllama(default=VALID) as live:
        model = pooled([dead_url(), live.base_url], cooldown_seconds=30)
        stats: list[CallStat] = []

        for _ in range(3):  # no error reaches the caller
            ask(model, "writer", MESSAGES, WriterAnswer, stats)

    dead = model.pool.hosts[0]
    assert dead.resting_until > time.monotonic()
    assert live.chat_count == 3
    assert [s.host for s in stats] == [live.base_url] * 3


def test_a_host_that_comes_back_is_used_again_after_the_cooldown():
    with FakeOllama(default=VALID) as first, FakeOllama(default=VALID) as other:
        port, url = int(first.base_url.rsplit(":", 1)[1]), first.base_url
        model = pooled([url, other.base_url], cooldown_seconds=0.3)
        assert call(model).host == url
        first.close()

        assert call(model).host == other.base_url  # refused: rested, the other answers
        with FakeOllama(default=VALID, port=port) as restarted:
            assert call(model).host == other.base_url  # still resting, not even tried
            assert restarted.chat_count == 0
            time.sleep(0.35)
            assert call(model).host == url  # back: first again, as the first listed
            assert restarted.chat_count == 1


def test_a_failed_call_is_tried_once_on_each_other_host():
    with (
        FakeOllama([http_error(503, "overloaded")], default=VALID) as a,
        FakeOllama([http_error(500, "boom")], default=VALID) as b,
        FakeOllama(default=VALID) as c,
    ):
        model = pooled([a.base_url, b.base_url, c.base_url], cooldown_seconds=30)

        assert call(model).host == c.base_url
        assert (a.chat_count, b.chat_count, c.chat_count) == (1, 1, 1)
        assert call(model).host == c.base_url  # a and b rest
        assert (a.chat_count, b.chat_count, c.chat_count) == (1, 1, 2)


def test_all_hosts_down_is_model_unavailable_naming_each():
    urls = [dead_url(), dead_url()]
    # the second call waits what is left of the cooldown; long enough that a loaded
    # machine's slow refusal is still told apart from waiting it out
    model = pooled(urls, cooldown_seconds=1.5)
    stats: list[CallStat] = []

    started = time.monotonic()
    with pytest.raises(ModelUnavailable, match="all 2 hosts tried failed") as e:
        ask(model, "writer", MESSAGES, WriterAnswer, stats)
    assert time.monotonic() - started < 0.75  # at once, not after a cooldown
    assert all(url in str(e.value) for url in urls)
    assert stats == []

    # Both rest now: the next call waits for the first back, then tries again.
    started = time.monotonic()
    with pytest.raises(ModelUnavailable, match="cannot reach"):
        call(model)
    assert time.monotonic() - started >= 0.6


def test_every_host_resting_past_the_timeout_fails_at_once():
    model = pooled([dead_url(), dead_url()], cooldown_seconds=60, timeout=1.0)
    with pytest.raises(ModelUnavailable):
        call(model)

    started = time.monotonic()
    with pytest.raises(ModelUnavailable, match="every host is resting"):
        call(model)
    assert time.monotonic() - started < 0.5


def test_one_host_is_never_rested_the_graphs_backoff_paces_it():
    with FakeOllama([http_error(503, "overloaded")], default=VALID) as only:
        model = pooled(only.base_url, cooldown_seconds=30)
        with pytest.raises(ModelUnavailable, match="answered 503: overloaded"):
            call(model)
        started = time.monotonic()
        assert call(model).host == only.base_url
        assert time.monotonic() - started < 1


def test_a_host_without_the_model_is_rested_and_its_calls_go_to_another():
    with FakeOllama(models=["llama3.2:3b"]) as a, FakeOllama(default=VALID) as b:
        model = pooled([a.base_url, b.base_url], cooldown_seconds=30)
        first, second = call(model), call(model)
    assert (first.host, second.host) == (b.base_url, b.base_url)
    assert a.chat_count == 1  # tried once, then rested: the second call went to b alone
    assert model.pool.hosts[0].resting_until > time.monotonic()
    assert [h.in_flight for h in model.pool.hosts] == [0, 0]


def test_no_host_with_the_model_is_not_found_and_not_retried():
    with FakeOllama(models=["llama3.2:3b"]) as a, FakeOllama(models=["llama3.2:3b"]) as b:
        model = pooled([a.base_url, b.base_url])
        with pytest.raises(ModelNotFound, match="all 2 hosts tried failed.*ollama pull"):
            call(model)
        with (
            FakeOllama(models=["llama3.2:3b"]) as only,
            pytest.raises(ModelNotFound, match="does not have model"),
        ):
            call(pooled(only.base_url))
    assert (a.chat_count, b.chat_count) == (1, 1)


def test_a_host_down_and_one_without_the_model_may_yet_answer_so_unavailable():
    with FakeOllama(models=["llama3.2:3b"]) as a:
        model = pooled([a.base_url, dead_url()])
        with pytest.raises(ModelUnavailable, match="all 2 hosts tried failed"):
            call(model)


# -- what is recorded and shared --------------------------------------------------------


def test_the_host_reaches_completion_call_stat_and_the_states_call_dict():
    with FakeOllama(default=VALID) as server:
        url = server.base_url.replace("http://", "http://user:s3cret@")
        stats: list[CallStat] = []
        ask(pooled([url]), "writer", MESSAGES, WriterAnswer, stats)

    [stat] = stats
    assert stat.host == server.base_url  # public: no credentials
    assert dataclasses.asdict(stat)["host"] == server.base_url  # what nodes store


def test_one_client_per_host_reused_by_the_per_call_limit():
    model = pooled(["http://127.0.0.1:1", "http://127.0.0.1:2"])
    one, two = (model.models[h.url] for h in model.pool.hosts)
    assert one.chat._client is not two.chat._client
    bigger = one.chat_for(600)
    assert bigger.num_predict == 600 and bigger._client is one.chat._client


def test_roles_with_the_same_model_and_hosts_share_one_pool(tmp_path):
    hosts = ["http://127.0.0.1:1", "http://127.0.0.1:2"]
    same = ModelSettings(provider="ollama", model=MODEL, base_url=hosts)
    models = ModelSet(
        Models(
            writer=same,
            critic=same.model_copy(update={"temperature": 0.0}),
            finalizer=same.model_copy(update={"model": "llama3.1:8b"}),
        ),
        tmp_path,
    )
    writer, critic, finalizer = (models.get(r) for r in ("writer", "critic", "finalizer"))
    assert writer.pool is critic.pool
    assert finalizer.pool is not writer.pool  # another model: its own slots on a server


# -- config -----------------------------------------------------------------------------


def load(tmp_path, base_url: str, extra: str = ""):
    path = tmp_path / "briefloop.toml"
    path.write_text(f'[models.writer]\nprovider = "ollama"\nbase_url = {base_url}\n{extra}')
    return config.load(path, environ={})


def test_a_list_of_hosts_with_their_own_limits(tmp_path):
    s = load(
        tmp_path,
        '["http://gpu-1:11434", {url = "http://gpu-2:11434", max_parallel = 8}]',
        'max_parallel = 2\ncooldown_seconds = 5\nmodel = "qwen2.5:14b"\n',
    )
    writer = s.models.writer
    assert writer.hosts == [("http://gpu-1:11434", 2), ("http://gpu-2:11434", 8)]
    assert writer.cooldown_seconds == 5
    assert writer.label == "ollama:qwen2.5:14b"  # no host in it: runs name the model


def test_one_url_stays_a_string(tmp_path):
    writer = load(tmp_path, '"http://gpu-1:11434"').models.writer
    assert writer.base_url == "http://gpu-1:11434"
    assert writer.hosts == [("http://gpu-1:11434", 4)]


def test_hosts_from_the_environment(tmp_path):
    path = tmp_path / "briefloop.toml"
    path.write_text("")
    s = config.load(
        path, environ={"BRIEFLOOP_MODELS__CRITIC__BASE_URL": '["http://a:1", "http://b:2"]'}
    )
    assert [url for url, _ in s.models.critic.hosts] == ["http://a:1", "http://b:2"]


@pytest.mark.parametrize(
    ("base_url", "message"),
    [
        ("[]", "an empty list names no host"),
        ('["http://gpu-1:11434", "http://GPU-1:11434/"]', "'http://GPU-1:11434/' is listed twice"),
        ('["http://u:pw@gpu-1", "http://gpu-1:80"]', "'http://gpu-1:80' is listed twice"),
        ('["http://gpu-1", "gpu-2:11434"]', "host 2: url: 'gpu-2:11434' is not an http(s)"),
        ('["http://gpu-1", {url = "http://gpu-2", parallel = 2}]', "host 2: parallel: unknown key"),
        ('[{url = "http://gpu-2", max_parallel = 0}]', "host 1: max_parallel: Input should be"),
        ("[{max_parallel = 2}]", "host 1: url: missing: this table needs it"),
        ('["http://gpu-1", 7]', "host 2: expected a URL or a table"),
        ("7", "expected a URL or a list of hosts"),
    ],
)
def test_bad_host_lists_are_config_errors(tmp_path, base_url, message):
    with pytest.raises(ConfigError) as e:
        load(tmp_path, base_url)
    assert "models.writer.base_url" in str(e.value)
    assert message in str(e.value)


def test_a_password_in_a_bad_host_list_is_masked(tmp_path):
    with pytest.raises(ConfigError) as e:
        load(tmp_path, '["http://u:s3cret@gpu-1", "http://u:s3cret@gpu-1"]')
    assert "s3cret" not in str(e.value)


@pytest.mark.parametrize(
    "extra", ["max_parallel = 0\n", "cooldown_seconds = -1\n", 'max_parallel = "4"\n']
)
def test_limits_are_checked(tmp_path, extra):
    with pytest.raises(ConfigError):
        load(tmp_path, '"http://gpu-1"', extra)
