"""A thread's story: every round in order, with what the checks found, what the writer
was asked to do about it, what changed in the draft and whether the score moved, and
every decision a person made, with who and when.

Read from the thread's checkpoints (each judged round is one) and its run-log record:
nothing is stored for it, so threads that ran before it existed have their story too.
A thread whose old checkpoints `briefloop gc` pruned keeps only its last round's text;
`Story.pruned` says so.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Any

from batch.check_types import Requirement
from batch.judging.checklist.fixes import fixed
from batch.outcomes import is_approved
from batch.output import front_matter_of, in_this_project
from batch.run.records import decision_note
from batch.run.runner import Runner
from batch.thread_inputs import brief_of

# a word and the space after it: words are matched, the space goes with its word
_WORD = re.compile(r"(\S+)(\s*)")


@dataclass(frozen=True)
class Change:
    """One piece of a diff: `=` kept, `+` inserted, `-` deleted."""

    op: str
    text: str


@dataclass
class Round:
    number: int  # the writer round the draft came from (1 = the first draft)
    draft: str
    score: float | None
    must_fix: list[str]  # what blocked approval, the code's findings and the critic's
    would_improve: list[str]
    writer: list[str]  # what the writer was asked to do for this draft, and how it went
    changes: list[Change] = field(default_factory=list)  # against the round before
    # the checks' support map of the draft: each sentence, its items, the words it adds
    support: list[dict[str, Any]] = field(default_factory=list)
    score_change: float | None = None  # this round's score minus the one before

    @property
    def inserted(self) -> int:
        return sum(len(c.text.split()) for c in self.changes if c.op == "+")

    @property
    def deleted(self) -> int:
        return sum(len(c.text.split()) for c in self.changes if c.op == "-")


# a decision's kind as a reviewer reads it
DECISION_WORDS = {
    "approve": "approved",
    "reject": "rejected",
    "revise": "sent back",
    "reopen": "reopened",
    "invalid": "answer not taken",
}


@dataclass
class Decided:
    kind: str  # approve, reject, revise, reopen; invalid: an answer that was not taken
    by: str
    at: str
    note: str

    @property
    def words(self) -> str:
        return DECISION_WORDS.get(self.kind, self.kind.replace("_", " "))


@dataclass
class Story:
    thread_id: str
    brief_id: str
    title: str
    status: str  # the run log's: running, awaiting_human, finished, failed
    stop_reason: str | None
    rounds: list[Round]
    decisions: list[Decided]
    record: dict[str, Any]  # the run-log row
    pruned: bool = False  # earlier rounds' checkpoints are gone (briefloop gc)
    # every model call, in order (the run log's model_calls; batch.models.journal)
    calls: list[dict[str, Any]] = field(default_factory=list)
    brief: dict[str, Any] = field(default_factory=dict)  # the brief as the thread has it
    retries: list[dict[str, Any]] = field(default_factory=list)  # later attempts of it
    checklist: list[Requirement] = field(default_factory=list)  # what it asks
    # the text as it went out (its output file's body: a person's answers filled in,
    # their edit made), "" when none did or its file is gone
    published: str = ""
    answers: dict[str, str] = field(default_factory=dict)  # a person's values
    edited: bool = False  # the text that went out is a person's version

    def calls_of(self, number: int) -> list[dict[str, Any]]:
        """The model calls that made and judged round `number`."""
        return [c for c in self.calls if c.get("round") == number]

    def other_calls(self) -> list[dict[str, Any]]:
        """Calls of no round the story shows (a round that failed before its verdict)."""
        shown = {r.number for r in self.rounds}
        return [c for c in self.calls if c.get("round") not in shown]


# Word pairs a block's word-by-word diff may compare (its words before times after):
# difflib's matcher is quadratic or worse on long texts that repeat themselves, so a
# block bigger than this is shown rewritten, whole
WORD_DIFF_BUDGET = 40_000
_SENTENCE_END = re.compile(r"[.!?:;]['\")\]]*$")


def diff(before: str, after: str) -> list[Change]:
    """`after` against `before`, word by word: a rewritten run of words is one deletion
    and one insertion, not an interleave of the two, and a word that only moved to the
    end of a line is the same word. Kept and inserted text is `after`'s, spaces too.

    Bounded for any two texts: the common start and end are set aside, the rest is
    matched sentence by sentence, and only the sentences that changed are compared word
    by word, each block within WORD_DIFF_BUDGET; a bigger block is shown as rewritten."""
    a = [(m.group(1), m.group(0)) for m in _WORD.finditer(before)]
    b = [(m.group(1), m.group(0)) for m in _WORD.finditer(after)]
    out: list[Change] = []

    def add(op: str, tokens: list[tuple[str, str]]) -> None:
        text = "".join(whole for _, whole in tokens)
        if not text:
            return
        if out and out[-1].op == op:
            out[-1] = Change(op, out[-1].text + text)
        else:
            out.append(Change(op, text))

    def words(i1: int, i2: int, j1: int, j2: int) -> None:
        if (i2 - i1) * (j2 - j1) > WORD_DIFF_BUDGET:
            add("-", a[i1:i2])
            add("+", b[j1:j2])
            return
        matcher = difflib.SequenceMatcher(
            None, [w for w, _ in a[i1:i2]], [w for w, _ in b[j1:j2]], autojunk=False
        )
        for tag, x1, x2, y1, y2 in matcher.get_opcodes():
            if tag == "equal":
                add("=", b[j1 + y1 : j1 + y2])
                continue
            if tag in ("delete", "replace"):
                add("-", a[i1 + x1 : i1 + x2])
            if tag in ("insert", "replace"):
                add("+", b[j1 + y1 : j1 + y2])

    lead = after[: len(after) - len(after.lstrip())]
    if lead:
        out.append(Change("=", lead))
    start = 0
    while start < min(len(a), len(b)) and a[start][0] == b[start][0]:
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and a[-1 - end][0] == b[-1 - end][0]:
        end += 1
    add("=", b[:start])
    sa, sb = _sentences(a, start, len(a) - end), _sentences(b, start, len(b) - end)
    matcher = difflib.SequenceMatcher(
        None, [key for key, _, _ in sa], [key for key, _, _ in sb], autojunk=False
    )
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        a1 = sa[i1][1] if i1 < len(sa) else len(a) - end
        a2 = sa[i2 - 1][2] if i2 > i1 else a1
        b1 = sb[j1][1] if j1 < len(sb) else len(b) - end
        b2 = sb[j2 - 1][2] if j2 > j1 else b1
        if tag == "equal":
            add("=", b[b1:b2])
        else:
            words(a1, a2, b1, b2)
    add("=", b[len(b) - end :])
    return out


def _sentences(tokens: list[tuple[str, str]], start: int, stop: int) -> list[tuple[str, int, int]]:
    """The sentences of tokens[start:stop]: (their words, first index, end index)."""
    out: list[tuple[str, int, int]] = []
    first = start
    for i in range(start, stop):
        if _SENTENCE_END.search(tokens[i][0]) or "\n" in tokens[i][1] or i == stop - 1:
            out.append((" ".join(w for w, _ in tokens[first : i + 1]), first, i + 1))
            first = i + 1
    return out


def writer_steps(entries: list[dict[str, Any]]) -> list[str]:
    """What the writer log says the writer did for a round's draft, one line per step."""
    out: list[str] = []
    for entry in entries:
        kind = entry.get("kind")
        if kind == "repairs":
            out += [repair_step(a) for a in entry.get("attempts", [])]
        elif kind == "first drafts":
            samples = entry.get("samples", [])
            valid = [s for s in samples if s.get("valid")]
            if len(samples) > 1:
                picked = entry.get("chosen")  # logged since the story was told
                chosen = f"; the checks chose sample {picked + 1}" if picked is not None else ""
                out.append(
                    f"wrote the first draft ({len(samples)} samples, {len(valid)} valid{chosen})"
                )
            else:
                out.append("wrote the first draft")
        elif kind == "rewrite":
            out.append("wrote a new version from the brief and the last round's notes")
        elif kind == "docs by name":
            out.append(f"wrote the API docs name by name ({len(entry.get('names', []))} names)")
    return out


