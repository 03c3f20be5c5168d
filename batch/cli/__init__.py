"""The `briefloop` command: a thin layer over the library (batch.run.runner and friends).

Errors meant for a person (BriefloopError) are printed as one line without a
traceback, exit code 2; anything else is a bug and shows its traceback. The commands
live by what they do: `running` (run, resume, worker, runs, sync), `reviewing` (the
review group), `project` (init, gc, schedule); `base` is what they share.
"""

from __future__ import annotations

# each module adds its commands to the group as it is imported
from batch.cli import checking, project, reviewing, running
from batch.cli.base import _accept_config_after_the_command, cli

__all__ = ["checking", "cli", "main", "project", "reviewing", "running"]

_accept_config_after_the_command(cli)


def main() -> None:
    cli(obj={})
