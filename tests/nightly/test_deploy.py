"""The systemd units in deploy/ start commands that exist, with options they take."""

from __future__ import annotations

import configparser
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from batch.cli import cli

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
UNITS = sorted(DEPLOY.glob("*.service"))


def test_every_long_running_command_has_a_unit():
    names = {u.name for u in UNITS}
    assert {"briefloop.service", "briefloop-worker.service", "briefloop-review.service"} <= names


@pytest.mark.parametrize("unit", UNITS, ids=lambda u: u.name)
def test_a_units_command_line_is_one_the_cli_takes(unit):
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.read_string(unit.read_text(encoding="utf-8"))
    argv = shlex.split(parser["Service"]["ExecStart"])
    assert argv[0].endswith("/.venv/bin/briefloop")
    assert parser["Service"].get("Restart") == "on-failure"
    # the arguments up to --help are parsed: a command or option that does not exist
    # fails here
    result = CliRunner().invoke(cli, [*argv[1:], "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.output