# A repair's action, said as what it did (batch.state.Repair's actions)
_DID = {
    "state": "stated the missing fact",
    "rewrite": "rewrote the sentence",
    "drop": "dropped the sentence",
    "shorten": "shortened the text to",
    "lengthen": "lengthened the text to",
    "placeholder": "put a placeholder for what only a person knows:",
    "replace": "replaced",
    "append": "added the line",
}
# what code does for some of them (batch.loop.writing.candidates)
_DID_BY_CODE = {
    "rewrite": "dropped the sentence",
    "state": "stated, in the brief's own words, the missing fact",
}
_SUBJECT_CHARS = 120


def repair_step(a: dict[str, Any]) -> str:
    """One repair as a sentence a reader follows: what it did and to what, who wrote it,
    and what the checks made of it (kept or not; kept but its own problem still found)."""
    subject = " ".join(str(a.get("subject") or "").split())
    if len(subject) > _SUBJECT_CHARS:
        subject = subject[: _SUBJECT_CHARS - 1] + "…"
    action = a.get("action", "")
    did = _DID_BY_CODE.get(action) if a.get("by") == "code" else None
    did = did or _DID.get(action, f"tried {action or 'a repair'}")
    if subject:
        did += (
            f" {subject}"
            if a.get("action") in ("shorten", "lengthen", "placeholder")
            else f" '{subject}'"
        )
    elif a.get("problem"):
        did += f", for: {a['problem']}"
    else:  # a log from before the words were kept
        did += f" (finding {a.get('code', '?')})"
    who = "written by the model" if a.get("by") == "model" else "done by code"
    if not a.get("kept"):
        return f"{did} ({who}; not kept: the checks did not find less)"
    own_fixed = a.get("code") in (a.get("fixed") or [])
    if own_fixed or not a.get("fixed"):
        return f"{did} ({who}; the checks kept it)"
    others = "; ".join(a.get("fixed_problems") or a.get("fixed") or [])
    return (
        f"{did} ({who}; kept because the checks found less elsewhere: {others}; "
        f"this problem is still found)"
    )


