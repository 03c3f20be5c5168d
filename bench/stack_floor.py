"""What the chosen stack costs per model call with none of briefloop's code in it.

`bench overhead` measures briefloop's cost per model call beyond the model's latency.
Part of that cost is the stack itself: a LangGraph superstep with its checkpoint, and a
ChatOllama call over the ollama client and httpx. This module runs that stack alone,
side by side with the product in the same process and against the same fake server, in
layers:

- the whole stack: a writer / critic / finish graph over SqliteSaver (synchronous=NORMAL,
  durability "sync", one invoke per brief, as the product runs it) whose nodes only call
  ChatOllama with a JSON schema and keep the answer;
- the graph alone: the same graph, its nodes sleeping for the model's latency;
- ChatOllama alone: the same calls one after the other, no graph;
- bare HTTP: the same exchanges over `http.client` on one kept-alive connection.

The differences are what each layer adds.
"""

from __future__ import annotations

import http.client
import json
import operator
import sqlite3
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypedDict
from urllib.parse import urlsplit

CRITIC_FORMAT = {
    "type": "object",
    "properties": {
        "must_fix": {"type": "array", "items": {"type": "string"}},
        "would_improve": {"type": "array", "items": {"type": "string"}},
        "scores": {"type": "object"},
    },
    "required": ["must_fix", "scores"],
}


class BareState(TypedDict, total=False):
    brief_id: str
    draft: str
    must_fix: list[str]
    round: int
    done: bool
    calls: Annotated[list[int], operator.add]


# A model for the bare graph: (brief id, draft or "" for the writer) -> the answer's JSON
BareModel = Callable[[str, str], dict[str, Any]]


def exchange(brief_id: str, draft: str) -> tuple[str, str, dict | None]:
    """(system text, user text, answer schema) of the writer's call (no draft yet: plain
    text, no schema, as the product's writer) or the critic's: the same exchange for
    every layer."""
    if not draft:
        return (
            "Write the text the brief asks for.",
            f"BRIEF (id {brief_id})\nOffice closed on Friday.",
            None,
        )
    return (
        "Judge the draft against the brief.",
        f"BRIEF (id {brief_id})\nDRAFT:\n{draft}",
        CRITIC_FORMAT,
    )


def chat_model(base_url: str) -> BareModel:
    """ChatOllama, unstreamed, as the product calls it: the writer for plain text, the
    critic with a JSON schema."""
    from langchain_core.messages import HumanMessage, SystemMessage
    from langchain_ollama import ChatOllama

    chat = ChatOllama(model="qwen2.5:7b", base_url=base_url)

    def call(brief_id: str, draft: str) -> dict[str, Any]:
        system, user, schema = exchange(brief_id, draft)
        fmt = {"format": schema} if schema is not None else {}
        reply = chat.invoke([SystemMessage(system), HumanMessage(user)], **fmt, stream=False)
        return json.loads(reply.content) if schema is not None else {"draft": reply.content}

    return call


def sleeping_model(latency: float, rounds: int) -> BareModel:
    """No model: sleeps `latency` and answers so that each brief takes `rounds` rounds,
    which leaves LangGraph and its checkpointer alone."""
    drafts: dict[str, int] = {}

    def call(brief_id: str, draft: str) -> dict[str, Any]:
        time.sleep(latency)
        if not draft:
            drafts[brief_id] = drafts.get(brief_id, 0) + 1
            return {"draft": f"draft {drafts[brief_id]}"}
        return {"must_fix": [] if drafts[brief_id] >= rounds else ["Say it more plainly."]}

    return call


def bare_graph(model: BareModel, checkpoints: Path) -> Any:
    """The loop's shape with nothing of ours: write, judge, again until the critic has no
    must-fix, then finish. The answers are parsed, not checked."""
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph import END, StateGraph

    def writer(state: BareState) -> dict[str, Any]:
        return {"draft": model(state["brief_id"], "")["draft"], "calls": [1]}

    def critic(state: BareState) -> dict[str, Any]:
        return {"must_fix": model(state["brief_id"], state["draft"])["must_fix"], "calls": [1]}

    def finish(state: BareState) -> dict[str, Any]:
        return {"done": True}

    def after_critic(state: BareState) -> str:
        return "writer" if state["must_fix"] else "finish"

    graph = StateGraph(BareState)
    graph.add_node("writer", writer)
    graph.add_node("critic", critic)
    graph.add_node("finish", finish)
    graph.set_entry_point("writer")
    graph.add_edge("writer", "critic")
    graph.add_conditional_edges("critic", after_critic, ["writer", "finish"])
    graph.add_edge("finish", END)
    conn = sqlite3.connect(checkpoints, check_same_thread=False)
    conn.execute("PRAGMA synchronous = NORMAL")  # as the product's checkpointer
    return graph.compile(checkpointer=SqliteSaver(conn))


def run_bare_graph(model: BareModel, briefs: int) -> float:
    """Seconds for `briefs` briefs through the bare graph, one invoke each."""
    graph = bare_graph(
        model, Path(tempfile.mkdtemp(prefix="briefloop-floor-")) / "checkpoints.sqlite"
    )
    started = time.perf_counter()
    for i in range(briefs):
        graph.invoke(
            {"brief_id": f"brief-{i:04d}"},
            {"configurable": {"thread_id": f"floor-{i}"}, "max_concurrency": 1},
            durability="sync",
        )
    return time.perf_counter() - started


def run_bare_calls(model: BareModel, briefs: int, rounds: int) -> float:
    """Seconds for the same calls as `briefs` briefs of `rounds` rounds, one after the
    other, with no graph."""
    started = time.perf_counter()
    for i in range(briefs):
        for _ in range(rounds):
            draft = model(f"brief-{i:04d}", "")["draft"]
            model(f"brief-{i:04d}", draft)
    return time.perf_counter() - started


def http_model(base_url: str) -> tuple[BareModel, Callable[[], None]]:
    """POST /api/chat over `http.client` on one kept-alive connection, the answer read
    and parsed; and a function that closes the connection."""
    conn = http.client.HTTPConnection(urlsplit(base_url).netloc, timeout=30)

    def call(brief_id: str, draft: str) -> dict[str, Any]:
        system, user, schema = exchange(brief_id, draft)
        request: dict[str, Any] = {
            "model": "qwen2.5:7b",
            "stream": False,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
        }
        if schema is not None:
            request["format"] = schema
        conn.request("POST", "/api/chat", json.dumps(request), {"Content-Type": "application/json"})
        content = json.loads(conn.getresponse().read())["message"]["content"]
        return json.loads(content) if schema is not None else {"draft": content}

    return call, conn.close
