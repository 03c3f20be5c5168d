"""The sections of the configuration file, one pydantic model each (the `[models]`
ones in batch.config.model_sections). Every key's `description` is its documentation:
docs/configuration.md's key tables are generated from them (batch.config.reference)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field, field_validator, model_validator

from batch.config.model_sections import Models
from batch.config.values import (
    ENV_NOT_KEYS,
    ENV_PREFIX,
    Strict,
    http_url,
    is_loopback,
    mask_credentials,
    postgres_dsn,
)


class Retry(Strict):
    """Bounded backoff with jitter for transient faults (refused, timeout, 429, 5xx)."""

    attempts: int = Field(4, ge=1, le=20, description="Tries in all, the first included.")
    initial_seconds: float = Field(1.0, ge=0, description="The first wait.")
    max_seconds: float = Field(30.0, ge=0, description="The longest wait.")
    backoff: float = Field(2.0, ge=1, description="Each wait this many times the last.")


class GoogleRetry(Retry):
    """Google's API: 429, 5xx and network faults; a Retry-After header is honoured."""

    attempts: int = Field(6, ge=1, le=20, description="Tries in all, the first included.")
    max_seconds: float = Field(32.0, ge=0, description="The longest wait.")
    total_seconds: float = Field(
        120.0,
        ge=0,
        description="Give up once the next wait would pass this many seconds since the first try.",
    )


class Loop(Strict):
    """The writer-critic loop."""

    max_rounds: int = Field(
        3, ge=1, le=50, description="Writer rounds before the loop stops with `max_rounds`."
    )
    drafts: int = Field(
        1,
        ge=1,
        le=8,
        description="First drafts sampled (other seeds, "
        "warmer): the code checks pick the best, and sampling stops at "
        "the first that passes them.",
    )
    repairs: bool = Field(
        True,
        description="After the first round, repair what the code "
        "checks found, one small change at a time; false: every round "
        "is a whole rewrite.",
    )
    repair_samples: int = Field(
        2, ge=1, le=6, description="Model answers tried for one repair before it is given up."
    )
    threshold: float | None = Field(
        None, ge=0, le=100, description="The score a draft needs (0-100); unset: each rubric's own."
    )
    no_progress_rounds: int = Field(
        2,
        ge=1,
        description="Rounds without a better score "
        "and with the same must_fix before `no_progress`.",
    )
    max_model_seconds: float | None = Field(
        600.0,
        gt=0,
        description="Model seconds one brief may spend (the seconds its API doc's "
        "examples take to run count too): the loop stops with "
        "`budget` and its best draft before a round that cannot pay within them (a "
        "round of repairs starts while any second is left; one that writes the whole "
        "text again, only if its dearest cost so far fits), and no call starts once "
        "they are spent. A send-back gives as many again. Unset: no limit.",
    )
    spend: Literal["where_it_pays", "every_round"] = Field(
        "every_round",
        description="`where_it_pays`: the loop ends with `no_progress` "
        "rather than write the whole text again after a whole rewrite that did not beat "
        "the best draft (a whole text's cost, though a rewrite sampled anew can pay: it "
        "did for API docs in `bench loop`); `every_round`: every round up to "
        "`max_rounds` is tried.",
    )
    review: Literal["when_needed", "unfinished", "always", "never"] = Field(
        "unfinished",
        description="Which endings pause for a person: `never`; "
        "`when_needed` (an approved text with placeholders to fill; a text the machine "
        "could not finish is set aside in `needs-work/` and named in the message); "
        "`unfinished` (that, and every text the machine could not approve: max rounds, "
        "no progress, budget); `always` (every ending).",
    )
    rubric: str = Field(
        "memo",
        description="The rubric of a text brief (a file in "
        "`paths.rubrics`); a brief's front matter may name another.",
    )
    source_rubric: str = Field("api-docs", description="The rubric of a source file to document.")
    house_rules: str = Field(
        "default", description="The house rules (a file in `paths.house_rules`)."
    )
    max_brief_bytes: int = Field(
        200_000, ge=1, description="A larger brief or source file is refused, not run."
    )
    max_revisions: int = Field(3, ge=0, description="Times a person may send one text back.")
    recursion_limit: int = Field(
        200, ge=10, description="LangGraph's emergency brake; never the way the loop stops."
    )


