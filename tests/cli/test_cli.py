"""The command line: help on every command, exit codes, errors without tracebacks."""

from __future__ import annotations

import json
import re
import socket

import pytest
from click.testing import CliRunner

from batch.cli import cli


def commands(group=cli, prefix=()):
    for name, cmd in group.commands.items():
        yield (*prefix, name)
        if hasattr(cmd, "commands"):
            yield from commands(cmd, (*prefix, name))


@pytest.mark.parametrize("path", [(), *commands()])
def test_every_command_has_help(path):
    result = CliRunner().invoke(cli, [*path, "--help"])
    assert result.exit_code == 0
    assert "Usage:" in result.output
    # a real sentence of help, not just the usage line
    assert len(result.output.split("\n\n")[1].strip()) > 20


def test_config_error_is_one_line_exit_2(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[loop]\nmax_roundz = 1\n")
    result = CliRunner().invoke(cli, ["--config", str(bad), "runs"])
    assert result.exit_code == 2
    assert "loop.max_roundz: unknown key" in result.output
    assert "Traceback" not in result.output


def test_missing_config_file(tmp_path):
    result = CliRunner().invoke(cli, ["--config", str(tmp_path / "x.toml"), "runs"])
    assert result.exit_code == 2 and "config file not found" in result.output


def test_no_config_in_reach_scatters_nothing(tmp_path, monkeypatch):
    (tmp_path / "briefs").mkdir()
    (tmp_path / "briefs" / "a.md").write_text("Office closed Friday.\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BRIEFLOOP_CONFIG", raising=False)
    result = CliRunner().invoke(cli, ["run", str(tmp_path / "briefs")])
    assert result.exit_code == 2, result.output
    assert "no config file" in result.output and "briefloop init" in result.output
    assert "Traceback" not in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["briefs"]


def test_init_makes_a_project_that_loads_and_keeps_edits(tmp_path, monkeypatch):
    monkeypatch.delenv("BRIEFLOOP_CONFIG", raising=False)
    runner = CliRunner()
    made = runner.invoke(cli, ["init", str(tmp_path / "proj")])
    assert made.exit_code == 0, made.output
    proj = tmp_path / "proj"
    assert (proj / "briefs").is_dir() and (proj / "rubrics" / "memo.toml").is_file()
    cfg = proj / "config" / "briefloop.toml"
    cfg.write_text(cfg.read_text() + "\n# mine\n")
    again = runner.invoke(cli, ["init", str(proj)])
    assert again.exit_code == 0 and "kept" in again.output
    assert cfg.read_text().endswith("# mine\n")
    monkeypatch.chdir(proj / "briefs")
    from batch import config
    from batch.inputs.rubrics import load_rubric

    settings = config.load(environ={})
    assert settings.output_dir == proj / "output"
    assert load_rubric(settings.path(settings.paths.rubrics), "memo").name == "memo"
    listed = runner.invoke(cli, ["runs"])
    assert listed.exit_code == 0 and "no runs yet" in listed.output


def test_missing_source_folder_is_usage_error(project):
    cfg = project / "briefloop.toml"
    cfg.write_text('[paths]\nroot = "."\n')
    result = CliRunner().invoke(cli, ["--config", str(cfg), "run", str(project / "nope")])
    assert result.exit_code == 2 and "no such folder" in result.output


def test_run_with_only_bad_briefs_exits_1_and_runs_json_lists_them(project):
    cfg = project / "briefloop.toml"
    cfg.write_text('[paths]\nroot = "."\n[log]\nformat = "csv"\npath = "runs.csv"\n')
    (project / "briefs" / "empty.md").write_text("")
    runner = CliRunner()
    result = runner.invoke(cli, ["--config", str(cfg), "run", str(project / "briefs")])
    assert result.exit_code == 1, result.output
    assert "empty: error" in result.output and "empty file" in result.output
    listed = runner.invoke(cli, ["--config", str(cfg), "runs", "--json"])
    assert listed.exit_code == 0
    [rec] = json.loads(listed.output)
    for field in (
        "run_id",
        "thread_id",
        "brief_id",
        "source",
        "started_at",
        "ended_at",
        "status",
        "stop_reason",
        "rounds",
        "score_history",
        "open_must_fix",
        "needs_from_human",
        "deviations",
        "models",
        "model_calls",
        "input_tokens",
        "output_tokens",
        "seconds",
        "output_path",
        "error",
    ):
        assert field in rec
    assert rec["stop_reason"] == "error" and rec["error"] == "empty file"
    table = runner.invoke(cli, ["--config", str(cfg), "runs"])
    assert table.exit_code == 0 and "empty" in table.output


def test_python_dash_m_works():
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "batch", "--help"], capture_output=True, text=True, check=True
    )
    assert "briefloop" in out.stdout


