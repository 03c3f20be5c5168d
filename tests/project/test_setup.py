"""`make setup` on a machine without what the demo needs: it installs the system programs
when it can, else stops with the one line that says how, and it never lets the demo
leave a doc's examples unverified without saying so.

The machine is made on PATH: a folder holding only the programs named here, so
bubblewrap is missing whatever this machine has; apt-get, where a test needs one, is a
script that "installs" by putting the program on that PATH (the package manager is the
one part out of reach here)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "system-packages"
BASICS = ("bash", "sh", "env", "id", "uname", "make", "nproc", "cat", "chmod", "sleep", "true")
NEED = "bwrap:bubblewrap:examples in API docs run in its sandbox"


@pytest.fixture
def machine(tmp_path: Path) -> Path:
    """A bin folder with the basics only: no bubblewrap, no apt-get, no sudo."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in BASICS:
        found = shutil.which(name)
        if found is None:
            pytest.skip(f"{name} is not installed")
        (bin_dir / name).symlink_to(found)
    return bin_dir


def fake_apt_get(bin_dir: Path, works: bool = True) -> Path:
    """apt-get that records its calls and, for `install`, puts a `bwrap` on PATH."""
    log = bin_dir.parent / "apt.log"
    installs = f'printf "#!/bin/sh\\nexit 0\\n" > "{bin_dir}/bwrap"; chmod +x "{bin_dir}/bwrap"'
    script = bin_dir / "apt-get"
    script.write_text(
        "#!/bin/sh\n"
        f'echo "$*" >> "{log}"\n'
        f'case "$*" in *install*) {installs if works else "exit 100"};; esac\n'
        "exit 0\n"
    )
    script.chmod(0o755)
    return log


def run(bin_dir: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(SCRIPT), *args],
        env={"PATH": str(bin_dir), "HOME": str(bin_dir.parent)},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_missing_program_stops_setup_with_the_one_line_that_says_how(machine):
    done = run(machine, NEED)
    assert done.returncode == 1
    [line] = done.stderr.splitlines()
    assert "bubblewrap is not installed" in line
    assert "sudo apt-get install bubblewrap" in line
    assert "examples in API docs" in line  # and why it is needed


@pytest.mark.skipif(os.geteuid() != 0, reason="installs as root; sudo is tried otherwise")
def test_a_missing_program_is_installed_when_the_machine_lets_us(machine):
    log = fake_apt_get(machine)
    done = run(machine, NEED)
    assert done.returncode == 0, done.stderr
    assert (machine / "bwrap").exists()
    calls = log.read_text().splitlines()
    assert calls[0].startswith("update")
    assert "install -y -qq bubblewrap" in calls[1]


@pytest.mark.skipif(os.geteuid() != 0, reason="installs as root; sudo is tried otherwise")
def test_an_install_that_fails_still_stops_with_the_line(machine):
    fake_apt_get(machine, works=False)
    done = run(machine, NEED)
    assert done.returncode == 1
    assert "apt-get could not install bubblewrap" in done.stderr
    assert "sudo apt-get install bubblewrap" in done.stderr.splitlines()[-1]


def test_what_is_here_is_left_alone(machine):
    log = fake_apt_get(machine)
    (machine / "bwrap").symlink_to(machine / "true")
    assert run(machine, NEED).returncode == 0
    assert not log.exists()  # apt-get never asked


def test_optional_programs_only_warn(machine):
    done = run(machine, "--optional", NEED)
    assert done.returncode == 0
    assert done.stderr.startswith("warning: bubblewrap is not installed")


def test_make_setup_without_bubblewrap_stops_before_the_demo_runs(machine):
    """The Makefile's own setup, with the virtualenv already built: the system check and
    the sandbox probe are what run, and either stops it."""
    venv = Path(sys.executable).parent.parent
    installed = venv / ".installed"
    if (
        not installed.exists()
        or installed.stat().st_mtime < (REPO / "pyproject.toml").stat().st_mtime
    ):
        pytest.skip("the virtualenv is not an up-to-date one `make setup` built")
    env = {"PATH": str(machine), "HOME": str(machine.parent)}
    setup = subprocess.run(
        ["make", "-s", "-C", str(REPO), "setup", f"VENV={venv}"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert setup.returncode != 0
    assert "sudo apt-get install bubblewrap" in setup.stderr
    # NO_SANDBOX=1 goes on, and says that it does
    anyway = subprocess.run(
        ["make", "-s", "-C", str(REPO), "setup", f"VENV={venv}", "NO_SANDBOX=1"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert anyway.returncode == 0, anyway.stderr
    assert "FAIL sandbox" in anyway.stdout
    assert "going on without the sandbox" in anyway.stderr
