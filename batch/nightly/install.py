"""`briefloop schedule install`: keep the scheduler running on this machine.

With systemd, a user unit (shipped in batch/nightly/units/, written with this project's
absolute paths and this installation's `briefloop`), then `systemctl --user enable
--now`. Without systemd, a crontab line that starts the scheduler every ten minutes
unless it already runs (`flock -n`): after a reboot or a crash it is back within ten
minutes, and the scheduler catches up a run it missed (schedule.misfire_grace_seconds).
Time zones stay the scheduler's business, so cron's own (or its lack) never matters.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Literal

from batch.errors import BriefloopError

UNITS = ("schedule", "review", "worker")
Way = Literal["auto", "systemd", "cron"]
CRON_EVERY = "*/10 * * * *"
Runner = Callable[..., subprocess.CompletedProcess]


@dataclass(frozen=True)
class Project:
    folder: Path  # where the config's relative paths and the checkpoints are
    config: Path
    briefloop: Path  # the command of this installation

    @property
    def slug(self) -> str:
        return re.sub(r"[^A-Za-z0-9_.-]+", "-", self.folder.name).strip("-") or "project"

    def unit_name(self, unit: str) -> str:
        return f"briefloop-{unit}-{self.slug}.service"


@dataclass
class Installed:
    way: Literal["systemd", "cron"]
    where: str  # the unit file, or "crontab"
    started: bool = False
    todo: list[str] = field(default_factory=list)  # commands left for the person


def this_briefloop() -> Path:
    """The `briefloop` of this installation: beside this Python (a virtualenv's bin/)."""
    beside = Path(sys.executable).with_name("briefloop")
    if beside.exists():
        return beside
    found = shutil.which("briefloop")
    if found is None:
        raise BriefloopError("cannot find the briefloop command of this installation")
    return Path(found).resolve()


# A line end or another control character in a path would start a line of its own in a
# unit or a crontab (an ExecStartPre=, a job of the path's choosing): such a path is
# refused, never escaped.
_CONTROL = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]")


def check_paths(project: Project) -> None:
    """Refuse a project whose folder, config or command path holds a control character."""
    for what, path in (
        ("project folder", project.folder),
        ("config", project.config),
        ("briefloop command", project.briefloop),
    ):
        if _CONTROL.search(str(path)):
            raise BriefloopError(
                f"cannot install: the {what} path {str(path)!r} holds a line break or another "
                f"control character; move it to a path without one"
            )


def _specifiers(text: str) -> str:
    """`text` with systemd's `%` specifiers made literal (any setting of a unit)."""
    return text.replace("%", "%%")


def _exec_word(path: Path) -> str:
    """`path` as one word of an ExecStart= command line: double-quoted with C escapes,
    `%` and `$` (systemd's variable expansion) doubled."""
    text = _specifiers(str(path)).replace("$", "$$")
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _assignment(name: str, path: Path) -> str:
    """`name=path` as one quoted word of an Environment= setting (no `$` expansion there)."""
    text = _specifiers(f"{name}={path}")
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render_unit(unit: str, project: Project) -> str:
    if unit not in UNITS:
        raise BriefloopError(f"no unit {unit!r}: the units are {', '.join(UNITS)}")
    check_paths(project)
    template = resources.files("batch.nightly").joinpath(f"units/{unit}.service").read_text()
    return template.format(
        project=_specifiers(str(project.folder)),
        config=_exec_word(project.config),
        config_env=_assignment("BRIEFLOOP_CONFIG", project.config),
        briefloop=_exec_word(project.briefloop),
        unit=project.unit_name(unit),
    )


def user_unit_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "systemd" / "user"


def unit_path(project: Project, unit: str, unit_dir: Path | None = None) -> Path:
    """Where `unit` of `project` is written: `unit_dir`, else the user's unit folder."""
    return (unit_dir or user_unit_dir()) / project.unit_name(unit)


def has_systemd() -> bool:
    return shutil.which("systemctl") is not None and Path("/run/systemd/system").is_dir()


def _cron_text(text: str) -> str:
    """`text` as cron passes it to the shell: cron turns a bare `%` into a line end (and
    sends the rest to standard input); `\\%` is a `%`."""
    return text.replace("%", "\\%")


def cron_line(project: Project) -> str:
    """The crontab line that keeps the scheduler running (see the module docstring):
    every path quoted for the shell, every `%` escaped for cron."""
    check_paths(project)
    q = shlex.quote
    lock = project.folder / "checkpoints" / ".scheduler.lock"
    log = project.folder / "checkpoints" / "schedule-cron.log"
    command = (
        f"cd {q(str(project.folder))} && mkdir -p checkpoints && flock -n {q(str(lock))} "
        f"{q(str(project.briefloop))} --config {q(str(project.config))} schedule "
        f">/dev/null 2>>{q(str(log))}"
    )
    return f"{CRON_EVERY} {_cron_text(command)}  {cron_marker(project)}"