def test_sync_sends_what_a_locked_sheet_missed(project):
    cfg = project / "briefloop.toml"
    cfg.write_text('[paths]\nroot = "."\n[log]\nformat = "xlsx"\npath = "runs.xlsx"\n')
    (project / "briefs" / "empty.md").write_text("")
    (project / "runs.xlsx").write_text("held by another program")
    runner = CliRunner()
    result = runner.invoke(cli, ["--config", str(cfg), "run", str(project / "briefs")])
    assert result.exit_code == 1 and "1 row(s) left pending" in result.output
    still = runner.invoke(cli, ["--config", str(cfg), "sync"])
    assert still.exit_code == 1 and "still pending" in still.output
    (project / "runs.xlsx").unlink()
    done = runner.invoke(cli, ["--config", str(cfg), "sync"])
    assert done.exit_code == 0 and "sent 1 row(s)" in done.output
    assert "sent 0 row(s)" in runner.invoke(cli, ["--config", str(cfg), "sync"]).output
    (project / "runs.xlsx").unlink()
    again = runner.invoke(cli, ["--config", str(cfg), "sync", "--all"])
    assert "sent 1 row(s)" in again.output and (project / "runs.xlsx").exists()


@pytest.mark.parametrize(
    "args",
    [
        ["--config", "{cfg}", "runs"],
        ["runs", "--config", "{cfg}"],
        ["review", "list", "--config", "{cfg}"],
        ["review", "--config", "{cfg}", "list"],
    ],
)
def test_config_is_taken_before_or_after_the_command(tmp_path, args):
    cfg = tmp_path / "x.toml"
    cfg.write_text('[paths]\nroot = "."\n[log]\nformat = "csv"\npath = "out/runs.csv"\n')
    result = CliRunner().invoke(cli, [a.format(cfg=cfg) for a in args])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "checkpoints").is_dir()  # the state went where the config says


def test_a_config_after_the_command_that_does_not_exist_is_named(tmp_path):
    result = CliRunner().invoke(cli, ["runs", "--config", str(tmp_path / "nope.toml")])
    assert result.exit_code == 2 and "nope.toml: config file not found" in result.output


def test_worker_without_a_cluster_says_what_to_configure(tmp_path):
    cfg = tmp_path / "briefloop.toml"
    cfg.write_text("")
    result = CliRunner().invoke(cli, ["--config", str(cfg), "worker"])
    assert result.exit_code == 2
    assert "no cluster configured" in result.output and "Traceback" not in result.output


def test_the_review_token_variable_the_readme_documents_breaks_no_command(tmp_path, monkeypatch):
    monkeypatch.delenv("BRIEFLOOP_CONFIG", raising=False)
    runner = CliRunner()
    assert runner.invoke(cli, ["init", str(tmp_path / "proj")]).exit_code == 0
    monkeypatch.chdir(tmp_path / "proj")
    monkeypatch.setenv("BRIEFLOOP_REVIEW_TOKEN", "s3cret-token")
    for args in (["runs"], ["review", "list"]):
        result = runner.invoke(cli, args)
        assert result.exit_code == 0, result.output
        assert "unknown key" not in result.output


