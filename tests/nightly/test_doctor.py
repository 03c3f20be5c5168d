"""`briefloop doctor` against real parts: bubblewrap, a local Ollama-speaking server, a
real SMTP server (aiosmtpd) and a closed port, the run log's folder, and the Google
Sheets client over the transport-level fake."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from click.testing import CliRunner

from batch.cli import cli
from batch.nightly import doctor

from conftest import make_settings, ollama_config
from fake_ollama import FakeOllama


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Accept:
    async def handle_DATA(self, server, session, envelope):  # never reached: nothing is sent
        raise AssertionError("doctor sent a message")


def doctor_cli(cfg: Path, *parts: str):
    args = ["--config", str(cfg), "doctor"]
    for part in parts:
        args += ["--only", part]
    return CliRunner().invoke(cli, args)


def test_a_model_that_answers_is_ok_and_a_wrong_name_fails_clearly(project):
    with FakeOllama(default="ready", models=("qwen2.5:7b",)) as server:
        cfg = ollama_config(project, server.base_url, critic_mode="gate")
        done = doctor_cli(cfg, "model")
        assert done.exit_code == 0, done.output
        assert "ok   model (writer)" in done.output
        assert "ok   model (critic)" in done.output  # critic_mode = gate asks it
        wrong = cfg.read_text().replace('model = "qwen2.5:7b"', 'model = "qwen2.5:70b"', 1)
        cfg.write_text(wrong)
        done = doctor_cli(cfg, "model")
    assert done.exit_code == 1
    [line] = [x for x in done.output.splitlines() if "model (writer)" in x]
    assert line.startswith("FAIL")
    assert "qwen2.5:70b" in line  # names the model it could not find


def test_a_server_that_is_down_fails_the_model_part(project):
    cfg = ollama_config(project, f"http://127.0.0.1:{free_port()}")
    done = doctor_cli(cfg, "model")
    assert done.exit_code == 1
    assert "FAIL model (writer)" in done.output


def test_mail_is_ok_on_a_real_server_and_fails_on_a_closed_port(project):
    controller = Controller(_Accept(), hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        cfg = ollama_config(
            project,
            "http://127.0.0.1:9",
            extra=f'[notify]\nsmtp_host = "127.0.0.1"\nsmtp_port = {controller.port}\n'
            'smtp_starttls = false\nmail_from = "night@example.com"\n'
            'mail_to = ["team@example.com"]\n',
        )
        done = doctor_cli(cfg, "mail")
        assert done.exit_code == 0, done.output
        assert f"ok   mail  127.0.0.1:{controller.port} accepts us" in done.output
    finally:
        controller.stop()
    closed = free_port()
    cfg.write_text(
        cfg.read_text().replace(f"smtp_port = {controller.port}", f"smtp_port = {closed}")
    )
    done = doctor_cli(cfg, "mail")
    assert done.exit_code == 1
    assert f"FAIL mail  127.0.0.1:{closed}:" in done.output
    assert "refused" in done.output.lower()


def test_a_login_without_its_password_fails_before_connecting(project):
    cfg = ollama_config(
        project,
        "http://127.0.0.1:9",
        extra='[notify]\nsmtp_host = "127.0.0.1"\nsmtp_port = 9\nsmtp_user = "me@example.com"\n'
        'smtp_password_env = "DOCTOR_TEST_PASSWORD"\nmail_to = ["team@example.com"]\n',
    )
    os.environ.pop("DOCTOR_TEST_PASSWORD", None)
    done = doctor_cli(cfg, "mail")
    assert done.exit_code == 1
    assert "$DOCTOR_TEST_PASSWORD" in done.output


def test_parts_not_configured_are_skipped_and_say_so(project):
    cfg = ollama_config(project, "http://127.0.0.1:9")
    done = doctor_cli(cfg, "mail", "sheet")
    assert done.exit_code == 0, done.output
    assert "skip mail" in done.output
    assert "ok   sheet (local)" in done.output
    assert "skip sheet (Google)" in done.output


def test_a_run_log_folder_that_cannot_be_written_fails(project, tmp_path):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    cfg = ollama_config(project, "http://127.0.0.1:9")
    cfg.write_text(
        cfg.read_text().replace('path = "output/runs.csv"', f'path = "{blocked}/x/runs.csv"')
    )
    done = doctor_cli(cfg, "sheet")
    assert done.exit_code == 1
    assert "FAIL sheet (local)" in done.output


def test_the_google_sheet_opens_or_says_why(project):
    from fake_sheets import FakeSheets

    key, unknown = "1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "9" * 40
    sheets = FakeSheets().add_spreadsheet(key, title="Nightly runs")
    found = make_settings(project, **{"log.gsheet": {"spreadsheet": key}})
    [local, opened] = doctor.check_sheet(found, sheets.client)
    assert local.status == "ok"
    assert opened.status == "ok" and "Nightly runs" in opened.detail
    wrong = make_settings(project, **{"log.gsheet": {"spreadsheet": unknown}})
    [_, missing] = doctor.check_sheet(wrong, sheets.client)
    assert missing.status == "fail"
    assert f"spreadsheet {unknown} not found" in missing.detail


def test_the_sandbox_part_fails_naming_the_install_when_bubblewrap_is_missing(project):
    cfg = ollama_config(project, "http://127.0.0.1:9")
    done = subprocess.run(
        [sys.executable, "-m", "batch", "--config", str(cfg), "doctor", "--only", "sandbox"],
        env={"PATH": "/nonexistent", "HOME": str(project)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert "FAIL sandbox" in done.stdout
    assert "apt-get install bubblewrap" in done.stdout


def test_the_sandbox_part_is_ok_where_bubblewrap_works(project):
    from batch.judging.doc_examples.sandbox import sandbox_problem

    if sandbox_problem() is not None and not os.environ.get("CI"):
        pytest.skip(f"no sandbox here: {sandbox_problem()}")
    cfg = ollama_config(project, "http://127.0.0.1:9")
    done = doctor_cli(cfg, "sandbox")
    assert done.exit_code == 0, done.output
    assert done.output.startswith("ok   sandbox")


def test_an_unknown_part_is_refused_with_the_list(project):
    cfg = ollama_config(project, "http://127.0.0.1:9")
    done = doctor_cli(cfg, "modem")
    assert done.exit_code == 2
    assert "sandbox" in done.output and "model" in done.output
