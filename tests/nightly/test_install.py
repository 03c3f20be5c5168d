"""`briefloop schedule install`: the units shipped in the package, written with the
project's paths into a temporary unit folder (XDG_CONFIG_HOME), or a crontab line
through a `crontab` on PATH that keeps its table in a file (the system's crontab is out
of reach here); then `schedule --list` shows how the night is kept."""

from __future__ import annotations

import configparser
import os
import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import processes
import pytest
from click.testing import CliRunner

from batch.cli import cli
from batch.errors import BriefloopError
from batch.nightly import install

from conftest import briefloop_process

JOB = (
    '[[schedule.jobs]]\nname = "nightly"\ncron = "0 2 * * mon-fri"\n'
    'timezone = "Europe/London"\nsource = "briefs"\n'
)


@pytest.fixture
def night(tmp_path: Path, monkeypatch) -> Path:
    """A project made by `briefloop init`, with one job, in a folder whose name has a
    space; the user's config folder in tmp_path."""
    folder = tmp_path / "team briefs"
    assert CliRunner().invoke(cli, ["init", str(folder)]).exit_code == 0
    cfg = folder / "config" / "briefloop.toml"
    cfg.write_text(cfg.read_text() + "\n" + JOB)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(folder)
    return folder


@pytest.fixture
def crontab(tmp_path: Path, monkeypatch) -> Path:
    """`crontab -l` and `crontab -` over a file, first on PATH."""
    bin_dir = tmp_path / "fake-bin"
    bin_dir.mkdir()
    table = tmp_path / "crontab.txt"
    script = bin_dir / "crontab"
    script.write_text(
        "#!/bin/sh\n"
        f'T="{table}"\n'
        'if [ "$1" = "-l" ]; then [ -f "$T" ] || { echo "no crontab for $USER" >&2; exit 1; }; '
        'cat "$T"; exit 0; fi\n'
        'if [ "$1" = "-" ]; then cat > "$T"; exit 0; fi\n'
        "exit 2\n"
    )
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return table


def test_install_writes_a_unit_with_this_projects_paths_and_list_shows_the_night(night):
    runner = CliRunner()
    done = runner.invoke(cli, ["schedule", "install", "--way", "systemd", "--no-start"])
    assert done.exit_code == 0, done.output
    unit = (
        Path(os.environ["XDG_CONFIG_HOME"]) / "systemd/user/briefloop-schedule-team-briefs.service"
    )
    assert f"systemd: {unit} (written)" in done.output
    assert "systemctl --user enable --now briefloop-schedule-team-briefs.service" in done.output
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.read_string(unit.read_text())
    service = parser["Service"]
    assert service["WorkingDirectory"] == str(night)
    argv = shlex.split(service["ExecStart"])
    assert Path(argv[0]) == Path(sys.executable).with_name("briefloop")
    assert argv[1:] == ["--config", str(night / "config" / "briefloop.toml"), "schedule"]
    listed = runner.invoke(cli, ["schedule", "--list"])
    assert listed.exit_code == 0, listed.output
    assert f"kept running by systemd user unit {unit}" in listed.output
    assert "nightly" in listed.output and "0 2 * * mon-fri" in listed.output
    # run again: replaced, not doubled; uninstall takes it away
    assert (
        runner.invoke(cli, ["schedule", "install", "--way", "systemd", "--no-start"]).exit_code == 0
    )
    assert len(list(unit.parent.iterdir())) == 1
    removed = runner.invoke(cli, ["schedule", "uninstall"])
    assert str(unit) in removed.output and not unit.exists()
    assert "not installed" in runner.invoke(cli, ["schedule", "--list"]).output


def test_where_there_is_no_systemd_a_crontab_line_keeps_it_running(night, crontab):
    if shutil.which("flock") is None:
        pytest.skip("flock (util-linux) is not installed")
    crontab.write_text("MAILTO=me@example.com\n0 5 * * * backup.sh\n")
    runner = CliRunner()
    done = runner.invoke(cli, ["schedule", "install", "--way", "cron"])
    assert done.exit_code == 0, done.output
    assert "cron: crontab (started)" in done.output
    lines = crontab.read_text().splitlines()
    assert lines[:2] == ["MAILTO=me@example.com", "0 5 * * * backup.sh"]  # theirs kept
    [ours] = lines[2:]
    assert ours.startswith("*/10 * * * * ") and ours.endswith(f"# briefloop schedule: {night}")
    assert "flock -n" in ours and "schedule" in ours
    assert "kept running by cron" in runner.invoke(cli, ["schedule", "--list"]).output
    # installed twice: one line
    runner.invoke(cli, ["schedule", "install", "--way", "cron"])
    assert len(crontab.read_text().splitlines()) == 3
    runner.invoke(cli, ["schedule", "uninstall"])
    assert crontab.read_text().splitlines() == lines[:2]


