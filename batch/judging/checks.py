"""Deterministic checks on a draft: findings code makes and the model cannot talk away.

Each finding has a stable `code`, so the same problem in two rounds is recognisably the
same (the no-progress rule compares them), and a severity: `must_fix` findings block
approval whatever the critic scores; `warn` findings go to would_improve.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from batch import placeholders as ph
from batch.cleanup import CODE, FENCE_TAG
from batch.judging import checklist as req
from batch.judging.apidocs import check_api_docs
from batch.judging.checklist import Requirement
from batch.state import Finding, Repair

_LIST_MARKER = re.compile(r"^(\s*)\d+[.)]\s", re.MULTILINE)
_NUMBER, _WORD = req.NUMBER, req.WORD
GENERIC_FEEDBACK = "Re-read the brief and the rubric, and fix the weakest part of the text."


def numbers_in(text: str) -> set[str]:
    text = ph.without(text)
    text = _LIST_MARKER.sub(r"\1", text)
    return {req.normalize_number(m.group(0)) for m in _NUMBER.finditer(text)}


def word_count(text: str) -> int:
    return len(_WORD.findall(text))


def sentences_where(draft: str, test) -> list[str]:
    """The draft's sentences (list items and headings too, as the draft has them) for
    which `test` holds: what a repair rewrites or drops."""
    return [s for s in req.sentences(draft) if test(s)]


def _rewrite(sentences: list[str], goal: str, fact: str = "") -> Repair:
    repair = Repair(action="rewrite", sentences=sentences, goal=goal)
    if fact:
        repair["fact"] = fact
    return repair


def check_placeholders(draft: str, needs: list[dict[str, str]]) -> list[Finding]:
    found = {ph.normalize(p): p for p in ph.find(draft)}
    listed: dict[str, str] = {}
    out: list[Finding] = []
    for need in needs:
        raw = need.get("placeholder", "")
        if not ph.is_placeholder(raw):
            out.append(Finding(
                code=f"need-malformed:{ph.normalize(raw)[:80]}",
                message=f"needs_from_human lists {raw!r}, which is not a placeholder of the "
                        f"form {ph.EXAMPLE}",
                severity="must_fix"))
            continue
        listed[ph.normalize(raw)] = raw
    for key, raw in found.items():
        if key not in listed:
            out.append(Finding(
                code=f"placeholder-unlisted:{key}",
                message=f"The text contains {raw} but needs_from_human does not list it: "
                        f"add it there with the question a person must answer.",
                severity="must_fix"))
    for key, raw in listed.items():
        if key not in found:
            out.append(Finding(
                code=f"need-missing:{key}",
                message=f"needs_from_human lists {raw} but the text does not contain it: put "
                        f"the placeholder where the fact belongs, or drop the entry.",
                severity="must_fix"))
    return out


def check_numbers(draft: str, sources: Iterable[str], severity: str) -> list[Finding]:
    if severity == "off":
        return []
    allowed: set[str] = set()
    for source in sources:
        allowed |= numbers_in(source)
    out: list[Finding] = []
    for number in sorted(numbers_in(draft) - allowed):
        out.append(Finding(
            code=f"number:{number}",
            repair=_rewrite(sentences_where(draft, lambda s, n=number: n in numbers_in(s)),
                            f"no longer gives the number {number} (no source gives it)"),
            message=f"The number {number} appears in no source (brief, source file or a "
                    f"person's answer). Do not invent figures: use a placeholder such as "
                    f"[FIGURE NEEDED: what it measures] and list it in needs_from_human.",
            severity="must_fix" if severity == "must_fix" else "warn"))
    return out


def check_length(draft: str, min_words: int | None, max_words: int | None) -> list[Finding]:
    words = word_count(draft)
    if max_words and words > max_words:
        return [Finding(code="too-long",
                        message=f"The text has {words} words; the brief allows at most "
                                f"{max_words}. Cut it.",
                        severity="must_fix", repair=Repair(action="shorten", words=max_words))]
    if min_words and words < min_words:
        return [Finding(code="too-short",
                        message=f"The text has {words} words; the brief asks for at least "
                                f"{min_words}.",
                        severity="must_fix", repair=Repair(action="lengthen", words=min_words))]
    return []


def check_banned(draft: str, phrases: Iterable[str]) -> list[Finding]:
    out: list[Finding] = []
    for phrase in phrases:
        pattern = r"(?<!\w)" + re.escape(phrase) + r"(?!\w)"
        if re.search(pattern, draft, re.IGNORECASE):
            out.append(Finding(code=f"banned:{phrase.lower()}",
                               message=f"The house rules ban the phrase {phrase!r}.",
                               severity="must_fix", repair=_rewrite(
                                   sentences_where(draft, lambda s, p=pattern: re.search(
                                       p, s, re.IGNORECASE) is not None),
                                   f"no longer uses the phrase {phrase!r} and says the "
                                   f"same thing plainly")))
    return out


_DOCSTRING_START = ("#", '"' * 3, "'" * 3)


def check_copied_source(draft: str, source: str) -> list[Finding]:
    """Docs that paste the code they should explain: a fifth or more of the source's
    substantial lines, verbatim."""
    lines = {re.sub(r"\s+", " ", ln.strip()) for ln in source.splitlines()
             if len(ln.strip()) >= 16 and not ln.strip().startswith(_DOCSTRING_START)}
    if not lines:
        return []
    text = {re.sub(r"\s+", " ", ln.strip()) for ln in draft.splitlines()}
    copied = len(lines & text)
    if copied / len(lines) < 0.2:
        return []
    return [Finding(code="copies-source", severity="must_fix",
                    message=f"The text pastes {copied} lines of the source code: explain "
                            f"what the code does and how to call it instead.")]


def check_copied_brief(draft: str, brief: str) -> list[Finding]:
    """A draft that is mostly the brief's own sentences has probably not done the task.

    A warning, not must_fix: it is a heuristic, and a template brief ("send exactly
    this, filled in") is rightly reproduced almost word for word.
    """
    if len(_WORD.findall(draft)) < 12 or not is_echo(draft, [brief], share=0.6):
        return []
    return [Finding(code="copies-brief",
                    message="The text repeats much of the brief word for word: write the "
                            "finished text for its readers, not the instructions.",
                    severity="warn")]


def check_requirements(draft: str, checklist: list[Requirement]) -> list[Finding]:
    """Every fact, ask and public name of the brief is in the text."""
    out: list[Finding] = []
    for r in checklist:
        if r["kind"] not in req.COVERED_KINDS:
            continue
        ok = req.covered(r, draft)
        if r["kind"] == "gap":
            ok = ok and req.tells_gap(draft, r["subject"])
        if ok:
            continue
        if r["kind"] == "api":
            message = (f"The docs do not cover the public {r['text']}: add a section for "
                       f"`{r['subject']}`.")
        elif r["kind"] == "raises":
            message = (f"The code raises {r['subject']} ({r['text']}); the docs do not say "
                       f"so: say when it is raised.")
        elif r["kind"] == "gap":
            message = (f"The brief asks the text to say that {r['subject']} is not known "
                       f"yet ({r['text']!r}); say so.")
        elif r["kind"] == "sign":
            message = f"The brief asks the text to be signed {r['subject']!r}; end with it."
        else:
            what = "ask its readers" if r["kind"] == "ask" else "say"
            message = f"The text does not {what} what the brief gives as {r['text']!r}."
        finding = Finding(code=f"uncovered:{r['id']}", message=message, severity="must_fix")
        if r["kind"] == "sign":
            signature = r["subject"][0].upper() + r["subject"][1:]
            finding["repair"] = Repair(action="append", new=signature)
        elif r["kind"] in ("fact", "ask", "gap"):
            # API docs are sections, not sentences: those are left to a whole rewrite
            finding["repair"] = Repair(action="state", fact=r["text"], goal=(
                f"tells the readers that {r['subject']} is not known yet"
                if r["kind"] == "gap" else
                "asks the readers to do this" if r["kind"] == "ask" else
                "states this fact of the brief"))
        out.append(finding)
    return out


def check_missing_facts(draft: str, checklist: list[Requirement],
                        answered: Iterable[str] = ()) -> list[Finding]:
    """A fact the brief says is not known is a placeholder (or a person's answer to one),
    never a guess or a remark to the readers that it is unknown (unless the brief asks
    for that: kind "gap")."""
    out: list[Finding] = []
    missing = [r for r in checklist if r["kind"] == "missing"]
    free = [set(req.content_terms(p)) for p in [*ph.find(draft), *answered]]
    for r in missing:
        want = set(r["terms"])
        match = next((i for i, terms in enumerate(free) if want & terms), None)
        if match is None and len(free) > 0 and not want:
            match = 0
        label = r["subject"] or "the missing fact"
        # the sentences that tell the gap, or guess the fact: the ones on its subject
        subject = set(req.content_terms(label))
        telling = sentences_where(
            draft, lambda s, r=r: req.tells_gap(ph.without(s), r["subject"]))
        about = [s for s in sentences_where(draft, lambda s, subject=subject: bool(
            subject & req.stems_of(ph.without(s))) and not ph.find(s))
            if s not in telling] if subject else []
        if match is None:
            out.append(Finding(
                code=f"missing-placeholder:{r['id']}", severity="must_fix",
                message=f"The brief says {label} is not known yet: write the "
                        f"placeholder {ph.suggest(label)} where it belongs and "
                        f"list it in needs_from_human; never guess it.",
                repair=Repair(action="placeholder", placeholder=ph.suggest(label),
                              sentences=telling or about[:1], fact=r["text"])))
        else:
            free.pop(match)
        if telling:
            out.append(Finding(
                code=f"gap-told:{r['id']}", severity="must_fix",
                message=f"The text tells its readers that {r['subject'] or 'a fact'} is not "
                        f"known; the brief does not ask for that. Use the placeholder "
                        f"instead, so a person can fill in the fact.",
                repair=Repair(action="placeholder", placeholder=ph.suggest(label),
                              sentences=telling, fact=r["text"])))
    return out


def check_contradictions(draft: str, checklist: list[Requirement]) -> list[Finding]:
    """A sentence that says a requirement the other way round: a negation the brief does
    not have (or lacks one it has), or a word's opposite ("after" for "before")."""
    out: list[Finding] = []
    draft_sentences = [(s, req.stems_of(s)) for s in req.sentences(ph.without(draft))]
    for r in checklist:
        if r["kind"] not in ("fact", "ask") or not r["terms"]:
            continue
        terms = set(r["terms"])
        for sentence, stems in draft_sentences:
            shared = len(terms & stems)
            share = shared / len(terms)
            # An opposite is a strong cue: a sentence on the same subject is enough. A
            # negation is a weak one: the sentence must say most of the requirement.
            if share >= 0.5 and shared >= min(2, len(terms)):
                clash = req.polarity_clash(r["text"], sentence, r["terms"])
            elif shared >= 2:
                clash = req.opposite_of(r["text"], sentence)
            else:
                continue
            if clash:
                out.append(Finding(
                    code=f"contradiction:{r['id']}", severity="must_fix",
                    message=f"The text says {sentence[:160]!r}, with {clash}: the brief "
                            f"gives {r['text']!r}. Say what the brief says.",
                    repair=_rewrite([sentence], "says what the brief says", r["text"])))
                break
    return out


# Capitalised words a text may use that no source needs to give.
GENERIC_NAMES = frozenset({"i", "ok", "true", "false", "none", "python", "markdown", "api",
                           "url", "ascii", "unicode", "utf-8", "json"})
_INITIAL_BEFORE = set(".!?:;")
_MARKUP = set(" \t*_`>[(\"'“‘#-|")
_TOKEN = re.compile(r"(?<![A-Za-z0-9])[A-Za-z][A-Za-z0-9]*(?:['’-][A-Za-z0-9]+)*")


def _source_words(sources: Iterable[str]) -> set[str]:
    words: set[str] = set()
    for text in sources:
        for w in _TOKEN.findall(text or ""):
            lw = w.lower().replace("’", "'")
            words.add(lw)
            words.update(p for p in re.split(r"['-]", lw) if p)
    return words


def names_in(text: str) -> list[str]:
    """Words that read as names: capitalised inside a sentence, acronyms, and mixed
    letters and digits (X200, iPhone). Sentence starts and headings are not taken as
    names unless the word has digits or inner capitals. Code is left to the code checks."""
    text = CODE.sub(" ", ph.without(text))
    found: list[str] = []
    for line in text.splitlines():
        heading = line.lstrip().startswith("#")
        body = re.sub(r"^\s*(?:[-*+]|\d+[.)])\s+", "", line)
        for m in _TOKEN.finditer(body):
            word = m.group(0)
            if re.search(r"['’]s$", word):
                word = word[:-2]
            letters = re.sub(r"[^A-Za-z]", "", word)
            mixed = bool(re.search(r"\d", word)) or bool(re.search(r"[a-z][A-Z]", word))
            acronym = len(letters) >= 2 and letters.isupper()
            capital = word[0].isupper()
            if not (mixed or acronym or capital):
                continue
            before = body[: m.start()].rstrip("".join(_MARKUP))
            initial = not before or before[-1] in _INITIAL_BEFORE or before[-1].isdigit()
            if mixed or (not heading and (acronym or not initial)):
                found.append(word)
    return found


def check_names(draft: str, sources: Iterable[str]) -> list[Finding]:
    """Names in the text that no source gives: an invented person, firm, place or day."""
    allowed = _source_words(sources) | GENERIC_NAMES
    # "Fridays" for the brief's "Friday", "Mondays'": another form of a word it gives
    stems = {req.stem(w) for w in allowed}
    out: list[Finding] = []
    seen: set[str] = set()
    for name in names_in(draft):
        key = name.lower().replace("’", "'")
        parts = [p for p in re.split(r"['-]", key) if p]
        if key in allowed or key in seen or (parts and all(
                p in allowed or req.stem(p) in stems for p in parts)):
            continue
        seen.add(key)
        out.append(Finding(
            code=f"name:{key}", severity="must_fix",
            repair=_rewrite(sentences_where(draft, lambda s, n=name: n in names_in(s)),
                            f"no longer names {name!r} (no source gives it)"),
            message=f"The text names {name!r}, which no source gives (brief, source file or "
                    f"a person's answer). Remove it, or use a placeholder such as "
                    f"[NAME NEEDED: who or what] and list it in needs_from_human."))
    return out


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(ph.without(text))]


def _grams(words: list[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(words[i:i + n]) for i in range(max(0, len(words) - n + 1))}


def word_grams(text: str, n: int) -> set[tuple[str, ...]]:
    """The runs of n words of a text, lower-cased, placeholders left out."""
    return _grams(_words(text), n)


ECHO_WORDS = 6  # a run of this many words shared with a prompt is not a coincidence
# Talk about the task rather than the text ("You can review this draft..."), and the
# tags prompts put around material (<brief-1a2b3c>).
_META_TALK = re.compile(
    r"(?i)\b(?:this|the|my|your|previous|revised)\s+(?:draft|brief|critique|rubric)\b|"
    r"\bhouse rules\b|\b(?:must[ _]fix|would[ _]improve|needs_from_human|"
    r"deliberate[ _]deviations)\b")
# A sentence that tells a writer what to write ("Write API docs for this file.").
_INSTRUCTION = re.compile(
    r"(?i)^(?:please\s+)?(?:write|draft|document|compose|produce|prepare|create)\s+"
    r"(?:\w+\s+){0,3}?(?:memo|docs|documentation|description|text|email|page|copy|summary|"
    r"post|announcement|notice|draft|reference)\b")
_MARKER = re.compile(r"\b[A-Z][A-Z']+(?: [A-Z][A-Z']+)+\b|\b[a-z]+(?:_[a-z]+)+\b")


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
    sentences = frozenset(" ".join(w) for s in re.split(r"(?<=[.!?:])\s+|\n", text)
                          if len(w := _words(s)) >= 4)
    return _PromptText(frozenset(_grams(_words(text), ECHO_WORDS)), _markers_of(text),
                       sentences)


@dataclass(frozen=True)
class _Prompts:
    grams: frozenset[tuple[str, ...]]
    markers: frozenset[str]
    # every start of 4 words or more of every prompt sentence, the whole one included
    sentence_starts: frozenset[str]


@functools.lru_cache(maxsize=16)
def _prompts(prompt_texts: tuple[str, ...]) -> _Prompts:
    texts = [_prompt_text(t) for t in prompt_texts]
    return _Prompts(frozenset().union(*(t.grams for t in texts)),
                    frozenset().union(*(t.markers for t in texts)),
                    _sentence_starts(frozenset().union(*(t.sentences for t in texts))))


@dataclass(frozen=True)
class _EchoReference:
    leaked: frozenset[tuple[str, ...]]  # the prompts' word runs the brief's texts lack
    markers: frozenset[str]  # the prompts' labels the brief's texts lack
    own_text: str  # the brief's texts' words, lower-cased, one space apart
    sentence_starts: frozenset[str]  # _Prompts.sentence_starts


@functools.lru_cache(maxsize=32)
def _echo_reference(prompt_texts: tuple[str, ...],
                    brief_sources: tuple[str, ...]) -> _EchoReference:
    """The prompts against one thread's brief texts (brief, title, source, a person's
    answers): the same in every round of the thread. Only the prompts' side is kept
    per text; a source file can be large, and a thread needs its own once."""
    prompts = _prompts(prompt_texts)
    own_words = [_words(t) for t in brief_sources]
    own_grams = set().union(*(_grams(w, ECHO_WORDS) for w in own_words))
    return _EchoReference(
        leaked=prompts.grams - own_grams if own_grams else prompts.grams,
        markers=prompts.markers - prompt_markers(brief_sources),
        own_text=" ".join(" ".join(w) for w in own_words),
        sentence_starts=prompts.sentence_starts)


def _sentence_starts(sentences: Iterable[str]) -> frozenset[str]:
    """Every start of 4 words or more of each sentence (words one space apart), the
    whole sentence included."""
    out: set[str] = set()
    for sentence in sentences:
        words = sentence.split(" ")
        out.update(" ".join(words[:n]) for n in range(4, len(words) + 1))
    return frozenset(out)


def check_echo(draft: str, prompt_texts: Iterable[str], brief_sources: Iterable[str],
               checklist: list[Requirement], critique: Iterable[str] = ()) -> list[Finding]:
    """Text of the prompts, the house rules or the rubric inside the draft (a run of
    words, a label or a sentence), a critique point pasted in whole, and the brief's own
    instructions copied as if they were the text."""
    ref = _echo_reference(tuple(prompt_texts), tuple(brief_sources))
    draft_words = _words(draft)
    hits = [g for g in _grams(draft_words, ECHO_WORDS) if g in ref.leaked]
    markers = sorted(m for m in ref.markers if m in draft)
    # prompts by the sentence; a critique point only whole (its suggested wording after
    # a colon may rightly be taken up)
    critique_starts = _sentence_starts(" ".join(w) for t in critique
                                       if len(w := _words(t)) >= 4)
    for sentence in req.sentences(draft):
        key = " ".join(_words(sentence))
        if key in ref.own_text:
            continue
        # a whole sentence of the prompt, or the start of one ("Answer with one JSON
        # object" of "Answer with one JSON object: ..."), or an order to a writer
        from_prompt = len(key.split()) >= 4 and (key in ref.sentence_starts
                                                  or key in critique_starts)
        if (from_prompt or _INSTRUCTION.match(sentence.lstrip("*_#>- "))
                or _META_TALK.search(sentence)):
            markers.append(sentence.strip())
    markers += [m.group(0) for m in FENCE_TAG.finditer(draft)]
    out: list[Finding] = []
    if hits or markers:
        sample = markers[0] if markers else " ".join(hits[0])
        leaked = [" ".join(h) for h in hits]
        out.append(Finding(
            code="echo:prompt", severity="must_fix",
            message=f"The text contains words of the instructions or the critique "
                    f"({sample!r}): write only the text for its readers.",
            repair=Repair(action="drop", sentences=sentences_where(draft, lambda s: any(
                m in s for m in markers) or any(g in " ".join(_words(s)) for g in leaked)))))
    lowered = draft.lower()
    starts = [s.lower() for s in req.sentences(draft)]
    for r in checklist:
        copied = False
        if r["kind"] == "task":
            mine = _grams(_words(r["text"]), 3)
            copied = bool(mine) and len(mine & _grams(draft_words, 3)) / len(mine) >= 0.75
        elif r["kind"] == "style":
            copied = re.search(r"(?m)^\W*" + re.escape(r["subject"].lower()), lowered) is not None
        elif r["subject"] and r["kind"] in ("fact", "ask"):
            lead = r["subject"].lower()
            copied = any(s.lstrip("*_#>- ").startswith(lead) for s in starts)
        if copied:
            out.append(Finding(
                code=f"echo:brief:{r['id']}", severity="must_fix",
                message=f"The text copies the brief's instruction {r['text'][:120]!r} "
                        f"as text: carry it out instead of repeating it.",
                repair=_copied_repair(draft, r)))
    return out


def _copied_repair(draft: str, r: Requirement) -> Repair:
    """An order to the writer copied into the text: dropped when it carries nothing the
    readers must be told (a task, a style note), else said as the text's own words."""
    if r["kind"] in ("task", "style"):
        mine = _grams(_words(r["text"]), 3)
        lead = r["subject"].lower()
        return Repair(action="drop", sentences=sentences_where(draft, lambda s: (
            bool(mine) and 2 * len(mine & _grams(_words(s), 3)) >= len(mine))
            or (bool(lead) and s.lower().lstrip("*_#>- ").startswith(lead))))
    lead = r["subject"].lower()
    return _rewrite(sentences_where(draft, lambda s: s.lower().lstrip("*_#>- ").startswith(lead)),
                    "says it to the readers in the text's own words, not as an order "
                    "to a writer", r["text"])


def check_placeholder_forms(draft: str) -> list[Finding]:
    out: list[Finding] = []
    for whole in ph.misspelled(draft):
        out.append(Finding(
            code=f"placeholder-form:{ph.normalize(whole)[:80]}", severity="must_fix",
            message=f"{whole} is a gap that is not a placeholder of the form "
                    f"{ph.EXAMPLE}: write it in that form and list it in "
                    f"needs_from_human, or fill it from the brief.",
            repair=_rewrite(sentences_where(draft, lambda s, w=whole: w in s),
                            f"writes {whole} as a placeholder of the form "
                            f"{ph.EXAMPLE}")))
    return out


def check_repeated(draft: str) -> list[Finding]:
    """A sentence the text says twice, word for word or nearly (the same three-word runs
    at least 80 %): a small model's slip no reader wants. Its repair drops the copy."""
    seen: list[tuple[str, set[tuple[str, ...]]]] = []
    out: list[Finding] = []
    for sentence in req.sentences(CODE.sub(" ", draft)):
        words = [w.lower() for w in _WORD.findall(sentence)]  # placeholders' words too
        if len(words) < 4:
            continue
        grams = _grams(words, 3) or {tuple(words)}
        twin = next((s for s, g in seen if g == grams or (
            len(words) >= 8 and len(g & grams) / len(g | grams) >= 0.8)), None)
        if twin is None:
            seen.append((sentence, grams))
            continue
        if sentence not in draft:
            continue
        out.append(Finding(
            code=f"repeated:{' '.join(words[:8])}", severity="must_fix",
            message=f"The text says {twin[:120]!r} twice: say it once.",
            repair=Repair(action="drop", sentences=[sentence])))
    return out


def check_given_as_gap(draft: str, brief: str, unknown: Iterable[str] = ()) -> list[Finding]:
    """A fact the brief gives, wrapped in a placeholder as if it were missing
    ("[TIME NEEDED: 15:00 CET]" where the brief says 15:00 CET): the fact is written,
    not asked of a person. Only a gap that holds a figure and is word for word a piece
    of the brief counts: "[FIGURE NEEDED: Q3 revenue]" holds no figure, and
    "[FIGURE NEEDED: Ridgeway 28 price]" names what is missing, in words of its own.
    Nor does one worded as the brief words what it does not know (`unknown`, the
    texts of its missing facts): "[DATE NEEDED: reopening time on 13 June]" where the
    brief says "the reopening time on 13 June is not confirmed yet"."""
    if not brief:
        return []
    flat = " ".join(brief.lower().split())
    gaps = [" ".join(u.lower().split()) for u in unknown]
    out: list[Finding] = []
    for m in ph.BRACKETED.finditer(draft):
        whole, inside = m.group(0), m.group(1)
        if ":" not in inside:
            continue
        given = inside.split(":", 1)[1].strip().strip(".")
        said = " ".join(given.lower().split())
        if not req.numbers_of(given) or not re.search(
                r"(?<!\w)" + re.escape(said) + r"(?!\w)", flat):
            continue
        if any(said in gap for gap in gaps):
            continue
        out.append(Finding(
            code=f"placeholder-given:{ph.normalize(whole)[:80]}", severity="must_fix",
            message=f"{whole} asks a person for {given!r}, which the brief gives: write "
                    f"the fact itself.",
            repair=Repair(action="replace", old=whole, new=given)))
    return out


_HTML_TAG = re.compile(r"</?(?:p|br|strong|b|em|i|u|div|span|ul|ol|li|h[1-6]|a|table|tr|td|"
                       r"th|img|pre|blockquote|hr)\b[^<>\n]*/?>", re.IGNORECASE)


def check_html(draft: str) -> list[Finding]:
    """The text is Markdown: HTML tags outside code (a small model's `<p><strong>`) show
    up as tags wherever the text is read as Markdown or plain text."""
    tags = sorted({m.group(0) for m in _HTML_TAG.finditer(CODE.sub(" ", draft))})
    if not tags:
        return []
    return [Finding(code="html", severity="must_fix",
                    message=f"The text uses HTML tags ({', '.join(tags[:4])}); write it in "
                            f"Markdown: **bold**, a blank line between paragraphs.")]


def run_checks(
    draft: str,
    needs: list[dict[str, str]],
    sources: Iterable[str],
    number_severity: str,
    min_words: int | None,
    max_words: int | None,
    banned_phrases: Iterable[str],
    brief: str = "",
    checklist: list[Requirement] | None = None,
    prompt_texts: Iterable[str] = (),
    critique: Iterable[str] = (),
    answered: Iterable[str] = (),
    source_code: str = "",
    module: str = "",
) -> list[Finding]:
    """Every deterministic check. `sources` are the texts facts may come from (brief,
    title, source file, a person's answers); `prompt_texts` every instruction text the
    draft must not contain (prompts, house rules, rubric, the last critique);
    `answered` the placeholders a person has filled; `source_code` the Python file the
    text documents, if it documents one."""
    if not draft.strip():
        return [Finding(code="empty-draft", message="The draft is empty.", severity="must_fix")]
    if is_degenerate(draft):
        return [Finding(code="degenerate-draft", severity="must_fix",
                        message="The draft is one word or symbol repeated, not a text.")]
    sources = list(sources)
    checklist = checklist or []
    return [
        *check_copied_brief(draft, brief),
        *check_placeholders(draft, needs),
        *check_placeholder_forms(draft),
        *check_given_as_gap(draft, brief,
                            [r["text"] for r in checklist if r["kind"] == "missing"]),
        # API docs rightly say a parameter's meaning again for each function
        *(check_repeated(draft) if brief else []),
        *check_html(draft),
        *check_numbers(draft, sources, number_severity),
        *check_length(draft, min_words, max_words),
        *check_banned(draft, banned_phrases),
        *check_requirements(draft, checklist),
        *check_missing_facts(draft, checklist, answered),
        *check_contradictions(draft, checklist),
        *check_names(draft, sources),
        *check_echo(draft, prompt_texts, sources, checklist, critique),
        *(check_api_docs(draft, source_code, module) if source_code else []),
        *(check_copied_source(draft, source_code) if source_code else []),
    ]


# The checks besides the checklist that a draft passes or fails as a whole.
_WHOLE_TEXT_CHECKS = ("placeholder", "need", "number", "too", "banned", "name", "echo",
                      "empty", "degenerate", "copies", "html", "repeated")


NO_TEXT = ("empty-draft", "degenerate-draft")  # findings that mean there is no text to score


def code_score(findings: list[Finding], checklist: list[Requirement]) -> float:
    """0-100: the share of code checks the draft passes, each checklist item one check
    and each whole-text check (placeholders, numbers, length, banned phrases, names,
    echo) one more; every must_fix finding fails one."""
    if any(f["code"] in NO_TEXT for f in findings):
        return 0.0
    items = [r for r in checklist if r["kind"] in req.COVERED_KINDS | {"missing"}]
    total = len(items) + len(_WHOLE_TEXT_CHECKS)
    failed = sum(1 for f in findings if f["severity"] == "must_fix")
    return round(100.0 * max(0, total - failed) / total, 1)


def is_degenerate(text: str | None) -> bool:
    """Empty, or runaway repetition of one or two tokens (seen from small models)."""
    stripped = (text or "").strip()
    words = stripped.split()
    return (
        not stripped
        or len(set(stripped)) <= 4
        or (len(words) > 5 and len(set(words)) <= 2)
    )


def sanitize_feedback(items: Iterable[str]) -> list[str]:
    """Drop empty items, replace degenerate ones with one generic instruction, dedupe."""
    out: list[str] = []
    for item in items:
        text = (item or "").strip()
        if not text:
            continue
        if is_degenerate(text):
            text = GENERIC_FEEDBACK
        text = text[:1000]
        if text not in out:
            out.append(text)
    return out


def _shingles(text: str, n: int = 4) -> set[tuple[str, ...]]:
    words = [w.lower() for w in _WORD.findall(text)]
    return {tuple(words[i:i + n]) for i in range(max(0, len(words) - n + 1))}


def is_echo(item: str, texts: Iterable[str], share: float = 0.7) -> bool:
    """A "problem" that is mostly a copy of the draft or brief says nothing about either.

    Small models under a JSON grammar often fill must_fix with sentences lifted from the
    text they judge; taken as must_fix they would block approval for no reason.
    """
    mine = _shingles(item)
    if len(mine) < 3:
        return False
    theirs: set[tuple[str, ...]] = set()
    for text in texts:
        theirs |= _shingles(text)
    return len(mine & theirs) / len(mine) >= share


def split_echoes(items: list[str], texts: list[str]) -> tuple[list[str], int]:
    """(items that are real feedback, how many were echoes)."""
    kept = [i for i in items if not is_echo(i, texts)]
    return kept, len(items) - len(kept)


def feedback_key(item: str) -> str:
    return re.sub(r"\W+", " ", item.lower()).strip()