class Paths(Strict):
    """Where things are. Relative paths resolve against `root`."""

    root: str = Field(".", description="Resolves against the config file's folder.")
    rubrics: str = Field("rubrics", description="The rubrics' folder.")
    house_rules: str = Field("house_rules", description="The house rules' folder.")
    checkpoints: str = Field(
        "checkpoints/briefloop.sqlite", description="The LangGraph checkpointer's SQLite file."
    )
    runs: str = Field("checkpoints/runs.sqlite", description="The run log's database.")
    output: str = Field(
        "output", description="Finished texts; unfinished ones go to `needs-work/` inside it."
    )
    model_cache: str = Field(
        "~/.cache/briefloop/models",
        description="Where the embedded models' GGUF files are assembled.",
    )
    judged: str = Field(
        "judged",
        description="Automatic approvals a person reopened, "
        "saved as labelled cases (`briefs/`, `drafts/`) for `python -m "
        "bench judge --data`.",
    )


class GSheetLog(Strict):
    """The run log in a Google Sheet (in addition to the local file)."""

    spreadsheet: str = Field(min_length=10, description="The key from the sheet's URL.")
    worksheet: str = Field("Runs", description="The run log's worksheet.")
    sync_interval: float = Field(
        15.0,
        ge=0,
        description="During a batch, sync at most "
        "this often, in seconds; the end of the batch always "
        "syncs.",
    )


class Log(Strict):
    """The run log as a spreadsheet."""

    format: Literal["xlsx", "csv", "none"] = Field(
        "xlsx", description="The local file's format; `none`: no file."
    )
    path: str = Field("output/runs.xlsx", description="The local file.")
    worksheet: str = Field("Runs", description="The run log's worksheet (XLSX).")
    sync_interval: float = Field(
        2.0,
        ge=0,
        description="During a batch, write the local file at most this "
        "often, in seconds (each write rewrites the whole file); the end of the batch "
        "always writes it, and a review answer at once. 0: after every brief.",
    )
    review_worksheet: str = Field(
        "Review",
        description="Where people answer waiting threads: a worksheet of the "
        "Google sheet when `[log.gsheet]` is set, else of the local workbook (CSV: a "
        "`-review.csv` beside it).",
    )
    gsheet: GSheetLog | None = Field(None, description="The run log in a Google Sheet too.")


class Google(Strict):
    """Google's API, for the sheets."""

    credentials: str | None = Field(
        None, description="A service-account JSON file; unset: `$GOOGLE_APPLICATION_CREDENTIALS`."
    )
    timeout: float = Field(30.0, gt=0, description="Seconds one request may take.")
    retry: GoogleRetry = Field(GoogleRetry(), description="Retries of a failed request.")


class Run(Strict):
    """One batch."""

    concurrency: int = Field(1, ge=1, le=64, description="Briefs run at once.")
    lock_wait_seconds: float = Field(
        0.0,
        ge=0,
        description="Another batch holds the batch lock: wait this long, then "
        "give up with a message. Two batches never run at once.",
    )
    stop_grace_seconds: float = Field(
        120.0,
        ge=0,
        description="On SIGTERM or Ctrl-C: how long the model call in flight may take to finish.",
    )
    max_hours: float | None = Field(
        8.0,
        gt=0,
        description="A batch's time: past it no brief is started and no model "
        "call either, the threads under way stop where they are (`stopped`), and the "
        "next run resumes them. Unset: no limit.",
    )


