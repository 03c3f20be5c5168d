"""Splicing a draft, by code: a sentence replaced, dropped or placed where it belongs;
the cuts that shorten a text (a sentence, a clause that only hangs on one); the needs of
a spliced draft. The repairs' candidates are made of these (batch.loop.writing.candidates).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from batch import placeholders
from batch.draft_cleanup import strip_chatter
from batch.judging import wording
from batch.judging.wording import word_count

Needs = list[dict[str, str]]

MAX_SENTENCE_WORDS = 60  # a sentence the model is asked for, or a sentence to replace

# a list item's, a heading's or a quote's marker at the start of a line
LINE_MARKER = re.compile(r"^(\s*(?:[-*+•]|\d+[.)])\s+|\s*#{1,6}\s+|\s*>\s*)")


def split_blocks(draft: str) -> list[str]:
    return [b for b in re.split(r"\n\s*\n", draft.strip()) if b.strip()]


def join_blocks(blocks: list[str]) -> str:
    return "\n\n".join(b.strip("\n") for b in blocks if b.strip()).strip() + "\n"


def is_list_block(block: str) -> bool:
    lines = [ln for ln in block.splitlines() if ln.strip()]
    return bool(lines) and all(
        LINE_MARKER.match(ln) and not ln.lstrip().startswith(("#", ">")) for ln in lines
    )


def is_heading_block(block: str) -> bool:
    return block.lstrip().startswith("#") and "\n" not in block.strip()


def replace_sentence(draft: str, sentence: str, new: str) -> str:
    """`sentence` (as the draft has it) replaced by `new`; a list item or heading keeps
    its marker. An empty `new` drops the sentence, and its line when nothing is left."""
    if sentence not in draft:
        return draft
    marker = LINE_MARKER.match(sentence)
    prefix = marker.group(1) if marker else ""
    if new.strip():
        return draft.replace(sentence, prefix + LINE_MARKER.sub("", new.strip()), 1)
    lines = draft.split("\n")
    i = next((n for n, ln in enumerate(lines) if sentence in ln), None)
    if i is None:  # a sentence across lines: as a whole
        out = draft.replace(sentence, "", 1)
    else:
        rest = re.sub(r"(?<=\S)[ \t]{2,}", " ", lines[i].replace(sentence, "", 1)).rstrip()
        if not lines[i][:1].isspace():
            rest = rest.lstrip()  # the sentence that opened the line took its place
        # a line left with a list marker or punctuation only goes with the sentence
        lines[i : i + 1] = [rest] if wording.WORD.search(rest) else []
        out = "\n".join(lines)
    return re.sub(r"\n{3,}", "\n\n", out).strip() + "\n"


def drop_sentences(draft: str, sentences: list[str]) -> str:
    for s in sentences:
        draft = replace_sentence(draft, s, "")
    return draft


def body_blocks(blocks: list[str]) -> list[int]:
    """The blocks a new sentence may join: not a heading, not a line that leads into a
    list, not a one-line sign-off."""
    out = [
        i for i, b in enumerate(blocks) if not is_heading_block(b) and not b.rstrip().endswith(":")
    ]
    if len(out) > 1 and len(wording.WORD.findall(blocks[out[-1]])) <= 4:
        out.pop()  # "Thanks, Anna" or a signature: the text ends after it
    return out or list(range(len(blocks)))


def placements(draft: str, sentence: str, about: str) -> list[str]:
    """The draft with `sentence` added where it fits: in the paragraph (or as an item of
    the list) that shares most words with `about`, and as a paragraph of its own after
    it. Both are candidates; the checks choose."""
    blocks = split_blocks(draft)
    if not blocks:
        return [sentence.strip() + "\n"]
    terms = set(wording.content_terms(about))
    body = body_blocks(blocks)
    scores = {i: len(terms & wording.stems_of(blocks[i])) for i in body}
    best = max(body, key=lambda i: (scores[i], i))
    if scores[best] == 0:
        best = body[-1]
    block = blocks[best]
    if is_list_block(block):
        found = LINE_MARKER.match(block.splitlines()[-1])
        assert found is not None  # _is_list: its last line has a marker
        marker = found.group(1).lstrip("\n")
        number = re.match(r"\s*(\d+)([.)])", marker)
        if number:
            marker = marker.replace(number.group(1), str(int(number.group(1)) + 1), 1)
        joined = block.rstrip() + "\n" + marker + sentence.strip()
    else:
        joined = block.rstrip() + " " + sentence.strip()
    inside = join_blocks([*blocks[:best], joined, *blocks[best + 1 :]])
    apart = join_blocks([*blocks[: best + 1], sentence.strip(), *blocks[best + 1 :]])
    return [inside, apart] if inside != apart else [inside]


def clean_sentence(text: str | None) -> str:
    """The model's sentence as a sentence: chatter, quotes, markers and line breaks off."""
    if not text:
        return ""
    text = strip_chatter(text).strip()
    text = " ".join(text.split())
    text = LINE_MARKER.sub("", text).strip().strip('"“”').strip()
    return text


def only_new(answer: str, draft: str) -> str:
    """What an answer adds to the draft. Asked for one sentence, a small model often
    answers with the whole text and the sentence in it: the sentences (or the cut-off
    end of one) the draft already has are not the answer."""
    said = wording.sentences(answer)
    if len(said) < 2:
        return answer  # one sentence: the answer, even when it rewrites one of the draft
    # a sentence of the draft, or two adjacent ones run together ("Dear team, I hope
    # this finds you well." of a salutation line and the sentence after it)
    mine = [set(wording.WORD.findall(s.lower())) for s in wording.sentences(draft)]
    known = mine + [a | b for a, b in zip(mine, mine[1:], strict=False)]

    def seen(sentence: str) -> bool:
        said = set(wording.WORD.findall(sentence.lower()))
        return not said or any(len(said & k) >= 0.8 * len(said) for k in known)

    return " ".join(s for s in said if not seen(s))


