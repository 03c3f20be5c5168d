"""The Agent Inbox protocol: the interrupt payload a waiting thread shows, the response
a person's decision becomes, and the response decoded back into a decision.

A thread waiting for a person is paused in `interrupt(payload(state))` (batch.nodes).
The payload has the shape of LangChain's Agent Inbox `HumanInterrupt`: an
`action_request` (action `review_draft`, args: the draft, what is needed, the
deviations and suggestions, the score), a `config` of allowed responses, and a Markdown
`description`. It is resumed with `Command(resume=[HumanResponse])`:

    accept                     approve as it is (refused while a placeholder is empty)
    edit      args.args.answers    approve with these placeholder values
    response  args = notes         send it back to the writer with these notes
    ignore    args = reason        reject
    approve / reject / revise      our own decision dict, as `response()` never sends
                                   but a caller may

A top-level "by" names the person and "at" the time; anything else decodes to
{"type": "invalid"} and the thread asks again.
"""

from __future__ import annotations

from typing import Any, Literal

from batch.state import LoopState

Decision = Literal["approve", "reject", "revise"]


def payload(state: LoopState) -> dict[str, Any]:
    """An interrupt payload in the shape LangChain's Agent Inbox understands."""
    brief = state["brief"]
    needs = state.get("needs_from_human", [])
    lines = [f"## {brief.get('title') or brief['id']}",
             f"Score {state.get('score', 0):g} after {state.get('round', 0)} round(s).", ""]
    if needs:
        lines.append("**Needed from you:**")
        lines += [f"- `{n['placeholder']}`: {n['question']}" for n in needs]
        lines.append("")
    if state.get("deviations"):
        lines.append("**The writer's deliberate deviations:**")
        lines += [f"- {d['point']}: {d['reason']}" for d in state["deviations"]]
        lines.append("")
    lines += ["---", "", state.get("draft", "")]
    return {
        "action_request": {
            "action": "review_draft",
            "args": {
                "brief_id": brief["id"],
                "draft": state.get("draft", ""),
                "needs_from_human": needs,
                "deliberate_deviations": state.get("deviations", []),
                "would_improve": state.get("would_improve", []),
                "score": state.get("score"),
                "score_history": list(state.get("score_history", [])),
                "answers": {n["placeholder"]: "" for n in needs},
            },
        },
        "config": {"allow_accept": True, "allow_edit": True, "allow_respond": True,
                   "allow_ignore": True},
        "description": "\n".join(lines),
    }


def decode(response: Any) -> dict[str, Any]:
    """An Agent Inbox response (a list of one {"type", "args"}) or our own decision dict,
    to one decision dict: {"type": approve|reject|revise|invalid, ...}.

    accept -> approve; edit -> approve with args.args.answers; response -> revise with
    the text as notes; ignore -> reject (args, if any, is the reason). A top-level "by"
    names the person.
    """
    if isinstance(response, list) and response:
        response = response[0]
    if not isinstance(response, dict):
        return {"type": "invalid", "problem": f"unrecognised response {response!r:.200}"}
    kind = response.get("type")
    args = response.get("args")
    by = response.get("by")
    if kind == "accept":
        return {"type": "approve", "answers": {}, "by": by}
    if kind == "edit" and isinstance(args, dict):
        inner = args.get("args", args)
        return {"type": "approve", "answers": dict(inner.get("answers") or {}), "by": by}
    if kind == "response":
        return {"type": "revise", "notes": str(args or ""), "by": by,
                "answers": dict(response.get("answers") or {})}
    if kind == "ignore":
        return {"type": "reject", "reason": str(args or "ignored in the inbox"), "by": by}
    if kind in ("approve", "reject", "revise"):
        return dict(response)
    return {"type": "invalid", "problem": f"unknown decision type {kind!r}"}


def response(decision: Decision, answers: dict[str, str], text: str | None,
                   by: str) -> list[dict[str, Any]]:
    """The Agent Inbox response for a decision (see the module docstring)."""
    if decision == "approve":
        return [{"type": "edit", "by": by,
                 "args": {"action": "review_draft", "args": {"answers": answers}}}]
    if decision == "revise":
        # Agent Inbox's "response" carries only text; the values given so far ride along
        # in "answers" so a revision can use them as facts.
        return [{"type": "response", "by": by, "args": text or "", "answers": answers}]
    return [{"type": "ignore", "by": by, "args": text or ""}]
