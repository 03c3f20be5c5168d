"""Does the checklist depend on the brief's shape? The shape corpus (bench/shapes/).

    python -m bench shapes [--set DIR] [--show ID] [--json FILE]

Every brief of the corpus is written in several shapes with the same facts, and
labelled by hand (checklist.yaml: its facts, asks, unknowns, instructions, what it says
to leave out, each with the words that pick it out). Each shape's checklist is read
back onto those labels: a checklist item *carries* a label when every key of the label
is among the item's words or numbers. A shape's reading is then the list of (what the
item asks of the text, the labels it carries), and:

- the brief **agrees** when every shape gives the same reading;
- a shape is **right** when its reading is the labels': each fact, ask, signature and
  unknown carried by one item of its kind and by no other, no item that asks the text
  for an instruction or for what it must leave out, and no item the labels do not know.

Both are reported per brief and over the corpus (bench/results/shapes.json, .md).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from batch.check_types import Requirement
from batch.inputs.briefs import load_brief_file
from batch.judging.checklist import build_checklist
from batch.judging.wording import STOPWORDS, WORD, numbers_of, stem
from batch.reading.figures import loosened
from batch.thread_inputs import ThreadBrief

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "bench" / "shapes"
UNSEEN = REPO / "bench" / "shapes-unseen"
RESULTS = REPO / "bench" / "results"

# what a checklist item asks of the text, by kind; and what a label expects
ITEM_CLASS = {
    "fact": "fact",
    "ask": "ask",
    "sign": "sign",
    "gap": "tell",
    "missing": "missing",
    "task": "instruction",
    "style": "instruction",
    "rule": "instruction",
}
LABEL_CLASS = {
    "fact": "fact",
    "ask": "ask",
    "sign": "sign",
    "tell": "tell",
    "missing": "missing",
    "instruction": "instruction",
    "withheld": "withheld",
}
REQUIRED = frozenset({"fact", "ask", "sign", "tell", "missing"})


@dataclass
class Label:
    id: str
    type: str
    say: str
    keys: list[str]

    @property
    def wanted(self) -> frozenset[str]:
        """The key words as stems, the key numbers as numbers."""
        return frozenset(
            set().union(*(_words_of(str(k)) for k in self.keys)) if self.keys else set()
        )


def _words_of(text: str) -> set[str]:
    """Stems of the words of a text (a hyphenated word also by its parts: "8am-2pm"),
    and its numbers as "#n" (a date also by its day, a time by its hour: a key "14" is
    the 14 of "14 June", whose figure is "14/6")."""
    out = {f"#{n}" for n in loosened(set(numbers_of(text)))}
    for w in WORD.findall(text):
        for part in {w, *re.split(r"[-–]", w)}:
            if part and not re.fullmatch(r"[\d.,:]+", part):
                out.add(stem(part))
    return out


@dataclass
class Brief:
    id: str
    folder: Path
    kind: str
    shapes: list[str]
    labels: list[Label] = field(default_factory=list)

    def shape_path(self, shape: str) -> Path:
        return self.folder / f"{shape}.md"


def load_corpus(folder: Path = CORPUS) -> list[Brief]:
    out: list[Brief] = []
    for path in sorted(folder.glob("*/checklist.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        labels = [
            Label(str(i["id"]), str(i["type"]), str(i.get("say", "")), list(i.get("keys") or []))
            for i in data.get("items") or []
        ]
        out.append(
            Brief(str(data["id"]), path.parent, str(data.get("kind", "")), data["shapes"], labels)
        )
    return out


def item_words(r: Requirement) -> frozenset[str]:
    return frozenset(_words_of(f"{r['text']} {r.get('subject', '')}"))


def carried(r: Requirement, labels: list[Label]) -> frozenset[str]:
    """The labels whose every key the item holds; failing that, the one label whose own
    words hold all the item's (a part of one fact the labels keep whole: "Where: Corn
    Exchange" of "items were left at the Corn Exchange after the concert")."""
    have = item_words(r)
    found = frozenset(lab.id for lab in labels if lab.wanted and lab.wanted <= have)
    if found:
        return found
    mine = {w for w in _words_of(r["text"]) if w not in STOPWORDS and len(w) > 1}
    if not mine:
        return found
    within = [
        lab.id for lab in labels if mine <= _words_of(f"{lab.say} {' '.join(map(str, lab.keys))}")
    ]
    return frozenset(within[:1]) if len(within) == 1 else found


Reading = tuple[tuple[str, tuple[str, ...]], ...]


