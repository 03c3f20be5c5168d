"""`briefloop doctor`: each part the night needs, tried for real before the first night.

One check per part, each a small call over the code the night itself runs:

- sandbox: bubblewrap runs this Python with no capabilities and a read-only root
  (examples in API docs run only there);
- model:   each role's model answers a one-word question (the embedded model is loaded,
           an Ollama server is asked);
- mail:    the SMTP server greets, STARTTLS and the login pass (nothing is sent);
- sheet:   the run log's local file can be written, and the Google sheet opens.

A part that is not configured is skipped and says so; a failed part says what to do.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import gspread

from batch.config import Settings
from batch.errors import BriefloopError
from batch.judging.doc_examples.sandbox import sandbox_problem
from batch.models.base import RoleModel
from batch.models.pool import ROLES, ModelSet
from batch.run.notify import check_mail, settings_for
from batch.sheets.google import open_client, open_spreadsheet

Status = Literal["ok", "fail", "skip"]
PARTS = ("sandbox", "model", "mail", "sheet")


@dataclass(frozen=True)
class Finding:
    part: str
    status: Status
    detail: str


def check_sandbox(settings: Settings) -> list[Finding]:
    problem = sandbox_problem()
    if problem is None:
        return [Finding("sandbox", "ok", "bubblewrap runs examples with no rights")]
    return [Finding("sandbox", "fail", f"{problem}; examples in API docs cannot be verified")]


def _answers(model: RoleModel) -> str:
    said = model.complete(
        [{"role": "user", "content": "Answer with the one word: ready"}], None, max_tokens=8
    )
    if not said.text.strip():
        raise BriefloopError("it answered with nothing")
    return f"{model.name} answered in {said.output_tokens} token(s)"


def check_models(settings: Settings, models: ModelSet | None = None) -> list[Finding]:
    pool = models or ModelSet(settings.models, settings.path(settings.paths.model_cache))
    out = []
    for role in ROLES:
        if role == "critic" and settings.models.critic_mode == "checks":
            continue  # never asked: the checks judge alone
        if pool.settings_for(role) is None:
            continue
        try:
            model = pool.get(role)
            assert model is not None  # settings_for(role) is set
            out.append(Finding(f"model ({role})", "ok", _answers(model)))
        except (BriefloopError, OSError, ValueError, RuntimeError) as e:
            out.append(Finding(f"model ({role})", "fail", str(e) or e.__class__.__name__))
    return out


def check_mail_part(settings: Settings, environ: dict[str, str] | None = None) -> list[Finding]:
    notify = settings_for(settings)
    if not notify.smtp_host:
        return [Finding("mail", "skip", "no [notify] smtp_host: no mail is sent")]
    where = f"{notify.smtp_host}:{notify.smtp_port}"
    problem = check_mail(notify, os.environ if environ is None else environ)
    if problem is None:
        return [Finding("mail", "ok", f"{where} accepts us (nothing sent)")]
    return [Finding("mail", "fail", f"{where}: {problem}")]


def _writable(folder: Path) -> str | None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".briefloop-doctor-"):
            return None
    except OSError as e:
        return f"cannot write in {folder}: {e.strerror or e}"


def check_sheet(
    settings: Settings, open_google: Callable[[], gspread.Client] | None = None
) -> list[Finding]:
    out = []
    if settings.log.format == "none":
        out.append(Finding("sheet (local)", "skip", "[log] format = none: no local file"))
    else:
        path = settings.path(settings.log.path)
        problem = _writable(path.parent)
        out.append(
            Finding("sheet (local)", "fail", problem)
            if problem
            else Finding("sheet (local)", "ok", f"{path} can be written")
        )
    if settings.log.gsheet is None:
        out.append(Finding("sheet (Google)", "skip", "no [log.gsheet]: the run log stays local"))
        return out
    key = settings.log.gsheet.spreadsheet
    try:
        client = open_google() if open_google else open_client(settings.google)
        title = open_spreadsheet(client, key).title
        out.append(Finding("sheet (Google)", "ok", f"opens {title!r}"))
    except BriefloopError as e:
        out.append(Finding("sheet (Google)", "fail", str(e)))
    return out


CHECKS: dict[str, Callable[[Settings], list[Finding]]] = {
    "sandbox": check_sandbox,
    "model": check_models,
    "mail": check_mail_part,
    "sheet": check_sheet,
}


def examine(settings: Settings, parts: Iterable[str] = PARTS) -> list[Finding]:
    """Every finding of the named parts, in PARTS order."""
    wanted = set(parts)
    unknown = wanted - set(PARTS)
    if unknown:
        raise BriefloopError(
            f"no part named {', '.join(sorted(unknown))}: the parts are {', '.join(PARTS)}"
        )
    return [f for part in PARTS if part in wanted for f in CHECKS[part](settings)]
