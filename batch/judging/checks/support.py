"""The check on what a draft adds to its brief (batch.judging.support has the map)."""

from __future__ import annotations

from batch import placeholders
from batch.check_types import Addition, Finding, Repair, Severity
from batch.judging.checks.base import Check, CheckContext
from batch.judging.support import SentenceSupport
from batch.judging.wording import stems_of

# A sentence with this many words no source gives is an addition (the rubric's
# `additions_words` may set another). Chosen on the labelled sentences of bench/additions
# (docs/benchmarks.md, "Additions"): on the shipped writer's texts, 2 holds no more
# correct texts than 3 and catches more inventions; a writer that paraphrases freely
# gets more of its correct texts held at 2 (all 12 held-out faithful texts; 5 at 3).
ADDED_WORDS = 2


def is_addition(finding: Finding) -> bool:
    """A finding of the Additions check: a sentence, or a placeholder, that adds."""
    return finding["code"].startswith("adds:")


def additions_of(findings: list[Finding], held_only: bool = True) -> list[Addition]:
    """The sentences that add to the brief, as a person is shown them (the held ones;
    with `held_only` off, warned ones too)."""
    return [
        Addition(
            n=int(f["code"].split(":")[1]),
            sentence=f["sentence"],
            added=f["added"],
            message=f["message"],
        )
        for f in findings
        if is_addition(f)
        and f.get("added")
        and f.get("sentence")
        and (f["severity"] == "hold" or not held_only)
    ]


# A sentence that carries no item of the brief and adds this many words of its own says
# something new to the readers ("It switches itself off if it boils dry"): it waits for
# a person. Chosen on bench/unseen's tune half and bench/judge against 2 and 4, and
# against holding every sentence with the rubric's `additions_words` (docs/benchmarks.md)
UNCARRIED_WORDS = 3


def held(s: SentenceSupport, words: int = ADDED_WORDS) -> bool:
    """A sentence whose additions wait for a person: a claim word of its own (greetings
    and sign-offs included), or words enough of its own (UNCARRIED_WORDS, or the
    rubric's `additions_words` when more) beside nothing of the brief: no item of its
    checklist, and no figure, address or name it gives."""
    enough = max(UNCARRIED_WORDS, words)
    carried = bool(s.items or s.values)
    return bool(s.claims) or (not s.glue and not carried and len(s.added) >= enough)


def additions(ctx: CheckContext) -> list[SentenceSupport]:
    """The sentences of the draft that add what no source says: those `held`, and those
    (not greetings nor closings) with at least the rubric's `additions_words`
    (`ADDED_WORDS`) of their own, which a person is shown."""
    return [
        s
        for s in ctx.support
        if held(s, ctx.addition_words) or (not s.glue and len(s.added) >= ctx.addition_words)
    ]


def _repair(s: SentenceSupport, ctx: CheckContext) -> Repair:
    if not s.items:
        return Repair(action="drop", sentences=[s.text])
    said = " ".join(r["text"] for r in ctx.checklist if r["id"] in s.items)
    return Repair(
        action="rewrite",
        sentences=[s.text],
        goal="says only this fact of the brief, in plain words, adding nothing of its own",
        fact=said,
    )


def unasked_placeholders(ctx: CheckContext) -> list[str]:
    """The placeholders that ask a person for what the brief never needs: nothing the
    brief says is not known yet, and something it never names ("[NUMBER NEEDED: help
    desk phone]" in a notice whose brief names no help desk, "[NAME NEEDED: coach
    company]" beside a brief's coach). A person asked to fill one would be asked to
    supply an addition."""
    unknown: set[str] = set()
    for r in ctx.checklist:
        if r["kind"] in ("missing", "gap"):
            unknown |= set(r["terms"]) | stems_of(r["subject"] or "")
    given = stems_of(" ".join(ctx.sources))
    out = []
    for p in placeholders.find(ctx.draft):
        # what it asks for: its words, and its label's when the label names it ("VENUE")
        label = p.strip("[").split(" NEEDED", 1)[0]
        named = "" if label in placeholders.LABELS else label
        words = stems_of(f"{named} {placeholders.detail(p)}".lower())
        # every word given: a fact the brief names (or gives: GivenAsGap's to say)
        if words and not words & unknown and not words <= given:
            out.append(p)
    return out


class Additions(Check):
    """Adds what the brief does not say: a sentence using several words that no source
    gives (the brief, its title, a person's answers) may invent a feature, a motive, a
    benefit or an instruction to the readers; a placeholder for what the brief neither
    gives nor says is unknown asks a person for one. Words are not enough to refuse a
    text, so it waits for a person with each addition named (a hold; the rubric's
    `additions` makes it a warning or turns it off)."""

    codes = ("adds",)
    scored = False
    # the loop tries these before it holds (batch.loop.writing.repairs): a sentence that carries
    # nothing of the brief is dropped, one that carries an item is said again with only
    # that item; each kept only when nothing the checks find is worse
    repairs = frozenset({"drop", "rewrite"})
    repaired_holds = True

    def applies(self, ctx: CheckContext) -> bool:
        return bool(ctx.brief) and not ctx.documents_source and ctx.addition_severity != "off"

    def run(self, ctx: CheckContext) -> list[Finding]:
        severity: Severity = "hold" if ctx.addition_severity == "hold" else "warn"
        return [
            Finding(
                code=f"adds:{s.n}",
                # a claim a reader acts on, or something new beside nothing of the
                # brief, waits for a person; other words of the writer's own are shown
                severity=severity if held(s, ctx.addition_words) else "warn",
                message=(
                    f"Sentence {s.n} adds what the brief does not say ("
                    + ", ".join(repr(w) for w in dict.fromkeys([*s.claims, *s.added]))
                    + f"): {s.text!r}. Check it against the brief: cut it, or vouch for it."
                ),
                sentence=s.text,
                added=list(dict.fromkeys([*s.claims, *s.added])),
                repair=_repair(s, ctx),
            )
            for s in additions(ctx)
        ] + [
            Finding(
                code=f"adds:placeholder:{p}",
                severity=severity,
                message=(
                    f"The placeholder {p} asks for something the brief never mentions: "
                    "check whether the text needs it at all."
                ),
            )
            for p in unasked_placeholders(ctx)
        ]