def carriers(checklist: list[Requirement], labels: list[Label]) -> list[set[str]]:
    """The labels each item carries (`carried`). A label whose keys no item holds alone,
    but two items next to each other do ("Viewings are Saturdays only; people book with
    Sam on 07700 900312", one label in two clauses), is carried by both, as three lines
    of one fact are."""
    ids_of = [set(carried(r, labels)) for r in checklist]
    words = [item_words(r) for r in checklist]
    for lab in labels:
        if not lab.wanted or any(lab.wanted <= w for w in words):
            continue
        for n in range(len(checklist) - 1):
            if lab.wanted <= words[n] | words[n + 1]:
                ids_of[n].add(lab.id)
                ids_of[n + 1].add(lab.id)
                break
    return ids_of


def reading(checklist: list[Requirement], labels: list[Label]) -> Reading:
    """What the checklist makes of each label: the kinds of the items that carry it
    (sorted, without repeats), and an entry ("?", class) for each item that asks the
    text for something no label knows. How the facts are grouped into items is left
    out: one sentence of three facts, or three lines of one, ask the same of the text
    (coverage reads an item clause by clause)."""
    classes: dict[str, set[str]] = {lab.id: set() for lab in labels}
    unknown: list[str] = []
    for r, ids in zip(checklist, carriers(checklist, labels), strict=True):
        cls = ITEM_CLASS.get(r["kind"], r["kind"])
        for i in ids:
            classes[i].add(cls)
        if not ids and cls != "instruction":
            unknown.append(cls)
    # a request that names what a fact says ("the listing for the Albany Road flat")
    # beside the fact's own item reads it the same as the fact's item alone
    # and a label carried by an item of its own kind is read right, whatever else
    # shares its keys (a lead's name, a fact that names what another item does)
    by_id = {lab.id: lab for lab in labels}
    out = []
    for i, c in classes.items():
        want = LABEL_CLASS[by_id[i].type]
        if want in c:
            c = {want}
        elif len(c) > 1:
            c = c - {"instruction"}
        out.append((i, tuple(sorted(c))))
    out += [("?", (cls,)) for cls in sorted(unknown)]
    return tuple(out)


def problems(read: Reading, labels: list[Label]) -> list[str]:
    """How a shape's reading differs from the labels'."""
    by_id = {lab.id: lab for lab in labels}
    out: list[str] = []
    for lid, classes in read:
        if lid == "?":
            out.append(f"a {classes[0]} item no label knows")
            continue
        lab = by_id[lid]
        want = LABEL_CLASS[lab.type]
        if want in REQUIRED:
            if not classes:
                out.append(f"{lid} ({want}) not an item: {lab.say}")
            elif want not in classes:
                out.append(f"{lid} ({want}) read as {'/'.join(classes)}: {lab.say}")
        else:
            asked = [c for c in classes if c in REQUIRED]
            if asked:
                out.append(f"{lid} ({lab.type}) read as {'/'.join(asked)}: {lab.say}")
    return out


@dataclass
class Result:
    brief: Brief
    readings: dict[str, Reading]
    checklists: dict[str, list[Requirement]]

    @property
    def agrees(self) -> bool:
        """Every label read the same way in every shape, and what the shapes ask that no
        label knows is the same too: each such item's words are asked by the other
        shapes' such items (a topic named in one line of notes and in the request of
        the prose shape is one demand, whatever the count of items)."""
        labelled = {tuple(e for e in read if e[0] != "?") for read in self.readings.values()}
        if len(labelled) != 1:
            return False
        extra = {s: _unknown_words(cl, self.brief.labels) for s, cl in self.checklists.items()}
        asked = {s: _asked_words(cl) for s, cl in self.checklists.items()}
        return all(
            _asked_by(mine, [asked[t]]) for s, mine in extra.items() for t in extra if s != t
        )

    def wrong(self, shape: str) -> list[str]:
        return problems(self.readings[shape], self.brief.labels)

    @property
    def collapsed(self) -> list[str]:
        """Shapes whose checklist holds one item the text must say, or none."""
        return [
            s
            for s, cl in self.checklists.items()
            if sum(1 for r in cl if ITEM_CLASS.get(r["kind"]) in REQUIRED) <= 1
        ]


def _content_words(text: str) -> set[str]:
    """The stems of a text's words of content; a hyphenated word by its parts only
    ("brand-new" is "brand" and "new", not a third word that "new kitchen" lacks)."""
    return {
        w
        for w in _words_of(text)
        if w not in STOPWORDS and len(w) > 2 and not re.search(r"[-–]", w)
    }


