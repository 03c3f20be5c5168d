"""The Agent Inbox protocol: the interrupt payload a waiting thread shows, the response
a person's decision becomes, and the response decoded back into a decision.

A thread waiting for a person is paused in `interrupt(interrupt_payload(state))` (batch.loop.nodes).
The payload has the shape of LangChain's Agent Inbox `HumanInterrupt`: an
`action_request` (action `review_draft`, args: the draft, what is needed, the
deviations and suggestions, the score), a `config` of allowed responses, and a Markdown
`description`. It is resumed with `Command(resume=[HumanResponse])`:

    accept                     approve as it is (refused while a placeholder is empty)
    edit      args.args.answers    approve with these placeholder values; args.args.draft
                                   the person's own version of the text; args.args.override
                                   the reason to approve over what the checks still find
    response  args = notes         send it back to the writer with these notes; a top-level
                                   "rounds" gives it that many more rounds (else
                                   loop.max_rounds more)
    ignore    args = reason        reject
    approve / reject / revise      our own decision dict, as `response()` never sends
                                   but a caller may

A top-level "by" names the person and "at" the time; anything else decodes to
{"type": "invalid"} and the thread asks again.
"""

from __future__ import annotations

from typing import Any, Literal

from batch.judging.checks.obey import unchecked_orders
from batch.loop.checking import checklist_of
from batch.loop.routing import machine_ending
from batch.state import LoopState

Decision = Literal["approve", "reject", "revise"]


def shown(state: LoopState) -> dict[str, Any]:
    """What a person is asked about: the current draft of a text that meets the bar, or
    the best draft of one the machine could not approve, with why it stopped and what
    the checks still find."""
    ending = machine_ending(state) if not state.get("meets_bar") else None
    best = state.get("best")
    if ending is not None and best:
        return {
            "draft": best["draft"],
            "needs_from_human": best["needs_from_human"],
            "deviations": best["deviations"],
            "must_fix": list(best.get("must_fix", [])),
            "holds": list(best.get("holds", [])),
            "additions": list(best.get("additions", [])),
            "score": best["score"],
            "stopped": ending,
        }
    return {
        "draft": state.get("draft", ""),
        "needs_from_human": state.get("needs_from_human", []),
        "deviations": state.get("deviations", []),
        "must_fix": list(state.get("must_fix", [])) if ending else [],
        "holds": list(state.get("holds", [])),
        "additions": list(state.get("additions", [])),
        "score": state.get("score"),
        "stopped": ending,
    }


def interrupt_payload(state: LoopState) -> dict[str, Any]:
    """An interrupt payload in the shape LangChain's Agent Inbox understands."""
    brief = state["brief"]
    text = shown(state)
    needs = text["needs_from_human"]
    lines = [
        f"## {brief.get('title') or brief['id']}",
        f"Score {text['score'] or 0:g} after {state.get('round', 0)} round(s).",
        "",
    ]
    if text["stopped"]:
        lines.append(
            f"**The machine could not approve it ({text['stopped']}).** What the "
            f"checks still find (approving over it needs a reason):"
        )
        lines += [f"- {m}" for m in text["must_fix"]]
        lines.append("")
    if text["holds"]:
        lines.append("**The checks cannot vouch for it: look before it goes out.**")
        lines += [f"- {m}" for m in text["holds"]]
        lines.append("")
    orders = unchecked_orders(checklist_of(state)) if state.get("checklist") else []
    if orders:
        lines.append("**The brief's orders no check can hold the text to** (read it for these):")
        lines += [f"- {o}" for o in orders]
        lines.append("")
    if needs:
        lines.append("**Needed from you:**")
        lines += [f"- `{n['placeholder']}`: {n['question']}" for n in needs]
        lines.append("")
    if text["deviations"]:
        lines.append("**The writer's deliberate deviations:**")
        lines += [f"- {d['point']}: {d['reason']}" for d in text["deviations"]]
        lines.append("")
    lines += ["---", "", text["draft"]]
    return {
        "action_request": {
            "action": "review_draft",
            "args": {
                "brief_id": brief["id"],
                "draft": text["draft"],
                "needs_from_human": needs,
                "deliberate_deviations": text["deviations"],
                "would_improve": state.get("would_improve", []),
                "must_fix": text["must_fix"],
                "holds": text["holds"],
                "additions": text["additions"],
                "unchecked_orders": orders,
                "stopped": text["stopped"],
                "score": text["score"],
                "score_history": list(state.get("score_history", [])),
                "answers": {n["placeholder"]: "" for n in needs},
            },
        },
        "config": {
            "allow_accept": True,
            "allow_edit": True,
            "allow_respond": True,
            "allow_ignore": True,
        },
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
        decision = {"type": "approve", "answers": {}, "by": by}
        if isinstance(args, dict) and args.get("override"):
            decision["override"] = str(args["override"])
        return decision
    if kind == "edit" and isinstance(args, dict):
        inner = args["args"] if isinstance(args.get("args"), dict) else args
        answers = inner.get("answers") or {}
        if not isinstance(answers, dict):
            return {"type": "invalid", "problem": "answers must map placeholders to values"}
        decision = {"type": "approve", "answers": dict(answers), "by": by}
        if isinstance(inner.get("draft"), str):
            decision["draft"] = inner["draft"]  # the person's own version of the text
        if inner.get("override"):
            decision["override"] = str(inner["override"])
        return decision
    if kind == "response":
        answers = response.get("answers") or {}
        if not isinstance(answers, dict):
            return {"type": "invalid", "problem": "answers must map placeholders to values"}
        decision = {"type": "revise", "notes": str(args or ""), "by": by, "answers": dict(answers)}
        if response.get("rounds") is not None:
            decision["rounds"] = response["rounds"]
        return decision
    if kind == "ignore":
        return {"type": "reject", "reason": str(args or "ignored in the inbox"), "by": by}
    if kind in ("approve", "reject", "revise"):
        return dict(response)
    return {"type": "invalid", "problem": f"unknown decision type {kind!r}"}


def response(
    decision: Decision,
    answers: dict[str, str],
    text: str | None,
    by: str,
    edited: str | None = None,
    override: str | None = None,
    rounds: int | None = None,
) -> list[dict[str, Any]]:
    """The Agent Inbox response for a decision (see the module docstring)."""
    if decision == "approve":
        args: dict[str, Any] = {"answers": answers}
        if edited is not None:
            args["draft"] = edited
        if override:
            args["override"] = override
        return [{"type": "edit", "by": by, "args": {"action": "review_draft", "args": args}}]
    if decision == "revise":
        # Agent Inbox's "response" carries only text; the values given so far ride along
        # in "answers" so a revision can use them as facts.
        sent: dict[str, Any] = {
            "type": "response",
            "by": by,
            "args": text or "",
            "answers": answers,
        }
        if rounds is not None:
            sent["rounds"] = rounds
        return [sent]
    return [{"type": "ignore", "by": by, "args": text or ""}]