def parse_cron(expression: str, timezone: str):
    """A cron expression as an APScheduler trigger. Five fields (minute hour day month
    day-of-week) as in crontab, or six with seconds first. Numeric days of the week
    follow crontab (0 and 7 = Sunday), not APScheduler's own numbering (0 = Monday)."""
    from apscheduler.triggers.cron import CronTrigger

    fields = expression.split()
    if len(fields) not in (5, 6):
        raise ValueError(
            f"cron {expression!r}: expected 5 fields (minute hour day month "
            f"weekday) or 6 with seconds first"
        )
    second = fields.pop(0) if len(fields) == 6 else "0"
    minute, hour, day, month, dow = fields
    dow = (
        re.sub(
            r"\d+",
            lambda m: _DOW_NAMES[int(m.group(0)) % 7] if int(m.group(0)) <= 7 else m.group(0),
            dow,
        )
        if "/" not in dow
        else dow
    )
    try:
        return CronTrigger(
            second=second,
            minute=minute,
            hour=hour,
            day=day,
            month=month,
            day_of_week=dow,
            timezone=timezone,
        )
    except (ValueError, LookupError) as e:
        raise ValueError(f"cron {expression!r} in timezone {timezone!r}: {e}") from None


_DOW_NAMES = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]


class ScheduleJob(Strict):
    """One nightly job: a source run on a cron."""

    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$", description="Unique; letters, digits, `_.-`.")
    cron: str = Field(
        description="Five fields (minute hour day month weekday) as in "
        "crontab, or six with seconds first."
    )
    timezone: str = Field("UTC", description="The cron's time zone (an IANA name).")
    source: str = Field(
        description="A folder, a `.csv`/`.xlsx` file or `gsheet://...`, relative to `paths.root`."
    )
    config: str | None = Field(None, description="Another config file for this job's batch.")
    concurrency: int | None = Field(None, ge=1, le=64, description="This job's `run.concurrency`.")

    @model_validator(mode="after")
    def _valid_cron(self) -> ScheduleJob:
        parse_cron(self.cron, self.timezone)
        return self


class ScheduleDigest(Strict):
    """The morning digest on a cron: `briefloop digest --send`, by the scheduler."""

    cron: str = Field(
        description="Five fields (minute hour day month weekday) as in "
        "crontab, or six with seconds first."
    )
    timezone: str = Field("UTC", description="The cron's time zone (an IANA name).")

    @model_validator(mode="after")
    def _valid_cron(self) -> ScheduleDigest:
        parse_cron(self.cron, self.timezone)
        return self


class Schedule(Strict):
    """`briefloop schedule`: the nightly jobs."""

    jobs: list[ScheduleJob] = Field([], description="The jobs (`[[schedule.jobs]]`).")
    digest: ScheduleDigest | None = Field(
        None,
        description="When the morning digest goes out (`[schedule.digest]`, with "
        "`[notify] digest = true`); none when absent.",
    )
    misfire_grace_seconds: float = Field(
        3600.0,
        gt=0,
        description="A run missed (machine asleep, process down) still "
        "runs on start if it is at most this late; several missed runs of a job run once.",
    )
    lock_wait_seconds: float = Field(
        600.0,
        ge=0,
        description="A scheduled batch that "
        "finds another batch running waits this long, then "
        "skips.",
    )
    jobstore: str = Field(
        "checkpoints/schedule.sqlite", description="The scheduler's SQLite job store."
    )
    log_file: str = Field("checkpoints/schedule.log", description="The scheduler's log.")

    @model_validator(mode="after")
    def _unique_names(self) -> Schedule:
        names = [j.name for j in self.jobs]
        if len(set(names)) != len(names):
            raise ValueError("schedule job names must be unique")
        return self


class Retention(Strict):
    """`briefloop gc`."""

    keep_days: float = Field(
        14.0, ge=0, description="Finished threads older than this keep only their final checkpoint."
    )


