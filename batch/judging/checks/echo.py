"""The echo check: words of the instructions (prompts, house rules, rubric, the last
critique) inside the draft, and the brief's orders to the writer copied as if they were
the text. A small model under a long prompt does both."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from batch.check_types import Finding, Repair, Requirement
from batch.draft_cleanup import FENCE_TAG
from batch.judging import wording
from batch.judging.brief_lines import logical_lines
from batch.judging.checklist import INSTRUCTION_KINDS, MISSING_CUE, TELLS_INSIDE, joined_clauses
from batch.judging.checklist.classify import RELAY_VERBS, TASK_VERBS
from batch.judging.checklist.cues import DOC_NOUNS
from batch.judging.checks.base import Check, CheckContext, rewrite
from batch.judging.wording import WORD, grams, sentences_where, words

ECHO_WORDS = 6  # a run of this many words shared with a prompt is not a coincidence
# Talk about the task rather than the text ("You can review this draft..."), and the
# tags prompts put around material (<brief-1a2b3c>).
_META_TALK = re.compile(
    r"(?i)\b(?:this|the|my|your|previous|revised)\s+(?:draft|brief|critique|rubric)\b|"
    r"\bhouse rules\b|\b(?:asks?|asking|tells?|telling|reminds?)\s+the\s+readers?\b|"
    r"\b(?:must[ _]fix|would[ _]improve|needs_from_human|"
    r"deliberate[ _]deviations)\b"
)
# A sentence that tells a writer what to write ("Write API docs for this file.").
_INSTRUCTION = re.compile(
    r"(?i)^(?:please\s+)?(?:write|draft|document|compose|produce|prepare|create)\s+"
    r"(?:\w+\s+){0,3}?(?:memo|docs|documentation|description|text|email|page|copy|summary|"
    r"post|announcement|notice|draft|reference)\b"
)
_MARKER = re.compile(r"\b[A-Z][A-Z']+(?: [A-Z][A-Z']+)+\b|\b[a-z]+(?:_[a-z]+)+\b")
# An order to the writer to pass something on, pasted ("Say that the facilities team
# will announce it next week."): no text says that to its readers. ("Note that ..." does,
# and "Tell the organiser that ..." may ask the readers something: both are left.)
_RELAY_ORDER = re.compile(
    r"(?i)^(?:please\s+)?(?:say|mention|explain|announce|stress|"
    r"point out|add|make clear|emphasi[sz]e)\s+that\b"
)


# A label the model puts before a part meant for the editor, not the readers:
# "Deviations: …", "Placeholders:", "Note to the editor:"; and "It is not known yet:"
# before a sentence that says so itself. ("Note:" and "Missing:" head readers' lines
# too: a lost-property notice lists what is missing; "Not known yet: the start time"
# tells the readers something.)
_EDITOR_LABEL = re.compile(
    r"(?i)^(?P<lead>[\s#>-]*)[*_]*(?P<label>(?:it\s+is\s+|it['’]s\s+)?not\s+(?:yet\s+)?known"
    r"(?:\s+yet)?|deviations?|deliberate\s+deviations?|placeholders?|missing\s+(?:facts?|"
    r"information)|needs?\s+from\s+(?:a\s+)?(?:human|person)|notes?\s+(?:to|for)\s+(?:the\s+)?"
    r"(?:editor|reviewer|writer))[*_\s]*(?::|$)[*_\s-]*"
)


def without_editor_label(sentence: str) -> str | None:
    """The sentence without a label for the editor at its start ("It is not known yet:
    We haven't set the hours." -> "We haven't set the hours."), "" when the label is all
    it is (a heading "Deviations"), None when it has none."""
    found = _EDITOR_LABEL.match(sentence)
    if found is None:
        return None
    rest = sentence[found.end() :].strip()
    if "known" in found.group("label").lower() and not MISSING_CUE.search(rest):
        return None  # the label says what the rest does not: it is the readers'
    lead = found.group("lead").strip()
    return (f"{lead} " if lead else "") + rest[:1].upper() + rest[1:] if rest else ""


# the words that make a task line an order to the writer: the kind of text it asks for
# ("memo", "invitation", "note") or the verb that asks ("write", "draft", "tell")
_ORDER_WORD = re.compile(
    r"(?i)^(?:" + DOC_NOUNS + "|" + "|".join((*TASK_VERBS, *RELAY_VERBS)) + r")$"
)
# in the sentence around a copied run, only the kind of text counts: the verbs ("do",
# "let", "use") are as often the readers' ("Do come to the party")
_KIND_WORD = re.compile(r"(?i)^(?:" + DOC_NOUNS + r")$")

# kinds of text a task names that are no order word elsewhere ("a day tour itinerary")
_TEXT_KINDS = frozenset({"itinerary", "schedule", "programme", "program", "agenda", "timetable"})


def unrelayed(sentence: str) -> str:
    """ "Say that the team will announce it next week." -> "The team will announce it next
    week." (any Markdown the sentence opens with kept)."""
    body = sentence.lstrip("*_#>- ")
    lead = sentence[: len(sentence) - len(body)]
    order = _RELAY_ORDER.match(body)
    rest = body[order.end() :].lstrip(" ,:") if order else body
    return lead + rest[:1].upper() + rest[1:]


def _markers_of(text: str) -> frozenset[str]:
    return frozenset(m.group(0) for m in _MARKER.finditer(text) if "NEEDED" not in m.group(0))


def prompt_markers(prompt_texts: Iterable[str]) -> set[str]:
    """Labels a prompt uses that no reader's text would: "DRAFT TO JUDGE", "must_fix"."""
    out: set[str] = set()
    for text in prompt_texts:
        out |= _markers_of(text)
    return out


# What the echo check needs of the prompt texts (the templates, the house rules, the
# rubric), worked out once: they are the same round after round and brief after brief,
# and every round would otherwise re-tokenise all of them. Bounded: a long-lived process
# (the web app, a worker) sees rubric after rubric.
@dataclass(frozen=True)
class _PromptText:
    grams: frozenset[tuple[str, ...]]  # its runs of ECHO_WORDS words
    markers: frozenset[str]  # its labels (prompt_markers)
    sentences: frozenset[str]  # its sentences of 4 words or more, as words one space apart


@functools.lru_cache(maxsize=256)
def _prompt_text(text: str) -> _PromptText:
    sentences = frozenset(
        " ".join(w) for s in re.split(r"(?<=[.!?:])\s+|\n", text) if len(w := words(s)) >= 4
    )
    return _PromptText(frozenset(grams(words(text), ECHO_WORDS)), _markers_of(text), sentences)


@dataclass(frozen=True)
class _Prompts:
    grams: frozenset[tuple[str, ...]]
    markers: frozenset[str]
    # every start of 4 words or more of every prompt sentence, the whole one included
    sentence_starts: frozenset[str]


@functools.lru_cache(maxsize=16)
def _prompts(prompt_texts: tuple[str, ...]) -> _Prompts:
    texts = [_prompt_text(t) for t in prompt_texts]
    return _Prompts(
        frozenset().union(*(t.grams for t in texts)),
        frozenset().union(*(t.markers for t in texts)),
        _sentence_starts(frozenset().union(*(t.sentences for t in texts))),
    )


@dataclass(frozen=True)
class _EchoReference:
    leaked: frozenset[tuple[str, ...]]  # the prompts' word runs the brief's texts lack
    markers: frozenset[str]  # the prompts' labels the brief's texts lack
    own_text: str  # the brief's texts' words, lower-cased, one space apart
    sentence_starts: frozenset[str]  # _Prompts.sentence_starts


@functools.lru_cache(maxsize=32)
def _echo_reference(
    prompt_texts: tuple[str, ...], brief_sources: tuple[str, ...]
) -> _EchoReference:
    """The prompts against one thread's brief texts (brief, title, source, a person's
    answers): the same in every round of the thread. Only the prompts' side is kept
    per text; a source file can be large, and a thread needs its own once."""
    prompts = _prompts(prompt_texts)
    own_words = [words(t) for t in brief_sources]
    own_grams = set().union(*(grams(w, ECHO_WORDS) for w in own_words))
    return _EchoReference(
        leaked=prompts.grams - own_grams if own_grams else prompts.grams,
        markers=prompts.markers - prompt_markers(brief_sources),
        own_text=" ".join(" ".join(w) for w in own_words),
        sentence_starts=prompts.sentence_starts,
    )


def _sentence_starts(sentences: Iterable[str]) -> frozenset[str]:
    """Every start of 4 words or more of each sentence (words one space apart), the
    whole sentence included."""
    out: set[str] = set()
    for sentence in sentences:
        tokens = sentence.split(" ")
        out.update(" ".join(tokens[:n]) for n in range(4, len(tokens) + 1))
    return frozenset(out)


def check_echo(
    draft: str,
    prompt_texts: Iterable[str],
    brief_sources: Iterable[str],
    checklist: list[Requirement],
    critique: Iterable[str] = (),
) -> list[Finding]:
    """Text of the prompts, the house rules or the rubric inside the draft (a run of
    words, a label or a sentence), a critique point pasted in whole, and the brief's own
    instructions copied as if they were the text."""
    brief_sources = tuple(brief_sources)
    ref = _echo_reference(tuple(prompt_texts), brief_sources)
    draft_words = words(draft)
    hits = [g for g in grams(draft_words, ECHO_WORDS) if g in ref.leaked]
    markers = sorted(m for m in ref.markers if m in draft)
    # prompts by the sentence; a critique point only whole (its suggested wording after
    # a colon may rightly be taken up)
    critique_starts = _sentence_starts(" ".join(w) for t in critique if len(w := words(t)) >= 4)
    relayed: list[str] = []
    for sentence in wording.sentences(draft):
        key = " ".join(words(sentence))
        opening = sentence.lstrip("*_#>- ")
        if _RELAY_ORDER.match(opening):  # the brief's own words, and still no text
            relayed.append(sentence.strip())
            continue
        if key in ref.own_text:
            continue
        # a whole sentence of the prompt, or the start of one ("Answer with one JSON
        # object" of "Answer with one JSON object: ..."), or an order to a writer
        from_prompt = len(key.split()) >= 4 and (
            key in ref.sentence_starts or key in critique_starts
        )
        if from_prompt or _INSTRUCTION.match(opening) or _META_TALK.search(sentence):
            markers.append(sentence.strip())
    markers += [m.group(0) for m in FENCE_TAG.finditer(draft)]
    out: list[Finding] = []
    if hits or markers:
        sample = markers[0] if markers else " ".join(hits[0])
        leaked = [" ".join(h) for h in hits]
        out.append(
            Finding(
                code="echo:prompt",
                severity="must_fix",
                message=f"The text contains words of the instructions or the critique "
                f"({sample!r}): write only the text for its readers.",
                repair=Repair(
                    action="drop",
                    sentences=sentences_where(
                        draft,
                        lambda s: (
                            any(m in s for m in markers)
                            or any(g in " ".join(words(s)) for g in leaked)
                        ),
                    ),
                ),
            )
        )
    for n, sentence in enumerate(
        (s for s in wording.sentences(draft) if without_editor_label(s) is not None), 1
    ):
        new = without_editor_label(sentence)
        out.append(
            Finding(
                code=f"echo:label:{n}",
                severity="must_fix",
                message=f"The text labels a part for its editor, not its readers "
                f"({sentence.strip()[:80]!r}): say it to the readers, without the label.",
                repair=Repair(action="replace", old=sentence, new=new)
                if new
                else Repair(action="drop", sentences=[sentence]),
            )
        )
    for n, sentence in enumerate(relayed, 1):
        # what it relays is for the readers: said without the order, by code, rather
        # than dropped with the fact it carries
        out.append(
            Finding(
                code=f"echo:relay:{n}",
                severity="must_fix",
                message=f"The text passes on an order to the writer as it was given "
                f"({sentence[:80]!r}): tell the readers what it says instead.",
                repair=Repair(action="replace", old=sentence, new=unrelayed(sentence)),
            )
        )
    lowered = draft.lower()
    starts = [s.lower() for s in wording.sentences(draft)]
    joined = " ".join(draft_words)
    # what the brief gives for the text to say: the words of its facts, asks and gaps
    given = {t for r in checklist if r["kind"] not in INSTRUCTION_KINDS for t in r["terms"]}
    for r in checklist:
        copied = False
        # an order copied with its own order words ("write", "notice", "don't", "pls")
        # is surely an order in the text; a few words of a line the reader took for an
        # order ("ask at reception", a chat line beside "don't name the vendor") may be
        # the text's own: a person reads those
        certain = True
        if r["kind"] in ("task", "rule"):
            mine = grams(words(r["text"]), 3)
            shared = mine & grams(draft_words, 3)
            copied = bool(mine) and len(shared) / len(mine) >= 0.75
            if r["kind"] == "task" and copied:
                # what the text is about said again ("the staff summer party" of
                # "Invitation to the staff summer party") is its subject: the order is
                # copied only with its own words, the kind of text or the verb asking,
                # in the run or in the sentence that holds it ("Lakes & Castles is a day
                # tour itinerary for guests on the ...")
                copied = any(_ORDER_WORD.match(w) for g in shared for w in g) or any(
                    _KIND_WORD.match(w) or w in _TEXT_KINDS
                    for sentence in wording.sentences(draft)
                    if grams(words(sentence), 3) & shared
                    for w in words(sentence)
                )
                certain = len(words(r["text"])) >= 4
            if r["kind"] == "rule" and not copied:
                # an order pasted whole or in part ("no prices", "apologise once" of
                # "warm, apologise once"), or a length the text gives of itself. A
                # piece whose words the brief gives as a fact too ("(red pepper)" of
                # "Prices are £6.50 (red pepper) ..., but no prices") is that fact, said
                # as the text should: only a piece with words of the order's own counts.
                pieces = [
                    piece
                    for piece in _ORDER_PIECES.split(r["text"])
                    if _pasted(piece, joined) and set(wording.content_terms(piece)) - given
                ]
                copied = bool(pieces)
                certain = any(_says_an_order(piece) for piece in pieces)
                copied = copied or (
                    r["subject"] == "length" and _OWN_LENGTH.search(draft) is not None
                )
        elif r["kind"] == "sign":
            # the order to sign pasted with the name ("Sign it from Marta")
            copied = _SIGN_ORDER.search(draft) is not None
        elif r["kind"] == "gap" and (told := TELLS_INSIDE.search(r["text"])):
            # "… not set yet - tell her that": the order to tell, pasted
            copied = _pasted(told.group(0), joined)
        elif r["kind"] == "style":
            copied = re.search(r"(?m)^\W*" + re.escape(r["subject"].lower()), lowered) is not None
        elif r["subject"] and r["kind"] in ("fact", "ask"):
            lead = r["subject"].lower()
            copied = any(s.lstrip("*_#>- ").startswith(lead) for s in starts)
        if copied:
            out.append(
                Finding(
                    code=f"echo:brief:{r['id']}",
                    severity="must_fix" if certain else "hold",
                    message=f"The text copies the brief's instruction {r['text'][:120]!r} "
                    f"as text: carry it out instead of repeating it.",
                    repair=_copied_repair(draft, r),
                )
            )
    return (
        out + _readers_as_they(draft, checklist) + _chatter_copied(draft, " ".join(brief_sources))
    )


# what says an order to the writer in a piece of one: a word of the task or of leaving out
_ORDER_CUE = re.compile(
    r"(?i)\b(?:don['’]?t|do\s+not|never|no|pls|please|keep|avoid|leave|mention\w*|name|"
    r"include|skip|omit|say|tell|write|make\s+it|sign\w*|words?)\b"
)


def _says_an_order(piece: str) -> bool:
    return _ORDER_CUE.search(piece) is not None or any(_ORDER_WORD.match(w) for w in words(piece))


# the shorthand of a note to the writer, which no careful text for readers uses
_SHORTHAND = re.compile(r"\b(?:pls|plz|thx|msg|msgs|fyi|btw|tbh|imo)\b", re.IGNORECASE)


def _chatter_copied(draft: str, brief: str) -> list[Finding]:
    """The brief's shorthand to the writer ("pls", "msg", "thx") copied into the text."""
    given = {m.group(0).lower() for m in _SHORTHAND.finditer(brief)}
    found = sorted({m.group(0) for m in _SHORTHAND.finditer(draft) if m.group(0).lower() in given})
    if not found:
        return []
    return [
        Finding(
            code="echo:shorthand",
            severity="must_fix",
            message=f"The text copies the brief's shorthand to the writer ({', '.join(found)}): "
            f"write it for the readers.",
            repair=Repair(
                action="rewrite",
                sentences=sentences_where(draft, lambda s: bool(_SHORTHAND.search(s))),
                goal="says the same for the readers, in full words, with no note to the writer",
            ),
        )
    ]


_SIGN_WORDS = r"sign(?:ed)?\s+(?:it\s+|this\s+)?(?:off\s+)?(?:from|as|by)"
_SIGN_ORDER = re.compile(r"(?i)\b" + _SIGN_WORDS + r"\b")
# where an order of several parts splits ("Friendly, not pushy, and sign it from me")
_ORDER_PIECES = re.compile(r"(?i)[,;:()]|\s+(?:and|but|then)\s+|\s+[-–—]\s+")
# a text that gives its own length ("in under 200 words")
_OWN_LENGTH = re.compile(r"(?i)\b\d+\s*(?:-\s*\d+\s*)?words?\b")


def _pasted(piece: str, joined: str) -> bool:
    """A piece of an order of two to six words stands in the text as written."""
    said = " ".join(words(piece))
    return (
        2 <= len(said.split()) <= 6
        and re.search(rf"(?<!\w){re.escape(said)}(?!\w)", joined) is not None
    )


_TO_READERS = re.compile(r"(?i)\b(?:you|your|yours|yourself|please)\b")


def _readers_as_they(draft: str, checklist: list[Requirement]) -> list[Finding]:
    """A sentence to the readers with an ask's words that call them "they" (an ask of the
    brief speaks of them to the writer): said to them by code, each such pronoun inside
    the copied words made "you"."""
    they = wording.THEY_TO_YOU.keys()
    asks = [
        r
        for r in checklist
        if r["kind"] == "ask" and they & set(words(r["text"])) and not _TO_READERS.search(r["text"])
    ]  # "your receipts": its they are others
    spans = {g for r in asks for g in grams(words(r["text"]), 4) if they & set(g)}
    leads = {words(r["text"])[0] for r in asks if words(r["text"])}
    out: list[Finding] = []
    for sentence in wording.sentences(draft):
        tokens = list(WORD.finditer(sentence))
        low = [t.group(0).lower() for t in tokens]
        if not low or not (_TO_READERS.search(sentence) or low[0] in leads):
            continue  # not said to them ("Guests tell us when they arrive")
        marked = {
            j
            for i in range(len(low) - 3)
            if tuple(low[i : i + 4]) in spans
            for j in range(i, i + 4)
            if low[j] in they and wording.readers_they(sentence, tokens[j].start())
        }
        if not marked:
            continue
        new = sentence
        for j in sorted(marked, reverse=True):
            new = (
                new[: tokens[j].start()]
                + wording.to_you(tokens[j].group(0))
                + new[tokens[j].end() :]
            )
        out.append(
            Finding(
                code=f"echo:they:{len(out) + 1}",
                severity="must_fix",
                message=f"The text speaks to its readers in the brief's words about them "
                f"({sentence[:80]!r}): say 'you' to them.",
                repair=Repair(action="replace", old=sentence, new=new),
            )
        )
    return out


# the order to sign as the text may carry it: "Sign it from", "please sign this off as"
_SIGN_LEAD = re.compile(r"(?i)(?:^|(?<=[\s,;:]))(?:and\s+)?(?:please\s+)?" + _SIGN_WORDS + r"\s+")


def _without_order(sentence: str, order: re.Match[str]) -> str:
    """The sentence with the order's words taken out, its first letter a capital and
    nothing left dangling ("The price is not set yet, tell her that." -> "The price is
    not set yet.")."""
    body = (sentence[: order.start()].rstrip() + " " + sentence[order.end() :]).strip()
    body = re.sub(r"\s+([,.;:!?])", r"\1", body).strip(" ,;:-–—")
    if not body:
        return ""
    lead = body[: len(body) - len(re.sub(r"^[*_#>\-\s]*", "", body))]
    rest = body[len(lead) :]
    return lead + rest[:1].upper() + rest[1:]


def _order_cut(draft: str, pattern: re.Pattern[str]) -> Repair | None:
    """A code repair for an order pasted inside a sentence: the sentence without it."""
    for sentence in wording.sentences(draft):
        found = pattern.search(sentence)
        if found:
            new = _without_order(sentence, found)
            if new and new != sentence:
                return Repair(action="replace", old=sentence, new=new)
            return Repair(action="drop", sentences=[sentence])
    return None


# An order to pass something on, pasted mid-sentence before what it hands over: ", so
# please say so and that", "so say", "; please tell residents", "- just let them know".
# The pronoun that opens what is handed over stays ("so say it will follow").
# It starts a clause: after a stop, or with "so", "and", "please" ("We will tell you
# when it opens" hands nothing over).
_RELAY_INSIDE = re.compile(
    r"(?i)(?:\s*[,;:–—]\s*|\s+-\s+|\s+(?=so\b|and\b|please\b|pls\b|just\b))"
    r"(?:(?:so|and)\s+)?(?:please\s+|pls\s+|just\s+)?"
    r"\b(?:say|mention|explain|tell\s+\w+|let\s+\w+\s+know)"
    r"(?:\s+so\b)?(?:\s+and\b)?(?:\s+that\b)?\s+(?=\w)"
)


def _relay_cut(draft: str, r: Requirement) -> Repair | None:
    """A gap pasted with its order to tell it inside ("The review isn't finished yet, so
    say it will follow once it's done."): the sentence without the order, what it hands
    over joined to the gap ("The review isn't finished yet; it will follow once it's
    done.")."""
    mine = set(r["terms"])
    for sentence in wording.sentences(draft):
        order = _RELAY_INSIDE.search(sentence)
        if (
            order is None
            or order.start() == 0
            or 2 * len(mine & wording.stems_of(sentence)) < len(mine)
        ):
            continue
        head = sentence[: order.start()].rstrip(" ,;:–—-")
        return Repair(action="replace", old=sentence, new=f"{head}; {sentence[order.end() :]}")
    return None


def _copied_repair(draft: str, r: Requirement) -> Repair:
    """An order to the writer copied into the text: dropped when it carries nothing the
    readers must be told (a task, a style note), else said as the text's own words. An
    order pasted around what it hands over ("Sign it from Marta", "…, tell her that",
    "Please tell people: don't resend") loses its order's words, by code: what it hands
    over stays."""
    if r["kind"] == "sign":
        cut = _order_cut(draft, _SIGN_LEAD)
        if cut:
            return cut
    if r["kind"] == "gap" and (told := TELLS_INSIDE.search(r["text"])):
        said = " ".join(words(told.group(0)))
        pattern = re.compile(
            r"(?i)[\s,;:–—-]*"
            + r"\W+".join(re.escape(w) for w in said.split())
            + r"\b(?:\s+(?:that|so|this|it))?(?=\s*[.!]?\s*$)"
        )
        cut = _order_cut(draft, pattern) or _relay_cut(draft, r)
        if cut:
            return cut
    if r["kind"] in ("fact", "ask") and r["subject"]:
        opening = re.compile(
            r"(?i)^[*_#>\-\s]*"
            + r"\W+".join(re.escape(w) for w in words(r["subject"]))
            + r"\b(?:\s+that\b)?[\s:,]*"
        )
        for sentence in wording.sentences(draft):
            found = opening.match(sentence)
            if found and sentence[found.end() :].strip():
                new = _without_order(sentence, found)
                if r["kind"] == "ask":
                    # "Ask everyone to update their pipeline" -> "Update your pipeline"
                    new = wording.said_to_readers(new)
                return Repair(action="replace", old=sentence, new=new)
    if r["kind"] in ("task", "style", "rule"):
        mine = grams(words(r["text"]), 3)
        lead = r["subject"].lower()

        def pasted(text: str) -> bool:
            return (bool(mine) and 2 * len(mine & grams(words(text), 3)) >= len(mine)) or (
                bool(lead) and text.lower().lstrip("*_#>- ").startswith(lead)
            )

        at_fault = sentences_where(draft, pasted)
        if len(at_fault) == 1:
            # "Storynest is a reading app for children, and we need the text for its
            # app store page.": the fact stays, the writer's clause goes
            parts = joined_clauses(at_fault[0])
            kept = [p for p in parts if not pasted(p)]
            if kept and len(kept) < len(parts):
                return Repair(
                    action="replace", old=at_fault[0], new=", ".join(kept).rstrip(".") + "."
                )
        return Repair(action="drop", sentences=at_fault)
    lead = r["subject"].lower()
    return rewrite(
        sentences_where(draft, lambda s: s.lower().lstrip("*_#>- ").startswith(lead)),
        "says it to the readers in the text's own words, not as an order to a writer",
        r["text"],
    )


# a line of notes, as no reader's text would print it: an arrow, a plus or an equals
# sign between words, "w/", "??", a note's short forms ("incl", "2+ yrs", "£60/yr")
_NOTE_SIGN = re.compile(
    r"→|->|=>|\s=\s|\bw/|\s\+\s|\d\+|\?\?|/(?:yr|hr|wk|mo|day|pp)\b"
    r"|\b(?:pls|plz|appts?|approx|incl|yrs?|wks?|mins|hrs|wknd|pcm|asap|tbc|tbd|thx|nr|govt)\b",
    re.IGNORECASE,
)
_MARKUP = re.compile(r"^[\s*_#>\-–—•]+|[\s*_]+$")
# labels that frame a brief (its request, its readers, how to write it), never a text's.
# ("To:", "From:", "Subject:" and "Note:" head a memo or an email as well: not here.)
_FRAME_LABELS = frozenset(
    {
        "what",
        "for",
        "audience",
        "readers",
        "tone",
        "style",
        "voice",
        "length",
        "layout",
        "format",
        "leave out",
        "sign",
        "signed",
        "sign-off",
        "task",
        "request",
    }
)
_LINE_LABEL = re.compile(r"^([A-Za-z][\w '/-]{0,25}?)\s*:\s+\S")
_EMAIL_HEADERS = frozenset({"subject", "re", "to", "from", "cc", "date"})


def _plain(line: str) -> str:
    return " ".join(words(line))


@functools.lru_cache(maxsize=64)
def _brief_lines(brief: str) -> tuple[Mapping[str, str], frozenset[str]]:
    """A brief's lines by their words (those of three words or more), and the labels its
    lines open with: the same in every round and for every repair candidate of a thread,
    so read once."""
    lines = logical_lines(brief)
    by_text = {_plain(line): line for line in lines if len(_plain(line).split()) >= 3}
    used = frozenset(m.group(1).strip().lower() for line in lines if (m := _LINE_LABEL.match(line)))
    return by_text, used


def check_pasted_lines(draft: str, brief: str, checklist: list[Requirement]) -> list[Finding]:
    """The brief's own lines printed as the text. A line of notes ("replacement arrives
    Mon 9 June" typed lower-case, "3m stepladder → withdrawn, 3rd rung bent", "Cars:
    £6.50/hr incl fuel + insurance") is no sentence a careful editor signs; nor is a line
    that keeps a label framing the brief ("To: Mrs Jean Hollis", "Tone: friendly"). A
    labelled line of facts ("When: Saturday 18 October, 10am–1pm") may stay: listings,
    fixtures and programmes print them so."""
    if not brief.strip():
        return []
    by_text, used = _brief_lines(brief)
    # the labels the brief frames itself with: its own, where they name the request, an
    # order to the writer or who signs ("Tone:", "What:")
    framing = {
        label.group(1).strip().lower()
        for r in checklist
        if r["kind"] in ("task", "style", "rule", "sign")
        and (label := _LINE_LABEL.match(r["text"]))
    } | (_FRAME_LABELS & used)
    pasted: list[str] = []
    for raw in draft.splitlines():
        line = _MARKUP.sub("", raw.strip())
        if not line:
            continue
        label = _LINE_LABEL.match(line)
        brief_line = by_text.get(_plain(line))
        if (
            label
            and label.group(1).strip().lower() in framing
            # an e-mail's own header ("Subject: Mileage claims from 1 June") is its form;
            # the brief's header printed as it stands is a note
            and (brief_line or label.group(1).strip().lower() not in _EMAIL_HEADERS)
        ):
            pasted.append(raw.strip())
            continue
        if brief_line and (_NOTE_SIGN.search(brief_line) or line[:1].islower()):
            pasted.append(raw.strip())
    if not pasted:
        return []
    return [
        Finding(
            code="echo:notes",
            severity="must_fix",
            message=f"The text prints the brief's own lines as notes ({pasted[0][:80]!r}"
            f"{f' and {len(pasted) - 1} more' if len(pasted) > 1 else ''}): write them as "
            f"sentences for the readers.",
            repair=rewrite(
                [s for s in wording.sentences(draft) if any(s.strip() in p for p in pasted)]
                or pasted,
                "says the same as a full sentence for the readers, without the brief's "
                "labels, arrows or short forms",
            ),
        )
    ]


class Echo(Check):
    """Text of the instructions or the critique in the draft, or the brief's orders
    copied as text: a run of six words, a whole sentence or a label of the prompts, the
    house rules, the rubric or the last critique; talk about "the draft"; an order to a
    writer ("Write API docs for..."); the brief's own instructions copied as text."""

    codes = ("echo",)
    repairs = frozenset({"drop", "rewrite", "replace"})
    repaired_holds = True  # a piece of a line it cannot be sure is an order

    def run(self, ctx: CheckContext) -> list[Finding]:
        return check_echo(
            ctx.draft, ctx.prompt_texts, ctx.sources, ctx.checklist, ctx.critique
        ) + check_pasted_lines(ctx.draft, ctx.brief, ctx.checklist)