def _unknown_words(checklist: list[Requirement], labels: list[Label]) -> list[set[str]]:
    """The words (stems) of each item that asks the text for what no label knows."""
    return [
        _content_words(r["text"])
        for r, ids in zip(checklist, carriers(checklist, labels), strict=True)
        if ITEM_CLASS.get(r["kind"]) != "instruction" and not ids
    ]


def _asked_words(checklist: list[Requirement]) -> set[str]:
    """Every word a checklist asks the text to say (its orders to the writer left out)."""
    return set().union(
        *(
            _content_words(r["text"])
            for r in checklist
            if ITEM_CLASS.get(r["kind"]) != "instruction"
        )
    )


def _asked_by(mine: list[set[str]], theirs: list[set[str]]) -> bool:
    """Each of `mine` is asked by `theirs`: half its words at least are among theirs."""
    pool = set().union(*theirs) if theirs else set()
    return all(2 * len(words & pool) >= len(words) for words in mine if words)


def judge_brief(brief: Brief) -> Result:
    readings: dict[str, Reading] = {}
    checklists: dict[str, list[Requirement]] = {}
    for shape in brief.shapes:
        parsed = load_brief_file(brief.shape_path(shape), 1 << 20)
        cl = build_checklist(ThreadBrief(id="b", text=parsed.text, title=parsed.title or ""))
        checklists[shape] = cl
        readings[shape] = reading(cl, brief.labels)
    return Result(brief, readings, checklists)


def label_readings(results: list[Result]) -> dict[str, str]:
    """Every label in every shape read right, by the label's type: a fact, ask, unknown or
    signature carried by an item of its kind; an order to the writer or what it
    withholds carried by no item the text must say."""
    ok: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for result in results:
        by_id = {lab.id: lab for lab in result.brief.labels}
        for shape in result.brief.shapes:
            for lid, classes in result.readings[shape]:
                if lid == "?":
                    continue
                kind = by_id[lid].type
                want = LABEL_CLASS[kind]
                total[kind] += 1
                if want in REQUIRED:
                    ok[kind] += want in classes
                else:
                    ok[kind] += not any(c in REQUIRED for c in classes)
    out = {kind: f"{ok[kind]}/{total[kind]}" for kind in sorted(total)}
    out["all"] = f"{sum(ok.values())}/{sum(total.values())}"
    return out


def summary(results: list[Result]) -> dict:
    shapes = [(r, s) for r in results for s in r.brief.shapes]
    wrong = Counter(s for r, s in shapes if r.wrong(s))
    per_shape = Counter(s for _, s in shapes)
    return {
        "briefs": len(results),
        "shape_files": len(shapes),
        "agree": sum(r.agrees for r in results),
        "right_shapes": sum(1 for r, s in shapes if not r.wrong(s)),
        "right_briefs": sum(1 for r in results if not any(r.wrong(s) for s in r.brief.shapes)),
        "collapsed": sorted(f"{r.brief.id}/{s}" for r in results for s in r.collapsed),
        "right_by_shape": {s: f"{n - wrong[s]}/{n}" for s, n in sorted(per_shape.items())},
        "labels_read_right": label_readings(results),
        "disagree": sorted(r.brief.id for r in results if not r.agrees),
    }


def show(result: Result) -> str:
    lines = [
        f"# {result.brief.id} ({result.brief.kind}): {'agrees' if result.agrees else 'DISAGREES'}"
    ]
    for shape, cl in result.checklists.items():
        lines.append(f"## {shape}")
        for r, carrying in zip(cl, carriers(cl, result.brief.labels), strict=True):
            ids = ",".join(sorted(carrying)) or "-"
            lines.append(f"  {r['id']:4} {r['kind']:8} [{ids}] {r['text'][:100]!r}")
        lines += [f"  ! {p}" for p in result.wrong(shape)]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench shapes",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--set", type=Path, default=CORPUS, help="the corpus folder")
    parser.add_argument("--show", action="append", default=[], help="print a brief's checklists")
    parser.add_argument("--all", action="store_true", help="print every brief that is wrong")
    parser.add_argument("--json", type=Path, help="write the summary here")
    args = parser.parse_args(argv)
    results = [judge_brief(b) for b in load_corpus(args.set)]
    for r in results:
        if r.brief.id in args.show or (
            args.all and (not r.agrees or any(r.wrong(s) for s in r.brief.shapes))
        ):
            print(show(r), end="\n\n")
    s = summary(results)
    print(json.dumps(s, indent=2))
    if args.json:
        args.json.write_text(json.dumps(s, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
