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
    approve / reject / revise      our own decision dict (batch.decision.as_dict): what
                                   briefloop itself resumes a thread with

A top-level "by" names the person and "at" the time; anything else decodes to
{"type": "invalid"} and the thread asks again.
"""

from __future__ import annotations

from typing import Any

from batch.decision import (
    KINDS,
    Approve,
    Decision,
    Fix,
    Invalid,
    Reject,
    Revise,
    as_dict,
    from_dict,
)
from batch.judging.checks.obey import unchecked_orders
from batch.loop.checking import checklist_of
from batch.loop.routing import machine_ending
from batch.state import LoopState
from batch.thread_inputs import brief_of


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
        # at the bar, nothing stands; a fix of the checklist may leave it below
        "must_fix": list(state.get("must_fix", [])) if ending or not state.get("meets_bar") else [],
        "holds": list(state.get("holds", [])),
        "additions": list(state.get("additions", [])),
        "score": state.get("score"),
        "stopped": ending,
    }


def orders_to_read(state: LoopState) -> list[str]:
    """The brief's orders no check can hold the text to: kept at the thread's start
    (worked out here for a thread started before they were, and for one whose checklist
    a person has fixed since)."""
    if "unchecked_orders" in state and not state.get("checklist_fixes"):
        return list(state["unchecked_orders"])
    return unchecked_orders(checklist_of(state)) if state.get("checklist") else []


def interrupt_payload(state: LoopState) -> dict[str, Any]:
    """An interrupt payload in the shape LangChain's Agent Inbox understands."""
    brief = brief_of(state)
    text = shown(state)
    needs = text["needs_from_human"]
    lines = [
        f"## {brief.title or brief.id}",
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
    orders = orders_to_read(state)
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
                "brief_id": brief.id,
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


def decode(response: Any) -> Decision:
    """An Agent Inbox response (a list of one {"type", "args"}) or our own decision dict
    (batch.decision.as_dict), to one Decision.

    accept -> approve; edit -> approve with args.args.answers; response -> revise with
    the text as notes; ignore -> reject (args, if any, is the reason). A top-level "by"
    names the person, "at" the time.
    """
    if isinstance(response, list) and response:
        response = response[0]
    if not isinstance(response, dict):
        return Invalid(f"unrecognised response {response!r:.200}")
    kind = response.get("type")
    args = response.get("args")
    by = None if response.get("by") is None else str(response["by"])
    at = str(response.get("at") or "")
    if kind == "accept":
        override = args.get("override") if isinstance(args, dict) else None
        return Approve({}, None, str(override) if override else None, by, at)
    if kind == "edit" and isinstance(args, dict):
        inner = args["args"] if isinstance(args.get("args"), dict) else args
        return from_dict({**inner, "type": "approve", "by": by, "at": at})
    if kind == "response":
        return from_dict(
            {
                "type": "revise",
                "notes": str(args or ""),
                "answers": response.get("answers") or {},
                "rounds": response.get("rounds"),
                "by": by,
                "at": at,
            }
        )
    if kind == "ignore":
        return Reject(str(args or "ignored in the inbox"), by, at)
    if kind in KINDS:
        return from_dict(response)
    return Invalid(f"unknown decision type {kind!r}")


def encode(decision: Decision) -> list[dict[str, Any]]:
    """A decision as an Agent Inbox response, for tooling that speaks that protocol
    (the inverse of `decode`; a send-back's rounds ride along at the top level)."""
    if isinstance(decision, Approve):
        args: dict[str, Any] = {"answers": dict(decision.answers)}
        if decision.draft is not None:
            args["draft"] = decision.draft
        if decision.override:
            args["override"] = decision.override
        return [
            {"type": "edit", "by": decision.by, "args": {"action": "review_draft", "args": args}}
        ]
    if isinstance(decision, Revise):
        # Agent Inbox's "response" carries only text; the values given so far ride along
        # in "answers" so a revision can use them as facts.
        sent: dict[str, Any] = {
            "type": "response",
            "by": decision.by,
            "args": decision.notes,
            "answers": dict(decision.answers),
        }
        if decision.rounds is not None:
            sent["rounds"] = decision.rounds
        return [sent]
    if isinstance(decision, Reject):
        return [{"type": "ignore", "by": decision.by, "args": decision.reason}]
    if isinstance(decision, Fix):
        return [as_dict(decision)]  # no Agent Inbox form: our own, which `decode` reads
    raise ValueError(f"an invalid answer has no Agent Inbox form: {decision.problem}")