class Notify(Strict):
    """A message after a batch in which a text waits for a person or a brief failed
    (batch.run.notify): e-mail through SMTP, a Slack-compatible webhook, or both."""

    smtp_host: str = Field("", description="The SMTP server; empty: no e-mail.")
    smtp_port: int = Field(587, ge=1, le=65535, description="The SMTP port.")
    smtp_starttls: bool = Field(
        True,
        description="STARTTLS before login (port 587); false only for a relay on this machine.",
    )
    smtp_ssl: bool = Field(
        False, description="Implicit TLS from the first byte (port 465) instead of STARTTLS."
    )
    smtp_user: str = Field("", description="The SMTP login; empty: no login.")
    smtp_password_env: str = Field(
        "SMTP_PASSWORD",
        description="The environment variable that holds the password, "
        "read when sending; never the password. Not a `BRIEFLOOP_*` name.",
    )
    mail_from: str = Field("", description="The sender; empty: `smtp_user`.")
    mail_to: list[str] = Field([], description="The recipients.")
    webhook_url: str = Field("", description='POST `{"text": ...}` here; empty: none.')
    review_url: str = Field("", description="The link in the message: the review page or sheet.")
    thread_links: bool = Field(
        True,
        description="Link each waiting text to its own page on the review page at "
        "`review_url` (false when `review_url` is something else).",
    )
    link_days: float = Field(
        7.0,
        gt=0,
        le=90,
        description="How long such a link works, in "
        "days, off loopback (where it carries a token of its own).",
    )
    approve_links: bool = Field(
        True,
        description="Give a text that needs nothing but an approval a one-tap approve "
        "link: it opens the text with one Approve button, works once, and only while the "
        "text is as the message showed it.",
    )
    digest: bool = Field(
        False,
        description="One morning message across every batch since the last, sent by "
        "`briefloop digest --send` (schedule it), instead of one message per batch.",
    )
    timeout_seconds: float = Field(10.0, gt=0, description="Seconds one send may take.")
    attempts: int = Field(
        3,
        ge=1,
        le=10,
        description="Tries of a transient failure (refused, timeout, SMTP 4xx, HTTP 429/5xx).",
    )

    @property
    def review_page(self) -> str:
        """`review_url` when it is briefloop's review page, whose threads the message
        and the sheets link (thread_links on, not a Google sheet); else ""."""
        url = self.review_url.strip()
        host = urlsplit(url).hostname or ""
        return url if url and self.thread_links and not host.endswith("docs.google.com") else ""

    @field_validator("smtp_host", "smtp_user", "mail_from", "webhook_url", "review_url")
    @classmethod
    def _stripped(cls, value: str) -> str:
        return value.strip()

    @field_validator("smtp_password_env")
    @classmethod
    def _env_name(cls, name: str) -> str:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise ValueError(f"{name!r} is not an environment variable name")
        if name.startswith(ENV_PREFIX) and name not in ENV_NOT_KEYS:
            raise ValueError(
                f"{name}: {ENV_PREFIX}* variables are read as config keys; "
                f"name the password's variable without that prefix"
            )
        return name

    @field_validator("mail_from", "mail_to")
    @classmethod
    def _addresses(cls, value: str | list[str]) -> str | list[str]:
        for address in [value] if isinstance(value, str) else value:
            if address and not re.fullmatch(r"[^@\s,;<>\"]+@[^@\s,;<>\"]+", address):
                raise ValueError(f"{address!r} is not an e-mail address (one per entry)")
        return value

    @field_validator("webhook_url")
    @classmethod
    def _valid_webhook(cls, url: str) -> str:
        return http_url(url, secret_path=True) if url else url

    @model_validator(mode="after")
    def _complete(self) -> Notify:
        if self.smtp_host and not self.mail_to:
            raise ValueError("mail_to must list at least one address when smtp_host is set")
        if self.smtp_host and not (self.mail_from or self.smtp_user):
            raise ValueError("mail_from (or smtp_user) must be set when smtp_host is set")
        if (
            self.smtp_host
            and self.smtp_user
            and not (self.smtp_starttls or self.smtp_ssl)
            and not is_loopback(self.smtp_host)
        ):
            raise ValueError(
                f"smtp_user is set but neither smtp_starttls nor smtp_ssl: the password "
                f"would cross the network to {self.smtp_host} in clear text (only a "
                f"relay on this machine may be used without TLS)"
            )
        return self