def cron_marker(project: Project) -> str:
    """The comment that ends this project's crontab line, and only its line."""
    return _cron_text(f"# briefloop schedule: {project.folder}")


def _crontab(run: Runner) -> list[str]:
    listed = run(["crontab", "-l"], capture_output=True, text=True)
    if listed.returncode != 0:
        if "no crontab" in listed.stderr.lower():
            return []
        raise BriefloopError(f"crontab -l failed: {listed.stderr.strip() or listed.returncode}")
    return listed.stdout.splitlines()


def _write_crontab(lines: list[str], run: Runner) -> None:
    text = "\n".join(lines) + "\n" if lines else ""
    done = run(["crontab", "-"], input=text, capture_output=True, text=True)
    if done.returncode != 0:
        raise BriefloopError(f"crontab - failed: {done.stderr.strip() or done.returncode}")


def install(
    project: Project,
    way: Way = "auto",
    unit: str = "schedule",
    unit_dir: Path | None = None,
    start: bool = True,
    run: Runner = subprocess.run,
) -> Installed:
    """Install `unit` for `project` the chosen way ("auto": systemd when it runs here,
    else cron). A unit already installed for the project is replaced."""
    check_paths(project)
    if way == "auto":
        way = "systemd" if unit_dir is not None or has_systemd() else "cron"
    if way == "cron":
        return _install_cron(project, unit, run)
    path = unit_path(project, unit, unit_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    name = path.name
    path.write_text(render_unit(unit, project), encoding="utf-8")
    steps = [
        ["systemctl", "--user", "daemon-reload"],
        ["systemctl", "--user", "enable", "--now", name],
    ]
    done = Installed("systemd", str(path))
    if not start or shutil.which("systemctl") is None:
        done.todo = [shlex.join(s) for s in steps]
        return done
    for number, step in enumerate(steps):
        result = run(step, capture_output=True, text=True)
        if result.returncode != 0:
            said = (result.stderr or result.stdout).strip().splitlines()
            done.todo = [shlex.join(s) for s in steps[number:]]
            done.todo.insert(
                0, f"# {shlex.join(step)} failed: {said[-1] if said else result.returncode}"
            )
            return done
    done.started = True
    return done


def _install_cron(project: Project, unit: str, run: Runner) -> Installed:
    if unit != "schedule":
        raise BriefloopError(
            f"only the scheduler is kept running by cron; the {unit} unit needs systemd"
        )
    for tool in ("crontab", "flock"):
        if shutil.which(tool) is None:
            raise BriefloopError(
                f"neither systemd nor {tool} is here: install cron (apt-get install cron) "
                f"or run `briefloop schedule` under another service manager"
            )
    marker = cron_marker(project)
    lines = [line for line in _crontab(run) if not line.endswith(marker)]
    _write_crontab([*lines, cron_line(project)], run)
    return Installed("cron", "crontab", started=True)


def uninstall(
    project: Project,
    unit: str = "schedule",
    unit_dir: Path | None = None,
    run: Runner = subprocess.run,
) -> list[str]:
    """Take the project's unit or crontab line away: what was removed."""
    removed: list[str] = []
    path = unit_path(project, unit, unit_dir)
    if path.exists():
        if unit_dir is None and shutil.which("systemctl") is not None:
            run(
                ["systemctl", "--user", "disable", "--now", path.name],
                capture_output=True,
                text=True,
            )
        path.unlink()
        removed.append(str(path))
    if unit == "schedule" and shutil.which("crontab") is not None:
        marker = cron_marker(project)
        lines = _crontab(run)
        kept = [line for line in lines if not line.endswith(marker)]
        if len(kept) != len(lines):
            _write_crontab(kept, run)
            removed.append("crontab line")
    return removed


def where_installed(
    project: Project, unit_dir: Path | None = None, run: Runner = subprocess.run
) -> str | None:
    """How the scheduler of `project` is kept running, in a few words, or None."""
    path = unit_path(project, "schedule", unit_dir)
    if path.exists():
        state = ""
        if unit_dir is None and shutil.which("systemctl") is not None:
            active = run(
                ["systemctl", "--user", "is-active", path.name], capture_output=True, text=True
            )
            state = f" ({active.stdout.strip() or 'unknown'})"
        return f"systemd user unit {path}{state}"
    if shutil.which("crontab") is not None:
        try:
            lines = _crontab(run)
        except BriefloopError:
            return None
        if any(line.endswith(cron_marker(project)) for line in lines):
            return "cron: started every ten minutes unless it runs"
    return None
