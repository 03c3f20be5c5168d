"""The stack-alone baselines of `bench overhead` make the same calls as the product's
batch, or the comparison they print would be meaningless."""

from __future__ import annotations

import pytest

from bench.fake_server import rounds_responder
from bench.stack_floor import (
    bare_graph,
    chat_model,
    http_model,
    run_bare_calls,
    run_bare_graph,
    sleeping_model,
)

from fake_ollama import FakeOllama


def test_the_bare_graph_takes_the_rounds_asked_and_finishes(tmp_path):
    calls = []
    sleeper = sleeping_model(0.0, rounds=3)

    def counted(brief_id, draft):
        calls.append((brief_id, bool(draft)))
        return sleeper(brief_id, draft)

    graph = bare_graph(counted, tmp_path / "c.sqlite")
    cfg = {"configurable": {"thread_id": "t"}, "max_concurrency": 1}
    graph.invoke({"brief_id": "b"}, cfg, durability="sync")
    assert calls == [("b", False), ("b", True)] * 3
    state = graph.get_state(cfg)
    assert state.values["done"] is True and not state.next
    assert len(state.values["calls"]) == 6


@pytest.mark.parametrize("layer", ["stack", "chat", "http"])
def test_each_layer_makes_exactly_the_batchs_calls(layer):
    with FakeOllama(default=rounds_responder(3)) as server:
        if layer == "stack":
            run_bare_graph(chat_model(server.base_url), briefs=2)
        elif layer == "chat":
            run_bare_calls(chat_model(server.base_url), briefs=2, rounds=3)
        else:
            model, close = http_model(server.base_url)
            run_bare_calls(model, briefs=2, rounds=3)
            close()
        assert server.chat_count == 2 * 3 * 2
        bodies = server.chat_requests
    assert all(b["stream"] is False for b in bodies)
    # the writer's half for plain text, the critic's half with a schema
    assert sorted("format" in b for b in bodies) == [False] * 6 + [True] * 6
    assert all(b["format"]["type"] == "object" for b in bodies if "format" in b)