def without_empty_headings(text: str) -> str:
    """The text without a heading that has nothing under it before the next heading of
    its level or above (or the end)."""
    lines = text.split("\n")

    def level(line: str) -> int:
        m = re.match(r"^\s*(#{1,6})\s", line)
        return len(m.group(1)) if m else 0

    keep = []
    for i, line in enumerate(lines):
        own = level(line)
        if own:
            rest = next((ln for ln in lines[i + 1 :] if ln.strip()), "")
            if not rest or 0 < level(rest) <= own:
                continue
        keep.append(line)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(keep)).strip() + "\n"


def nearest_sentence(draft: str, fact: str) -> str:
    """The sentence of the draft (not a heading) that shares most words with `fact`,
    or "" when none shares any."""
    terms = set(wording.content_terms(fact))
    best, most = "", 0
    for block in split_blocks(draft):
        if is_heading_block(block):
            continue
        for sentence in wording.sentences(block):
            shared = len(terms & wording.stems_of(sentence))
            if shared > most and word_count(sentence) <= MAX_SENTENCE_WORDS:
                best, most = sentence, shared
    return best


def placeholder_sentence(subject: str, placeholder: str) -> str:
    """What code writes where a fact is not known: the subject and its placeholder."""
    subject = " ".join(subject.split()).strip(" .:;") or "To be confirmed"
    return f"{subject[0].upper()}{subject[1:]}: {placeholder}."


def longest_first(draft: str) -> list[str]:
    """The draft's paragraphs (and lists) of body text, the longest first."""
    blocks = split_blocks(draft)
    return [blocks[i] for i in sorted(body_blocks(blocks), key=lambda i: -word_count(blocks[i]))]


def sentence_cuts(draft: str) -> Iterator[str]:
    """The draft without one sentence each: the last of the longest paragraph first;
    never a paragraph's opening one when the next points back to it ("It features …")."""
    for block in longest_first(draft):
        said = [s for s in wording.sentences(block) if not s.lstrip().startswith("#")]
        for i in reversed(range(len(said))):
            s = said[i]
            if i == 0 and len(said) > 1 and _POINTS_BACK.match(said[1].lstrip()):
                continue
            yield without_empty_headings(replace_sentence(draft, s, ""))


# a sentence that opens on what the one before it named
_POINTS_BACK = re.compile(
    r"(?:It|Its|This|These|That|Those|They|Their|He|His|She|Her|"
    r"Then|Also|However|But|So|Both|Each)\b"
)


_CLAUSE = re.compile(r",\s+")
# a sentence's last clause that only hangs on it: ", making it ideal for …",
# ", ensuring comfort …", ", which is durable" (not "during …", "including …")
# ("parking is free" has a verb of its own; "swimming." is one item of a list)
_TAIL = re.compile(
    r"(?:which\b|(?!during|including|nothing|something|anything|everything"
    r"|morning|evening|spring|string)[a-z]{3,}ing\b"
    r"(?!\s+(?:is|are|was|were|has|have|will)\b))(?=(?:\s+\S+){2})"
)


def filler_cuts(draft: str, keep: frozenset[str]) -> Iterator[str]:
    """The draft without one clause each that holds no number, no placeholder and at
    most one word of what the brief asks, longest paragraph first; a sentence's last
    clause only when it hangs on the rest (its main one as often as not)."""
    for block in longest_first(draft):
        for s in wording.sentences(block):
            lead = s[: len(s) - len(s.lstrip("*_>- "))]  # a list marker, bold
            pieces = _CLAUSE.split(s[len(lead) :])
            for n, piece in enumerate(pieces):
                last = n == len(pieces) - 1
                if last and (n == 0 or not _TAIL.match(piece)):
                    continue
                # a tail's own connective ("making") is not what it says
                said = piece.split(None, 1)[-1] if last else piece
                if (
                    wording.numbers_of(piece)
                    or placeholders.find(piece)
                    or "[" in piece
                    or len(set(wording.content_terms(said)) & keep) > 1
                ):
                    continue
                new = ", ".join(pieces[:n] + pieces[n + 1 :])
                if last:  # its full stop stays with the sentence
                    new = new.rstrip() + piece[len(piece.rstrip(".!?*_\"'”’)")) :]
                yield replace_sentence(draft, s, lead + new[:1].upper() + new[1:])


def longest_block(blocks: list[str], among: list[int]) -> tuple[int, str, str]:
    """(which block, its opening heading lines, the paragraph under them) of the block
    among `among` whose paragraph has the most words."""
    i = max(among, key=lambda j: word_count(under_heading(blocks[j])[1]))
    return (i, *under_heading(blocks[i]))


def under_heading(block: str) -> tuple[str, str]:
    """(the heading lines that open a block, with their line breaks; the rest): a
    paragraph written right under its heading is rewritten without it."""
    lines = block.split("\n")
    n = 0
    while n < len(lines) and lines[n].lstrip().startswith("#"):
        n += 1
    head = "\n".join(lines[:n]) + "\n" if n else ""
    return head, "\n".join(lines[n:])


def needs_for(draft: str, needs: Needs) -> Needs:
    """The needs of a spliced draft: the listed entries of the placeholders it still
    has, and one (its question drawn from it) for each new one."""
    present = {placeholders.normalize(p) for p in placeholders.find(draft)}
    return placeholders.with_unlisted(
        draft, [n for n in needs if placeholders.normalize(n["placeholder"]) in present]
    )