def test_an_unreachable_database_is_one_line_without_its_password(tmp_path, monkeypatch):
    monkeypatch.delenv("BRIEFLOOP_CONFIG", raising=False)
    runner = CliRunner()
    assert runner.invoke(cli, ["init", str(tmp_path / "proj")]).exit_code == 0
    cfg = tmp_path / "proj" / "config" / "briefloop.toml"
    with socket.socket() as s:  # a loopback port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base = cfg.read_text()
    monkeypatch.chdir(tmp_path / "proj")
    # an unencoded @ in the password is refused before anything connects
    cfg.write_text(
        base + '\n[store]\nbackend = "postgres"\n'
        'dsn = "postgresql://bl:pa@ss-w0rd@127.0.0.1:5432/bl"\n'
    )
    result = runner.invoke(cli, ["runs"])
    assert result.exit_code == 2 and "write it as %40" in result.output
    assert "w0rd" not in result.output
    cfg.write_text(
        base + f'\n[store]\nbackend = "postgres"\n'
        f'dsn = "postgresql://bl:pa%40ss-w0rd@127.0.0.1:{port}/bl'
        f'?connect_timeout=2"\n'
    )
    for args in (["runs"], ["review", "list"], ["run", "briefs"]):
        result = runner.invoke(cli, args)
        assert result.exit_code == 1, (args, result.output)
        assert "Traceback" not in result.output and "w0rd" not in result.output
        assert "the database cannot be reached" in result.output
        assert len(result.output.strip().splitlines()) <= 3, result.output


def test_mask_credentials_masks_the_password_however_it_is_given():
    from batch.config import mask_credentials

    assert mask_credentials("postgresql://u:p@ss@h:5432/db") == "postgresql://***@h:5432/db"
    assert "s3" not in mask_credentials("postgresql://h/db?user=u&password=s3&x=1")
    assert "s3" not in mask_credentials("host=h password='s3 x' dbname=d")


def test_an_sqlite_fault_in_any_command_is_one_line(tmp_path, monkeypatch):
    import sqlite3

    from batch.cli import running as cli_mod

    monkeypatch.delenv("BRIEFLOOP_CONFIG", raising=False)
    runner = CliRunner()
    assert runner.invoke(cli, ["init", str(tmp_path / "proj")]).exit_code == 0
    monkeypatch.chdir(tmp_path / "proj")

    def failing_disk(*args, **kwargs):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(cli_mod, "list_runs", failing_disk)
    result = runner.invoke(cli, ["runs"])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and "disk I/O error" in result.output
    assert "checkpoints" in result.output and "run the same command again" in result.output


def _records(n: int = 3) -> list[dict]:
    return [
        {
            "thread_id": f"q3-sales-memo-number-{i}-e2b473dd335f",
            "run_id": f"r-{i}",
            "brief_id": f"q3-sales-memo-number-{i}",
            "title": "Q3 results memo for sales",
            "status": "finished" if i else "awaiting_human",
            "stop_reason": "approved" if i else "awaiting_human",
            "rounds": 2,
            "score_history": [93.3, 100.0],
            "needs_from_human": [],
            "model_calls": 4,
            "seconds": 61.2,
        }
        for i in range(n)
    ]