def test_the_crontab_line_starts_the_scheduler_once(night, crontab, tmp_path):
    """The line's command, run by a shell as cron would, twice: the second finds the
    first holding the lock and leaves at once."""
    if shutil.which("flock") is None:
        pytest.skip("flock (util-linux) is not installed")
    project = install.Project(night, night / "config/briefloop.toml", install.this_briefloop())
    command = install.cron_line(project).removeprefix(install.CRON_EVERY + " ")
    command = command.rsplit("  #", 1)[0]
    # its own process group: sh, flock and the scheduler under it end together
    first = processes.register(subprocess.Popen(["sh", "-c", command], start_new_session=True))
    try:
        lock = night / "checkpoints" / ".scheduler.lock"
        for _ in range(100):
            if lock.exists():
                break
            subprocess.run(["sleep", "0.1"])
        second = subprocess.run(["sh", "-c", command], timeout=30)
        assert second.returncode == 1  # flock -n: already running
        assert first.poll() is None  # the first still runs the scheduler
    finally:
        # the shell alone would leave flock and the scheduler running
        os.killpg(first.pid, signal.SIGTERM)
        first.wait(timeout=60)


def test_every_shipped_unit_renders_to_a_command_the_cli_takes(night):
    project = install.Project(night, night / "config/briefloop.toml", install.this_briefloop())
    for unit in install.UNITS:
        parser = configparser.ConfigParser(strict=False, interpolation=None)
        parser.read_string(install.render_unit(unit, project))
        argv = shlex.split(parser["Service"]["ExecStart"])
        assert argv[0] == str(project.briefloop)
        assert parser["Service"]["Restart"] == "on-failure"
        result = CliRunner().invoke(cli, [*argv[1:], "--help"])
        assert result.exit_code == 0, (unit, result.output)


def test_a_percent_in_a_path_is_not_a_systemd_specifier(tmp_path):
    folder = tmp_path / "100% briefs"
    project = install.Project(folder, folder / "c.toml", Path("/opt/bl/bin/briefloop"))
    text = install.render_unit("schedule", project)
    assert f"WorkingDirectory={tmp_path}/100%% briefs" in text
    assert f'--config "{tmp_path}/100%% briefs/c.toml"' in text


def test_auto_chooses_systemd_only_where_it_runs(night, crontab, monkeypatch):
    if shutil.which("flock") is None:
        pytest.skip("flock (util-linux) is not installed")
    project = install.Project(night, night / "config/briefloop.toml", install.this_briefloop())
    monkeypatch.setattr(install, "has_systemd", lambda: False)
    assert install.install(project).way == "cron"
    monkeypatch.setattr(install, "has_systemd", lambda: True)
    done = install.install(project, start=False)
    assert done.way == "systemd" and Path(done.where).exists()


def test_the_package_ships_the_units():
    from importlib import resources

    shipped = {p.name for p in resources.files("batch.nightly").joinpath("units").iterdir()}
    assert {f"{u}.service" for u in install.UNITS} <= shipped


def test_init_writes_a_schedule_example_the_config_accepts_once_uncommented(tmp_path):
    folder = tmp_path / "p"
    CliRunner().invoke(cli, ["init", str(folder)])
    text = (folder / "config" / "briefloop.toml").read_text()
    example = [
        line.removeprefix("# ")
        for line in text.splitlines()
        if line.startswith("# [[schedule.jobs]]")
    ]
    assert example, "no [schedule] example"
    start = text.index("# [[schedule.jobs]]")
    block = []
    for line in text[start:].splitlines():
        if not line.startswith("# "):
            break
        block.append(line.removeprefix("# ").split("  #")[0])
    (folder / "config" / "briefloop.toml").write_text(text + "\n" + "\n".join(block) + "\n")
    proc = briefloop_process(folder / "config" / "briefloop.toml", "schedule", "--list")
    listed = proc.communicate(timeout=60)[0].decode()
    assert proc.returncode == 0, listed
    assert "nightly" in listed


# -- paths a unit or a crontab line must carry as they are --------------------------------

AWKWARD = ["100% done", "it's $HOME", 'say "hi"', "back\\slash", "a%nb $(id) `id`"]


