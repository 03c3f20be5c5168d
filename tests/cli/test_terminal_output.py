"""Nothing a brief, a draft, a reviewer or a file name holds reaches a terminal as a
control character: every command's output for a hostile batch is free of them."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner

from batch.cli import cli
from batch.cli.terminal import for_terminal, json_for_terminal

from conftest import ollama_config
from fake_ollama import FakeOllama

ESC_LINK = "\x1b]8;;http://evil.example/\x07click here\x1b]8;;\x07"
CLEAR = "\x1b[2J\x1b[H"
C1 = "\x9b31m"  # an 8-bit CSI
BIDI = "\u202e"
HOSTILE = ESC_LINK + CLEAR + C1 + BIDI
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
PH = "[FIGURE NEEDED: Q3 revenue]"


def answer(body: dict) -> str:
    # one answer for both roles: a draft that needs a person, and a passing verdict
    return json.dumps(
        {
            "draft": f"We opened Berlin {HOSTILE}. Revenue was {PH}.",
            "needs_from_human": [{"placeholder": PH, "question": f"Revenue? {CLEAR}"}],
            "deliberate_deviations": [],
            "must_fix": [],
            "would_improve": [],
            "scores": {"covers_brief": 5, "accuracy": 5, "clarity": 5, "actionable": 5},
        }
    )


def test_every_command_prints_no_control_character_for_a_hostile_batch(project):
    title = HOSTILE.encode("unicode_escape").decode().replace("\\x", "\\x")
    (project / "briefs" / "evil.md").write_text(
        f'---\nid: evil\ntitle: "Memo {title}"\n---\nWe opened Berlin. Q3 revenue: '
        f"not known yet. {HOSTILE}\n",
        encoding="utf-8",
    )
    (project / "briefs" / f"stem{CLEAR}.md").write_text("Office closed Friday.\n")
    runner = CliRunner()
    outputs: dict[str, str] = {}
    with FakeOllama(default=answer) as server:
        cfg = str(
            ollama_config(
                project, server.base_url, '[loop]\nreview = "when_needed"\nrepairs = false\n'
            )
        )
        run = runner.invoke(cli, ["--config", cfg, "run", str(project / "briefs")])
        outputs["run"] = run.output
        listed = json.loads(runner.invoke(cli, ["--config", cfg, "runs", "--json"]).output)
        [tid] = [r["thread_id"] for r in listed if r["brief_id"] == "evil"]
        # the data is kept as it is; only its display changes
        assert any("\x1b" in (r["title"] or "") for r in listed)
        for name, args in {
            "runs": ["runs"],
            "runs --batch": ["runs", "--batch", "1"],
            "runs --json": ["runs", "--json"],
            "review list": ["review", "list"],
            "review list --json": ["review", "list", "--json"],
            "review show": ["review", "show", tid],
        }.items():
            outputs[name] = runner.invoke(cli, ["--config", cfg, *args]).output
        answered = runner.invoke(
            cli,
            [
                "--config",
                cfg,
                "review",
                "answer",
                tid,
                "--reject",
                f"Fix it {HOSTILE}",
                "--by",
                f"ana{CLEAR}",
            ],
        )
        outputs["review answer"] = answered.output
        outputs["review history"] = runner.invoke(
            cli, ["--config", cfg, "review", "history", tid]
        ).output
    assert "evil" in outputs["run"] and "stem\ufffd[2J" in outputs["run"]
    assert "Memo" in outputs["review show"] and "Fix it" in outputs["review history"]
    for name, text in outputs.items():
        assert not CONTROL.search(text), (name, text)


def test_the_sanitiser_shows_what_it_took_out():
    assert for_terminal(f"a{CLEAR}b\n\tc") == "a\ufffd[2J\ufffd[Hb\n\tc"
    assert json.loads(json_for_terminal(json.dumps({"t": HOSTILE}, ensure_ascii=False))) == {
        "t": HOSTILE
    }