def test_runs_fits_the_terminal_and_names_each_thread():
    from rich.console import Console

    from batch.cli.running import runs_table

    headers = {}
    for width in (80, 120):
        console = Console(width=width, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
        console.print(runs_table(_records(), width))
        text = console.export_text()
        assert all(len(line) <= width for line in text.splitlines()), text
        for r in _records():
            assert r["thread_id"] in text  # whole, to copy into `review history`
        assert "awaiting human" in text and "approv/ed" not in text
        headers[width] = text.splitlines()[1].count("┃") - 1
    assert 3 <= headers[80] < headers[120]


def test_runs_filters_by_outcome_and_title_without_a_batch(project):
    from batch.nightly.job import run_job

    from conftest import ScriptedModel, critic_answer, make_settings, write_brief, writer_answer

    write_brief(project, "a.md", "Office closed Friday.", id="a", title="Closure memo")
    write_brief(project, "b.md", "Office closed Monday.", id="b", title="Other note")

    def write(messages):
        day = "Monday" if "Monday" in messages[-1]["content"] else "Friday"
        return writer_answer(f"The office is closed on {day}.")

    run_job(
        make_settings(project),
        project / "briefs",
        strict=True,
        models={
            "writer": ScriptedModel([write] * 4),
            "critic": ScriptedModel([critic_answer(5)] * 4),
        },
    )
    cfg = project / "briefloop.toml"
    cfg.write_text('[paths]\nroot = "."\n[log]\nformat = "csv"\npath = "output/runs.csv"\n')
    runner = CliRunner()
    by_title = runner.invoke(cli, ["--config", str(cfg), "runs", "--brief", "CLOSURE", "--json"])
    assert by_title.exit_code == 0, by_title.output
    assert [r["brief_id"] for r in json.loads(by_title.output)] == ["a"]
    none = runner.invoke(cli, ["--config", str(cfg), "runs", "--outcome", "max_rounds"])
    assert none.exit_code == 0 and "no runs match" in none.output


def test_runs_batch_fits_80_and_120_columns_and_lists_every_run_it_counts(project):
    """Two nights on one folder: the second counts a text still waiting, two already done
    and one new: `runs --batch last` lists each, no line past the width, no word cut."""
    from batch.nightly.job import run_job

    from conftest import ScriptedModel, critic_answer, make_settings, write_brief, writer_answer

    ph = "[FIGURE NEEDED: Q3 revenue for the northern sales region]"
    write_brief(
        project,
        "a.md",
        "Office closed Friday.",
        id="office-closure-friday-afternoon",
        title="The office closes early on Friday afternoon for the move",
    )
    write_brief(project, "b.md", "Q3 memo.", id="q3-sales-memo-for-the-northern-region")
    write_brief(project, "c.md", "Office closed Monday.", id="c-monday")

    def write(messages):
        text = messages[-1]["content"]
        if "Q3" in text:
            return writer_answer(f"Q3 revenue was {ph}.", needs=[(ph, "How much?")])
        day = "Monday" if "Monday" in text else "Friday"
        return writer_answer(f"The office is closed on {day}.")

    models = {
        "writer": ScriptedModel([write] * 12),
        "critic": ScriptedModel([critic_answer(5)] * 12),
    }
    s = make_settings(project)
    run_job(s, project / "briefs", strict=True, models=models)
    write_brief(project, "d.md", "Office closed Tuesday.", id="d-tuesday")
    run_job(s, project / "briefs", strict=True, models=models)
    cfg = project / "briefloop.toml"
    cfg.write_text('[paths]\nroot = "."\n[log]\nformat = "csv"\npath = "output/runs.csv"\n')
    for width in (80, 120):
        result = CliRunner().invoke(
            cli, ["--config", str(cfg), "runs", "--batch", "last"], env={"COLUMNS": str(width)}
        )
        assert result.exit_code == 0, result.output
        lines = result.output.splitlines()
        assert all(len(line) <= width for line in lines), result.output
        words = set(result.output.split())
        for whole in (
            "office-closure-friday-afternoon",
            "q3-sales-memo-for-the-northern-region",
            "c-monday",
            "d-tuesday",
        ):
            assert {whole, whole + ":", whole + ","} & words, (whole, result.output)
        assert "still awaiting human" in result.output and "already done" in result.output
        # two lines for each brief this batch worked on, one line for those done before
        assert sum(line.startswith("    thread ") for line in lines) == 2, result.output
        [before] = [line for line in lines if line.startswith("· already done before")]
        assert "(2)" in before, result.output
        assert re.search(r"batch 2: .*, finished: ", " ".join(result.output.split()))
