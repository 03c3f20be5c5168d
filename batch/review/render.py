"""What the review pages draw: a draft as HTML with its placeholders marked, the score
per round as an inline SVG chart, a diff with its insertions and deletions marked.
Everything a model, a brief or a person wrote is escaped here."""

from __future__ import annotations

import re
import secrets
from typing import Any

from markdown_it import MarkdownIt
from markupsafe import Markup, escape

from batch.judging.support import pieces
from batch.outcomes import label

_markdown = MarkdownIt("commonmark", {"html": False})


def render_draft(draft: str, placeholders: list[str]) -> Markup:
    """The draft as HTML (CommonMark, raw HTML escaped), each placeholder in a <mark>.

    Placeholders are swapped for plain alphanumeric markers before Markdown sees the
    text (so their brackets and colons stay literal) and put back, escaped, after it:
    as a <mark> in text, as the plain text they were inside a tag (a link's title, an
    image's alt), and with the id only on the first mark of each."""
    nonce = secrets.token_hex(6)
    source = draft
    found: dict[str, tuple[int, str]] = {}
    # longest first: a placeholder inside another one must not split it
    order = sorted(enumerate(placeholders, start=1), key=lambda p: -len(p[1]))
    for number, placeholder in order:
        if not placeholder or placeholder not in source:
            continue
        marker = f"bfph{nonce}x{number}x"
        source = source.replace(placeholder, marker)
        found[marker] = (number, placeholder)
    html = _markdown.render(source)  # every character of the draft escaped here
    if not found:
        return Markup(html)
    pattern = re.compile("|".join(re.escape(m) for m in found))
    seen: set[str] = set()

    in_link = 0  # inside a link's text, a mark holds no link of its own: no nested <a>

    def mark(m: re.Match[str]) -> str:
        number, placeholder = found[m.group(0)]
        first = m.group(0) not in seen
        seen.add(m.group(0))
        inner = (
            "{text}<sup>{n}</sup>" if in_link else '<a href="#field-{n}">{text}<sup>{n}</sup></a>'
        )
        return str(
            Markup('<mark class="ph"{id}>' + inner + "</mark>").format(
                n=number, text=placeholder, id=Markup(' id="ph-{}"').format(number) if first else ""
            )
        )

    out = []
    for piece in re.split(r"(<[^>]*>)", html):
        if piece.startswith("<"):
            piece = pattern.sub(lambda m: str(escape(found[m.group(0)][1])), piece)
            if re.match(r"<a[\s>]", piece):
                in_link += 1
            elif piece.startswith("</a"):
                in_link = max(0, in_link - 1)
        else:
            piece = pattern.sub(mark, piece)
        out.append(piece)
    return Markup("".join(out))


def mark_added(sentence: str, added: list[str]) -> Markup:
    """A sentence as HTML, each word it adds to the brief in a <mark class="added">."""
    return Markup("").join(
        Markup('<mark class="added">{}</mark>').format(text) if is_added else escape(text)
        for text, is_added in pieces(sentence, added)
    )


def score_chart(history: list[float], width: int = 320, height: int = 90) -> Markup:
    """The score per round as an inline SVG bar chart (no script, no external file); one
    under 60 pixels high (the runs page's) has no score printed under its bars."""
    if not history:
        return Markup("")
    top = max(100.0, *(float(s or 0) for s in history))
    labels = height >= 60
    pad, label_h = 4, 14 if labels else 0
    slot = (width - 2 * pad) / len(history)
    bar_w = min(36.0, max(4.0, slot * 0.7))
    plot_h = height - label_h - pad
    parts = [
        Markup(
            '<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" '
            'width="{w}" height="{h}" viewBox="0 0 {w} {h}">'
            "<title>Score per round</title>"
            '<line x1="0" y1="{b}" x2="{w}" y2="{b}" stroke="#999"/>'
        ).format(w=width, h=height, b=pad + plot_h)
    ]
    points = []
    for i, score in enumerate(history):
        value = float(score or 0)
        bar_h = plot_h * value / top
        x = pad + i * slot + (slot - bar_w) / 2
        y = pad + plot_h - bar_h
        points.append(f"{x + bar_w / 2:.1f},{y:.1f}")
        parts.append(
            Markup(
                '<rect x="{x:.1f}" y="{y:.1f}" width="{bw:.1f}" height="{bh:.1f}" fill="#6b8fd6">'
                "<title>round {r}: {s:g}</title></rect>"
            ).format(x=x, y=y, bw=bar_w, bh=bar_h, r=i + 1, s=value)
        )
        if labels:
            parts.append(
                Markup(
                    '<text x="{cx:.1f}" y="{ty}" font-size="10" text-anchor="middle">{s:g}</text>'
                ).format(cx=x + bar_w / 2, ty=height - 2, s=value)
            )
    if len(points) > 1:
        parts.append(
            Markup(
                '<polyline points="{p}" fill="none" stroke="#c0392b" stroke-width="1.5"/>'
            ).format(p=" ".join(points))
        )
    parts.append(Markup("</svg>"))
    return Markup("").join(parts)


def changes_html(changes: list[Any]) -> Markup:
    """A round's draft against the one before (batch.review.history.Change): inserted
    words in <ins>, deleted ones in <del>, everything escaped."""
    parts = []
    for change in changes:
        text = escape(change.text)
        if change.op == "+":
            parts.append(Markup("<ins>{}</ins>").format(text))
        elif change.op == "-":
            parts.append(Markup("<del>{}</del>").format(text))
        else:
            parts.append(text)
    return Markup("").join(parts)


# Words written for the writer model or for developers, as a reviewer reads them
_FOR_REVIEWERS = [
    (re.compile(r"\bneeds_from_human\b"), "the list of what a person must give"),
    (re.compile(r"\bdeliberate_deviations\b"), "the writer's reasons for not following a point"),
    (re.compile(r"\bmust_fix\b"), "to fix"),
    (re.compile(r"\bwould_improve\b"), "suggestions"),
]
_OUTCOME_CODE = re.compile(
    r"\b(?:approved_by_human|rejected_by_human|awaiting_human|max_rounds|no_progress)\b"
)
SEVERITY_WORDS = {"must_fix": "to fix", "warn": "worth a look", "hold": "for your look"}


def reviewer_words(text: str) -> str:
    """A finding or a note in a reviewer's words: no field names of the model's answer
    ("needs_from_human"), no outcome codes ("approved_by_human")."""
    for pattern, words in _FOR_REVIEWERS:
        text = pattern.sub(words, text)
    return _OUTCOME_CODE.sub(lambda m: label(m.group(0)), text)