def systemd_words(value: str) -> list[str]:
    """A command line as systemd reads it: specifiers and variables undoubled, then
    words split with C escapes in quotes (what shlex does for these characters)."""
    return shlex.split(value.replace("%%", "\0").replace("$$", "$").replace("\0", "%"))


@pytest.mark.parametrize("name", AWKWARD)
def test_a_unit_carries_an_awkward_path_as_one_word(tmp_path, name):
    folder = tmp_path / name / "briefs"
    (folder / "config").mkdir(parents=True)
    tool = tmp_path / name / "bin" / "briefloop"
    tool.parent.mkdir(parents=True)
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    project = install.Project(folder, folder / "config" / "c.toml", tool)
    for unit in install.UNITS:
        text = install.render_unit(unit, project)
        parser = configparser.ConfigParser(strict=False, interpolation=None)
        parser.read_string(text)
        service = parser["Service"]
        assert [k for k in service if k.startswith("exec")] == ["execstart"]
        argv = systemd_words(service["ExecStart"])
        assert argv[0] == str(tool)
        if unit == "worker":
            [env] = systemd_words(service["Environment"])
            assert env == f"BRIEFLOOP_CONFIG={project.config}"
        else:
            assert argv[1:3] == ["--config", str(project.config)]
        assert service["WorkingDirectory"].replace("%%", "%") == str(folder)
        if shutil.which("systemd-analyze"):
            path = tmp_path / f"check-{unit}.service"
            path.write_text(text)
            checked = subprocess.run(
                ["systemd-analyze", "verify", str(path)], capture_output=True, text=True
            )
            assert "ExecStart" not in checked.stderr and "Invalid" not in checked.stderr


@pytest.mark.parametrize("bad", ["new\nline", "cr\rhere", "tab\there", "nel\x85x", "ls\u2028x"])
@pytest.mark.parametrize("way", ["cron", "systemd"])
def test_a_path_with_a_line_end_is_refused_and_nothing_is_written(tmp_path, crontab, bad, way):
    folder = tmp_path / f"{bad}* * * * * touch {tmp_path}/owned #" / "briefs"
    project = install.Project(folder, folder / "c.toml", Path("/opt/bl/bin/briefloop"))
    crontab.write_text("0 5 * * * backup.sh\n")
    units = tmp_path / "units"
    with pytest.raises(BriefloopError, match="line break or another control character"):
        install.install(project, way, unit_dir=units if way == "systemd" else None)
    assert crontab.read_text() == "0 5 * * * backup.sh\n"
    assert not units.exists()


@pytest.mark.parametrize("name", AWKWARD)
def test_the_crontab_line_runs_the_command_with_the_paths_as_they_are(tmp_path, name):
    """The line as cron reads it (a bare `%` would end the command; `\\%` is a `%`), run
    by a shell: the scheduler command gets this project's paths, byte for byte."""
    if shutil.which("flock") is None:
        pytest.skip("flock (util-linux) is not installed")
    folder = tmp_path / name / "briefs"
    folder.mkdir(parents=True)
    said = tmp_path / "argv.txt"
    tool = tmp_path / name / "briefloop"
    tool.write_text(f'#!/bin/sh\nprintf "%s\\n" "$PWD" "$@" > {shlex.quote(str(said))}\n')
    tool.chmod(0o755)
    project = install.Project(folder, folder / "c.toml", tool)
    line = install.cron_line(project)
    assert "\n" not in line and line.endswith(install.cron_marker(project))
    command = line.removeprefix(install.CRON_EVERY + " ")
    # cron: the command ends at the first bare %, and \% is a %
    assert "%" not in command.replace("\\%", "")
    command = command.replace("\\%", "%")
    subprocess.run(["sh", "-c", command], check=True, timeout=30)
    assert said.read_text().splitlines() == [
        str(folder),
        "--config",
        str(project.config),
        "schedule",
    ]


def test_uninstall_takes_away_exactly_the_line_install_wrote(tmp_path, crontab):
    if shutil.which("flock") is None:
        pytest.skip("flock (util-linux) is not installed")
    ours = install.Project(tmp_path / "100% b", tmp_path / "100% b/c.toml", Path("/x/briefloop"))
    neighbour = install.Project(
        tmp_path / "x" / "100% b", tmp_path / "x/100% b/c.toml", Path("/x/briefloop")
    )
    crontab.write_text("0 5 * * * backup.sh  # briefloop schedule: elsewhere\n")
    install.install(neighbour, "cron")
    before = crontab.read_text()
    install.install(ours, "cron")
    assert install.uninstall(ours) == ["crontab line"]
    assert crontab.read_text() == before