def _decision(d: dict[str, Any]) -> Decided:
    kind = d.get("type", "")
    # an answer not taken: why not; else as the run log words it
    note = d.get("problem", "") if kind == "invalid" else decision_note(d) or ""
    return Decided(kind, str(d.get("by") or ""), str(d.get("at") or ""), str(note))


def story(runner: Runner, thread_id: str) -> Story | None:
    """The thread's story, or None when there is no such thread."""
    record = runner.runlog.by_thread(thread_id)
    snapshots = list(runner.graph.get_state_history(runner.config_for(thread_id)))
    if not snapshots and record is None:
        return None
    snapshots.reverse()  # oldest first
    rounds: list[Round] = []
    decisions: list[Decided] = []
    judged = 0
    last_decision: dict[str, Any] | None = None
    for snap in snapshots:
        values = snap.values or {}
        history = values.get("score_history") or []
        if len(history) > judged and values.get("draft") is not None:
            judged = len(history)
            number = values.get("round", 0)
            rounds.append(
                Round(
                    number=number,
                    draft=values.get("draft", ""),
                    score=history[-1],
                    must_fix=list(values.get("must_fix") or []),
                    would_improve=list(values.get("would_improve") or []),
                    writer=writer_steps(
                        [e for e in values.get("writer_log") or [] if e.get("round") == number]
                    ),
                    support=list((values.get("judgement") or {}).get("support") or []),
                )
            )
        decision = values.get("decision")
        if decision and decision != last_decision and decision.get("type"):
            last_decision = decision
            decisions.append(_decision(decision))
    for before, after in zip(rounds, rounds[1:], strict=False):
        after.changes = diff(before.draft, after.draft)
        if before.score is not None and after.score is not None:
            after.score_change = round(after.score - before.score, 1)
    values = snapshots[-1].values if snapshots else {}
    # none kept: a thread that failed before its brief was read, or whose checkpoints
    # are gone (its page then offers no retry)
    brief = brief_of(values) if values.get("brief") else None
    record = record or {}
    history = record.get("score_history") or values.get("score_history") or []
    return Story(
        thread_id=thread_id,
        brief_id=record.get("brief_id") or (brief.id if brief else ""),
        title=record.get("title") or (brief.title if brief else ""),
        status=record.get("status", "unknown"),
        stop_reason=record.get("stop_reason"),
        rounds=rounds,
        decisions=decisions,
        record=record,
        pruned=len(rounds) < len(history),
        calls=runner.runlog.calls(thread_id),
        brief=brief.model_dump() if brief else {},
        checklist=fixed(list(values.get("checklist") or []), values.get("checklist_fixes") or []),
        retries=runner.runlog.retries_of(thread_id),
        published=published_text(runner, record, brief.id if brief else ""),
        answers={str(k): str(v) for k, v in (values.get("human_answers") or {}).items()},
        edited=any(d.kind == "approve" and "edited" in d.note for d in decisions[-1:]),
    )


def published_text(runner: Runner, record: dict[str, Any], brief_id: str) -> str:
    """The body of the output file an approved run wrote, when it is still that run's
    (its front matter names the brief and says approved); "" otherwise."""
    stored = record.get("output_path")
    if not stored or not is_approved(record.get("stop_reason")):
        return ""
    found = front_matter_of(in_this_project(runner.settings.output_dir, stored))
    if found is None:
        return ""
    front, body = found
    if str(front.get("brief_id")) != (record.get("brief_id") or brief_id) or not front.get(
        "approved"
    ):
        return ""
    if front.get("thread_id") and front["thread_id"] != record.get("thread_id"):
        return ""  # another run's text of the brief (a version put back, a rerun)
    return body.strip()
