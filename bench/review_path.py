"""The path of one review answer through the package: `python -m bench review-path`.

A thread waits for a person (the scripted models of the tests); its page is opened and
its Approve form posted through Starlette's test client, in this process. Every call
of a function of `batch` made from the POST until the graph's review node takes the
answer (`apply_review_response`) is recorded, in order, with the room it belongs to
(a folder or top-level module of the package, as tests/project/test_imports.py counts
rooms). Reported:

- calls: those calls (comprehensions and lambdas not counted);
- steps: the moves from one module to another along that sequence;
- rooms: the distinct rooms they are in;
- climbs: moves from one call's room to the next call's room that go up the layers
  (tests/project/test_imports.py, LAYERS): the path coming back up to a room it had
  passed, e.g. a low helper's result carried back up to be handed down again;
- from threads.answer on: the same, without what the page does first (open the
  project: its store, its run log, its graph);
- the chain: the `batch` frames on the stack when the review node takes the answer,
  the calls it came down through, with their rooms and climbs;
- encode/decode: calls of batch.loop.inbox's encode and decode (the Agent Inbox
  shape), which the path from our own form should not need.

Run it at two commits to compare them; `--json` prints the sequence too.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from project.test_imports import LAYERS, room_of  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from batch.review import web  # noqa: E402
from batch.run.runner import Runner  # noqa: E402

from conftest import (  # noqa: E402
    ScriptedModel,
    critic_answer,
    make_settings,
    write_brief,
    writer_answer,
)

PH = "[FIGURE NEEDED: Q3 revenue]"
# comprehensions, lambdas, and annotations evaluated in a module's namespace
_ANONYMOUS = {"<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>", "<lambda>", "<module>"}
_END = ("batch.loop.decisions", "apply_review_response")


def _layer(room: str) -> int:
    for i, rooms in enumerate(LAYERS):
        if room in rooms:
            return i
    return len(LAYERS)


class Tracer:
    """Records the calls of `batch` functions while `recording` is set, in every thread."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []
        self.chain: list[tuple[str, str]] = []
        self.recording = False
        self.done = False
        self._lock = threading.Lock()

    def __call__(self, frame: Any, event: str, arg: Any) -> None:
        if event != "call" or not self.recording or self.done:
            return
        module = frame.f_globals.get("__name__", "")
        name = frame.f_code.co_name
        if not module.startswith("batch.") or name in _ANONYMOUS:
            return
        with self._lock:
            self.calls.append((module, name))
            if (module, name) == _END:
                self.done = True
                # the chain the answer came down: the batch frames under the node
                chain, f = [], frame
                while f is not None:
                    owner = f.f_globals.get("__name__", "")
                    if owner.startswith("batch.") and f.f_code.co_name not in _ANONYMOUS:
                        chain.append((owner, f.f_code.co_name))
                    f = f.f_back
                self.chain = chain[::-1]


def waiting_thread(root: Path) -> tuple[Any, str, dict[str, Any]]:
    shutil.copytree(REPO / "rubrics", root / "rubrics")
    shutil.copytree(REPO / "house_rules", root / "house_rules")
    (root / "briefs").mkdir()
    # the same settings whatever the commit's test fixture defaults to
    settings = make_settings(
        root,
        **{
            "log.format": "none",
            "models.critic_mode": "gate",
            "loop.repairs": False,
            "loop.review": "when_needed",
        },
    )
    write_brief(root, "q3.md", "Memo on Q3: revenue not known yet; we opened Berlin.", id="q3")
    models = {
        "writer": ScriptedModel(
            [writer_answer(f"Q3 revenue was {PH}. We opened Berlin.", needs=[(PH, "How much?")])]
        ),
        "critic": ScriptedModel([critic_answer(5)]),
    }
    with Runner(settings, models=models, strict=True) as runner:
        [result] = runner.run(root / "briefs").results
    assert result.outcome == "awaiting_human", result
    return settings, result.thread_id, models


def measure() -> dict[str, Any]:
    tracer = Tracer()
    with tempfile.TemporaryDirectory() as tmp:
        settings, tid, models = waiting_thread(Path(tmp))
        threading.setprofile(tracer)
        sys.setprofile(tracer)
        try:
            with TestClient(web.create_app(settings, models=models, strict=True)) as client:
                page = client.get(f"/thread/{tid}")
                csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
                assert csrf, page.text[:300]
                tracer.recording = True
                answered = client.post(
                    f"/thread/{tid}",
                    data={"csrf": csrf.group(1), "action": "approve", f"ph:{PH}": "4.2M EUR"},
                    follow_redirects=False,
                )
                tracer.recording = False
        finally:
            sys.setprofile(None)
            threading.setprofile(None)  # type: ignore[arg-type]
    assert answered.status_code in (302, 303), answered.status_code
    assert tracer.done, "the review node never took the answer"
    modules = [m for m, _ in tracer.calls]
    rooms = [room_of(m) or m for m in modules]
    climbs = sum(1 for a, b in zip(rooms, rooms[1:], strict=False) if _layer(b) < _layer(a))
    chain_rooms = [room_of(m) or m for m, _ in tracer.chain]
    # the answer itself, from threads.answer on (what comes before opens the project)
    start = tracer.calls.index(("batch.review.threads", "answer"))
    answer_rooms = [room_of(m) or m for m, _ in tracer.calls[start:]]
    return {
        "chain": [f"{m}.{n}" for m, n in tracer.chain],
        "chain_rooms": sorted(set(chain_rooms)),
        "chain_climbs": sum(
            1 for a, b in zip(chain_rooms, chain_rooms[1:], strict=False) if _layer(b) < _layer(a)
        ),
        "answer_calls": len(answer_rooms),
        "answer_rooms": sorted(set(answer_rooms)),
        "answer_climbs": sum(
            1 for a, b in zip(answer_rooms, answer_rooms[1:], strict=False) if _layer(b) < _layer(a)
        ),
        "calls": len(tracer.calls),
        "steps": sum(1 for a, b in zip(modules, modules[1:], strict=False) if a != b),
        "rooms": sorted(set(rooms)),
        "climbs": climbs,
        "encode_decode": [
            f"{m}.{n}"
            for m, n in tracer.calls
            if m == "batch.loop.inbox" and n in ("encode", "decode")
        ],
        "sequence": [f"{m}.{n}" for m, n in tracer.calls],
    }


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench review-path", description=__doc__)
    parser.add_argument("--json", action="store_true", help="print the whole sequence too")
    args = parser.parse_args(argv)
    result = measure()
    if args.json:
        print(json.dumps(result, indent=1))
        return
    rooms, chain_rooms = result["rooms"], result["chain_rooms"]
    print(f"the chain from the form to the review node: {len(result['chain'])} frames")
    print(f"  {' -> '.join(result['chain'])}")
    print(f"  rooms {len(chain_rooms)} ({', '.join(chain_rooms)}), climbs {result['chain_climbs']}")
    answer = result["answer_rooms"]
    print(f"from threads.answer on: {result['answer_calls']} calls")
    print(f"  rooms {len(answer)} ({', '.join(answer)}), climbs {result['answer_climbs']}")
    print(f"every call on the way: {result['calls']} calls, {result['steps']} steps")
    print(f"  rooms {len(rooms)} ({', '.join(rooms)}), climbs {result['climbs']}")
    print(f"Agent Inbox encode/decode calls: {len(result['encode_decode'])}")


if __name__ == "__main__":
    main(sys.argv[1:])
