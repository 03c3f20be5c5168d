r"""The writer-critic graph.

    START -> writer --> critic --route--> writer | review | finish
                    \-> finish (a revision that never came back valid)
                    \-> review | finish (the budget spent before a new draft)
                        review --route--> writer | review | finish
                        finish -> END

The critic node runs the deterministic checks (batch.judging.checks, through batch.loop.checking)
before its model call: one super-step, so one checkpoint, per judgement. Model-calling
nodes retry transient faults only (see batch.errors.is_transient); the recursion limit
is an emergency brake, never the way the loop stops.
"""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from batch.config import Retry
from batch.loop.nodes import Nodes
from batch.loop.routing import route_after_critic, route_after_review, route_after_writer
from batch.retrying import node_policy
from batch.state import LoopState


def build_graph(
    nodes: Nodes, retry: Retry, checkpointer: BaseCheckpointSaver[Any]
) -> CompiledStateGraph[Any]:
    policy = node_policy(retry)
    g = StateGraph(LoopState)
    g.add_node("writer", nodes.writer, retry_policy=policy)
    g.add_node("critic", nodes.critic, retry_policy=policy)
    g.add_node("review", nodes.review)
    g.add_node("finish", nodes.finish, retry_policy=policy)
    g.add_edge(START, "writer")
    g.add_conditional_edges("writer", route_after_writer, ["critic", "review", "finish"])
    g.add_conditional_edges("critic", route_after_critic, ["writer", "review", "finish"])
    g.add_conditional_edges("review", route_after_review, ["writer", "review", "finish"])
    g.add_edge("finish", END)
    return g.compile(checkpointer=checkpointer)