class Store(Strict):
    """Where the state lives: SQLite files beside the project (one machine), or one
    PostgreSQL database that every machine of a cluster reaches."""

    backend: Literal["sqlite", "postgres"] = Field("sqlite", description="`sqlite` or `postgres`.")
    dsn: str | None = Field(
        None,
        description="Postgres only: "
        "`postgresql://user:password@host:5432/database` (or "
        "`$BRIEFLOOP_STORE__DSN`).",
    )
    pool_size: int = Field(
        8,
        ge=1,
        le=200,
        description="Connections per process for the "
        "checkpointer (each brief in flight holds one more while it "
        "runs: its thread lock).",
    )

    @field_validator("dsn")
    @classmethod
    def _valid_dsn(cls, dsn: str | None) -> str | None:
        return None if dsn is None else postgres_dsn(dsn)

    @model_validator(mode="after")
    def _complete(self) -> Store:
        if self.backend == "postgres" and not self.dsn:
            raise ValueError(
                'backend = "postgres" needs dsn = "postgresql://..." (or $BRIEFLOOP_STORE__DSN)'
            )
        return self


class Cluster(Strict):
    """Briefs run by Celery workers instead of in the process that scans the source."""

    broker: str | None = Field(
        None,
        description="`redis://host:6379/0` or "
        "`amqp://user:password@host:5672//`; unset: no cluster.",
    )
    visibility_timeout: float = Field(
        3600.0,
        gt=0,
        description="A task a worker took but never acknowledged (the "
        "worker died) goes back to the queue after this long: longer than the longest "
        "brief.",
    )
    queue: str = Field("briefloop", min_length=1, description="The Celery queue.")
    store_retries: int = Field(
        20,
        ge=0,
        description="A task that finds the database unreachable retries this often, backing off.",
    )
    shared_max_parallel: bool = Field(
        True,
        description="A model host's `max_parallel` counted by every process "
        "sharing the database (PostgreSQL advisory locks); false: each process counts "
        "its own.",
    )

    @field_validator("broker")
    @classmethod
    def _valid_broker(cls, url: str | None) -> str | None:
        if url is None:
            return None
        parts = urlsplit(url.strip())
        if parts.scheme not in ("redis", "rediss", "amqp", "amqps", "pyamqp") or not parts.hostname:
            raise ValueError(f"{mask_credentials(url)!r} is not a redis:// or amqp:// broker URL")
        return url.strip()


class Settings(Strict):
    """The whole configuration."""

    models: Models = Models()
    loop: Loop = Loop()
    paths: Paths = Paths()
    log: Log = Log()
    run: Run = Run()
    retry: Retry = Field(Retry(), description="Transient model faults.")
    google: Google = Google()
    schedule: Schedule = Schedule()
    retention: Retention = Retention()
    notify: Notify = Notify()
    store: Store = Store()
    cluster: Cluster = Cluster()

    # Set by load(); not a key a user writes.
    base_dir: Path = Field(default_factory=Path.cwd, exclude=True)

    def path(self, value: str) -> Path:
        p = Path(os.path.expanduser(value))
        if p.is_absolute():
            return p
        root = Path(os.path.expanduser(self.paths.root))
        if not root.is_absolute():
            root = self.base_dir / root
        return (root / p).resolve()

    @property
    def checkpoint_path(self) -> Path:
        return self.path(self.paths.checkpoints)

    @property
    def runs_db_path(self) -> Path:
        return self.path(self.paths.runs)

    @property
    def output_dir(self) -> Path:
        return self.path(self.paths.output)

    @property
    def clustered(self) -> bool:
        return self.cluster.broker is not None
