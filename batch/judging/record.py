"""The judgement of one draft, made once and kept: which checks ran and what each weighs,
their findings, the code score, the support map, and a fingerprint of the checks' code
and prompts that made it.

The verdict, the routing, the repairs, the run-log row, `review show` and the review
answer all read this record; none judges the draft again. A draft judged a second time
in the same process (a repair kept, then judged by the critic step) is the record kept
from the first (`judged`): the checks, and an API doc's examples, run once per draft.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import threading
from collections import OrderedDict
from functools import cache
from pathlib import Path
from typing import Any, NotRequired, TypedDict

from batch.check_types import Finding
from batch.judging import checks

_PACKAGE = Path(__file__).resolve().parent.parent
# what a sentence of the support map keeps of its text: enough to find it in the draft
SENTENCE_CHARS = 160


class Judgement(TypedDict):
    fingerprint: str  # of the checks' code and the prompts: which version judged
    draft: str  # a hash of the draft judged (`draft_hash`): whose record this is
    checks: dict[str, int]  # each check that ran -> its units of the code score
    findings: list[Finding]
    score: float  # the code score of the findings (0-100)
    # each sentence: {n, text, items, added, glue} (batch.judging.support)
    support: list[dict[str, Any]]
    verification: NotRequired[str]  # what running the draft's examples showed


def draft_hash(draft: str) -> str:
    return hashlib.sha256(draft.encode("utf-8", "surrogatepass")).hexdigest()[:16]


@cache
def fingerprint() -> str:
    """A short hash of the checks' source and the prompt templates."""
    digest = hashlib.sha256()
    for path in sorted(
        [*(_PACKAGE / "judging").rglob("*.py"), *(_PACKAGE / "prompts").glob("*.md")]
    ):
        digest.update(path.relative_to(_PACKAGE).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def judge(ctx: checks.CheckContext) -> Judgement:
    """Every check on `ctx`'s draft, once: the record."""
    judged = checks.judge(ctx)
    out = Judgement(
        fingerprint=fingerprint(),
        draft=draft_hash(ctx.draft),
        checks=dict(judged.weights),
        findings=judged.findings,
        score=judged.score,
        support=(
            [{**s.as_dict(), "text": s.text[:SENTENCE_CHARS]} for s in ctx.support]
            if ctx.brief and not ctx.documents_source
            else []
        ),
    )
    if judged.verification:
        out["verification"] = judged.verification
    return out


# the records of the drafts judged last in this process, by everything they were judged
# against: the repairs judge a candidate, the critic step judges the one kept
_KEPT: OrderedDict[str, Judgement] = OrderedDict()
_KEPT_MAX = 64
_LOCK = threading.Lock()


def _key(ctx: checks.CheckContext) -> str:
    fields = dataclasses.asdict(ctx)
    text = json.dumps(fields, sort_keys=True, default=str)
    return hashlib.sha256(f"{fingerprint()}\n{text}".encode("utf-8", "surrogatepass")).hexdigest()


def judged(ctx: checks.CheckContext) -> Judgement:
    """The record of `ctx`'s draft: the one made already in this process for the very
    same draft and context, else a new one."""
    key = _key(ctx)
    with _LOCK:
        kept = _KEPT.get(key)
        if kept is not None:
            _KEPT.move_to_end(key)
            return copy.deepcopy(kept)  # a caller's changes stay its own
    made = judge(ctx)
    with _LOCK:
        _KEPT[key] = made
        while len(_KEPT) > _KEPT_MAX:
            _KEPT.popitem(last=False)
    return copy.deepcopy(made)


def why_lines(made: dict[str, Any]) -> list[str]:
    """A record in words, for a person asking why a text is where it is."""
    if not made:
        return []
    ran = made.get("checks") or {}
    lines = [
        f"code score {made.get('score', 0):g} from {len(ran)} checks "
        f"({sum(ran.values())} units; checks version {made.get('fingerprint', '?')})"
    ]
    findings = made.get("findings") or []
    for severity, label in (("must_fix", "must fix"), ("hold", "held"), ("warn", "warning")):
        lines += [f"{label}: {f['message']}" for f in findings if f["severity"] == severity]
    if not findings:
        lines.append("no finding")
    support = made.get("support") or []
    adding = [s for s in support if s.get("added") and not s.get("glue")]
    if support:
        lines.append(
            f"{len(support)} sentences; {sum(1 for s in support if s.get('items'))} carry a "
            f"checklist item; {len(adding)} use words no source gives"
        )
    lines += [
        f"sentence {s['n']} ({', '.join(s['items']) or 'no item'}) adds "
        + ", ".join(repr(w) for w in s["added"])
        for s in adding
    ]
    if made.get("verification"):
        lines.append(f"verified: {made['verification']}")
    return lines
