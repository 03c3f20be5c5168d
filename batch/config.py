"""Configuration: a TOML file validated by pydantic, with environment and flag overrides.

Precedence, highest first: command-line flag > BRIEFLOOP_* environment variable > file >
default. Environment variables name nested keys with a double underscore:
BRIEFLOOP_LOOP__MAX_ROUNDS=5, BRIEFLOOP_MODELS__CRITIC__MODEL=qwen2.5:7b.
"""

from __future__ import annotations

import ipaddress
import os
import re
import tomllib
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from batch.errors import ConfigError

DEFAULT_CONFIG = Path("config/briefloop.toml")
ENV_PREFIX = "BRIEFLOOP_"
# Not config keys: the config file itself, who answers reviews, the review page's token
# (the command line's --reviewer and --token).
ENV_CONFIG_PATH = "BRIEFLOOP_CONFIG"
ENV_NOT_KEYS = {ENV_CONFIG_PATH, "BRIEFLOOP_REVIEWER", "BRIEFLOOP_REVIEW_TOKEN"}


def mask_credentials(url: str) -> str:
    """A URL (or a message holding one) with its user:password@ part masked, up to the
    last @ of the address (a password may hold an unencoded @), and any password=
    parameter or keyword."""
    masked = re.sub(r"(?<=//)[^/\s]*@", "***@", url)
    return re.sub(r"(?i)(password\s*=\s*)('[^']*'|[^&\s]+)", r"\1***", masked)


def http_url(url: str, secret_path: bool = False) -> str:
    """`url` if it is an http(s)://host[:port] URL a server can listen on, else a
    ValueError that shows it with any password masked (and, `secret_path`, without its
    path and query: a webhook's secret)."""
    shown = mask_credentials(url)
    try:
        parts = urlsplit(url.strip())
        if secret_path and (parts.path.strip("/") or parts.query):
            shown = f"{parts.scheme}://{parts.hostname or '?'}/…"
        port = parts.port  # raises on a port out of range or not a number
    except ValueError as e:
        reason = str(e).split(":")[0]
        raise ValueError(f"{shown!r} is not a valid URL ({reason})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{shown!r} is not an http(s)://host[:port] URL")
    if port == 0:
        raise ValueError(f"{shown!r}: port 0 is not a port a server listens on")
    return url.strip()


class Strict(BaseModel):
    # strict: `max_rounds = true` or `concurrency = "4"` is a mistake, not a 1 or a 4
    model_config = ConfigDict(extra="forbid", strict=True)


class OllamaHost(Strict):
    """One server of an Ollama pool: a URL, or `{url = "...", max_parallel = N}`."""

    url: str
    max_parallel: int | None = Field(None, ge=1)  # None: the model's max_parallel

    @field_validator("url")
    @classmethod
    def _valid_url(cls, url: str) -> str:
        return http_url(url)


def _same_server(url: str) -> tuple[str, str, int | None, str]:
    # Two spellings of one server (case, default port, trailing slash, credentials)
    # would make the pool count its slots twice.
    parts = urlsplit(url)
    port = parts.port or {"http": 80, "https": 443}[parts.scheme]
    return parts.scheme, (parts.hostname or "").lower(), port, parts.path.rstrip("/")


def ollama_hosts(value: Any) -> str | list[OllamaHost]:
    """`base_url` as written: one URL, or a non-empty list of distinct hosts."""
    if isinstance(value, str):
        return http_url(value)
    if not isinstance(value, list):
        raise ValueError("expected a URL or a list of hosts")
    if not value:
        raise ValueError("an empty list names no host: give at least one URL")
    hosts: list[OllamaHost] = []
    for number, item in enumerate(value, 1):
        if isinstance(item, str):
            item = {"url": item}
        if not isinstance(item, dict | OllamaHost):
            raise ValueError(f"host {number}: expected a URL or a table "
                             f'{{url = "...", max_parallel = N}}')
        try:
            hosts.append(OllamaHost.model_validate(item))
        except ValidationError as e:
            raise ValueError(_describe(e, f"host {number}")) from None
    seen: set[tuple[str, str, int | None, str]] = set()
    for host in hosts:
        if _same_server(host.url) in seen:
            raise ValueError(f"{mask_credentials(host.url)!r} is listed twice")
        seen.add(_same_server(host.url))
    return hosts


class ModelSettings(Strict):
    provider: Literal["ollama", "embedded"] = "embedded"
    model: str = "qwen2.5-coder-0.5b-instruct"
    temperature: float = Field(0.2, ge=0, le=2)
    num_ctx: int = Field(4096, ge=256)
    max_tokens: int = Field(900, ge=16)
    # ollama only. One server, or a list that calls are spread over: URLs or tables
    # {url = "...", max_parallel = N}. Read `hosts`, not this.
    base_url: str | list[OllamaHost] = "http://127.0.0.1:11434"
    keep_alive: str | int | None = "10m"
    # Seconds an answer may take (it comes whole, not streamed), and the longest a call
    # waits for a host with a free slot.
    timeout: float = Field(300.0, gt=0)
    # Calls in flight from this process per host (a host table may set its own).
    max_parallel: int = Field(4, ge=1)
    # A host that refused, timed out or answered 5xx/429 gets no calls for this long,
    # while another host of the list can take them.
    cooldown_seconds: float = Field(30.0, ge=0)
    # embedded only: threads for llama.cpp (0 = all cores)
    threads: int = Field(0, ge=0)
    # embedded only, for a model given as a path to a .gguf file: refuse it unless it
    # has this sha256 (packaged models carry their own)
    sha256: str | None = None
    seed: int = 7

    @property
    def label(self) -> str:
        """How runs name this model: provider:model."""
        return f"{self.provider}:{self.model}"

    @property
    def hosts(self) -> list[tuple[str, int]]:
        """The Ollama servers as (url, max_parallel), in the order written."""
        if isinstance(self.base_url, str):
            return [(self.base_url, self.max_parallel)]
        return [(h.url, h.max_parallel or self.max_parallel) for h in self.base_url]

    @field_validator("base_url", mode="before")
    @classmethod
    def _valid_hosts(cls, value: Any) -> Any:
        return ollama_hosts(value)

    @model_validator(mode="after")
    def _fits(self) -> ModelSettings:
        if self.max_tokens >= self.num_ctx:
            raise ValueError("max_tokens must be smaller than num_ctx")
        return self


class Models(Strict):
    writer: ModelSettings = ModelSettings(model="qwen2.5-coder-1.5b-instruct", temperature=0.4)
    critic: ModelSettings = ModelSettings(temperature=0.0, max_tokens=500)
    finalizer: ModelSettings | None = None
    # What the critic model's answer counts for. "gate": its score is the score and its
    # must_fix block approval, beside the code checks. "advice": the code checks alone
    # decide (score = share of checks passed) and the model's points are suggestions.
    # `python -m bench judge` measures both for a model; see docs/configuration.md for the choice.
    critic_mode: Literal["gate", "advice"] = "advice"


class Retry(Strict):
    """Bounded backoff with jitter for transient faults (refused, timeout, 429, 5xx)."""

    attempts: int = Field(4, ge=1, le=20)
    initial_seconds: float = Field(1.0, ge=0)
    max_seconds: float = Field(30.0, ge=0)
    backoff: float = Field(2.0, ge=1)


class GoogleRetry(Retry):
    attempts: int = Field(6, ge=1, le=20)
    max_seconds: float = Field(32.0, ge=0)
    # Give up once the next wait would pass this many seconds since the first try.
    total_seconds: float = Field(120.0, ge=0)


class Loop(Strict):
    max_rounds: int = Field(3, ge=1, le=50)
    # First drafts sampled (other seeds, warmer): the code checks pick the best, and
    # sampling stops at the first that passes them.
    drafts: int = Field(1, ge=1, le=8)
    # After the first round, repair what the code checks found, one small change at a
    # time (batch.loop.repairs); false: every round is a whole rewrite.
    repairs: bool = True
    # Model answers tried for one repair (batch.loop.repairs) before it is given up.
    repair_samples: int = Field(2, ge=1, le=6)
    # None: each rubric's own threshold applies
    threshold: float | None = Field(None, ge=0, le=100)
    no_progress_rounds: int = Field(2, ge=1)
    # Which endings pause for a person: never; when_needed (an approved text with
    # placeholders to fill); unfinished (that, and every text the machine could not
    # approve: max rounds, no progress); always (every ending, approved ones included).
    review: Literal["when_needed", "unfinished", "always", "never"] = "when_needed"
    rubric: str = "memo"
    source_rubric: str = "api-docs"
    house_rules: str = "default"
    max_brief_bytes: int = Field(200_000, ge=1)
    max_revisions: int = Field(3, ge=0)
    recursion_limit: int = Field(200, ge=10)


class Paths(Strict):
    # Relative paths below resolve against `root`; `root` itself resolves against the
    # directory of the config file (or the working directory when there is no file).
    root: str = "."
    rubrics: str = "rubrics"
    house_rules: str = "house_rules"
    checkpoints: str = "checkpoints/briefloop.sqlite"
    runs: str = "checkpoints/runs.sqlite"
    output: str = "output"
    model_cache: str = "~/.cache/briefloop/models"


class GSheetLog(Strict):
    """The run log in a Google Sheet (in addition to the local file)."""

    spreadsheet: str = Field(min_length=10)  # the key from the sheet's URL
    worksheet: str = "Runs"
    # During a batch, sync at most this often; the end of the batch always syncs.
    sync_interval: float = Field(15.0, ge=0)


class Log(Strict):
    format: Literal["xlsx", "csv", "none"] = "xlsx"
    path: str = "output/runs.xlsx"
    worksheet: str = "Runs"
    # During a batch, write the local file at most this often, in seconds (each write
    # reads and rewrites the whole file); the end of the batch always writes it, and a
    # review answer at once. 0: after every brief.
    sync_interval: float = Field(2.0, ge=0)
    # Where people answer waiting threads: a worksheet of the Google sheet when
    # [log.gsheet] is set, else of the local workbook (CSV: a -review.csv beside it).
    review_worksheet: str = "Review"
    gsheet: GSheetLog | None = None


class Google(Strict):
    # A service-account JSON file; unset: $GOOGLE_APPLICATION_CREDENTIALS.
    credentials: str | None = None
    timeout: float = Field(30.0, gt=0)
    # 429, 5xx and network faults; a Retry-After header is honoured.
    retry: GoogleRetry = GoogleRetry()


class Run(Strict):
    concurrency: int = Field(1, ge=1, le=64)
    # Another batch (scheduled or manual) holds the batch lock: wait this long, then give
    # up with a message. Two batches never run at once.
    lock_wait_seconds: float = Field(0.0, ge=0)
    # On SIGTERM / Ctrl-C: how long the model call in flight may take to finish.
    stop_grace_seconds: float = Field(120.0, ge=0)


def parse_cron(expression: str, timezone: str):
    """A cron expression as an APScheduler trigger. Five fields (minute hour day month
    day-of-week) as in crontab, or six with seconds first. Numeric days of the week
    follow crontab (0 and 7 = Sunday), not APScheduler's own numbering (0 = Monday)."""
    from apscheduler.triggers.cron import CronTrigger

    fields = expression.split()
    if len(fields) not in (5, 6):
        raise ValueError(f"cron {expression!r}: expected 5 fields (minute hour day month "
                         f"weekday) or 6 with seconds first")
    second = fields.pop(0) if len(fields) == 6 else "0"
    minute, hour, day, month, dow = fields
    dow = re.sub(r"\d+", lambda m: _DOW_NAMES[int(m.group(0)) % 7]
                 if int(m.group(0)) <= 7 else m.group(0), dow) if "/" not in dow else dow
    try:
        return CronTrigger(second=second, minute=minute, hour=hour, day=day, month=month,
                           day_of_week=dow, timezone=timezone)
    except (ValueError, LookupError) as e:
        raise ValueError(f"cron {expression!r} in timezone {timezone!r}: {e}") from None


_DOW_NAMES = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]


class ScheduleJob(Strict):
    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    cron: str
    timezone: str = "UTC"
    source: str  # a folder, a .csv/.xlsx file or gsheet://..., relative to paths.root
    config: str | None = None  # another config file for this job's batch
    concurrency: int | None = Field(None, ge=1, le=64)

    @model_validator(mode="after")
    def _valid_cron(self) -> ScheduleJob:
        parse_cron(self.cron, self.timezone)
        return self


class Schedule(Strict):
    jobs: list[ScheduleJob] = []
    # A run missed (machine asleep, process down) still runs on start if it is at most
    # this late; several missed runs of a job run once. APScheduler's default is 1 s.
    misfire_grace_seconds: float = Field(3600.0, gt=0)
    # A scheduled batch that finds another batch running waits this long, then skips.
    lock_wait_seconds: float = Field(600.0, ge=0)
    jobstore: str = "checkpoints/schedule.sqlite"
    log_file: str = "checkpoints/schedule.log"

    @model_validator(mode="after")
    def _unique_names(self) -> Schedule:
        names = [j.name for j in self.jobs]
        if len(set(names)) != len(names):
            raise ValueError("schedule job names must be unique")
        return self


class Retention(Strict):
    # Finished threads older than this keep only their final checkpoint (briefloop gc).
    keep_days: float = Field(14.0, ge=0)


class Notify(Strict):
    """A message after a batch in which a text waits for a person or a brief failed
    (batch.run.notify): e-mail through SMTP, a Slack-compatible webhook, or both."""

    smtp_host: str = ""  # empty: no e-mail
    smtp_port: int = Field(587, ge=1, le=65535)
    # STARTTLS before login (port 587); false only for a relay on this machine
    smtp_starttls: bool = True
    # implicit TLS from the first byte (port 465) instead of STARTTLS
    smtp_ssl: bool = False
    smtp_user: str = ""  # empty: no login
    # The variable that holds the password, read when sending; never the password. Not a
    # BRIEFLOOP_* name: load() reads each of those as a config key.
    smtp_password_env: str = "SMTP_PASSWORD"
    mail_from: str = ""  # empty: smtp_user
    mail_to: list[str] = []
    webhook_url: str = ""  # POST {"text": ...}; empty: none
    review_url: str = ""  # the link in the message: the review page or sheet
    timeout_seconds: float = Field(10.0, gt=0)
    # Transient failures (refused, timeout, SMTP 4xx, HTTP 429/5xx) are retried.
    attempts: int = Field(3, ge=1, le=10)

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
            raise ValueError(f"{name}: {ENV_PREFIX}* variables are read as config keys; "
                             f"name the password's variable without that prefix")
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
        if (self.smtp_host and self.smtp_user and not (self.smtp_starttls or self.smtp_ssl)
                and not is_loopback(self.smtp_host)):
            raise ValueError(
                f"smtp_user is set but neither smtp_starttls nor smtp_ssl: the password "
                f"would cross the network to {self.smtp_host} in clear text (only a "
                f"relay on this machine may be used without TLS)")
        return self


def is_loopback(host: str) -> bool:
    """The host is this machine: localhost or a loopback address."""
    host = host.strip().strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def postgres_dsn(dsn: str) -> str:
    """`dsn` if it is a postgresql:// URL naming a host and a database, else a ValueError
    that shows it with any password masked."""
    shown = mask_credentials(dsn)
    parts = urlsplit(dsn.strip())
    if parts.scheme not in ("postgresql", "postgres"):
        raise ValueError(f"{shown!r} is not a postgresql://user@host/database URL")
    if not parts.path.strip("/"):
        raise ValueError(f"{shown!r} names no database (postgresql://user@host/DATABASE)")
    if parts.netloc.count("@") > 1:
        # libpq would take what follows the first @ as the host, and name it in its errors
        raise ValueError(f"{shown!r}: the user or password holds an '@': write it as %40")
    return dsn.strip()


class Store(Strict):
    """Where the state lives: SQLite files beside the project (one machine), or one
    PostgreSQL database that every machine of a cluster reaches."""

    backend: Literal["sqlite", "postgres"] = "sqlite"
    # postgres only: postgresql://user:password@host:5432/database (or $BRIEFLOOP_STORE__DSN)
    dsn: str | None = None
    # connections per process for the checkpointer (each brief in flight holds one
    # more while it runs: its thread lock)
    pool_size: int = Field(8, ge=1, le=200)

    @field_validator("dsn")
    @classmethod
    def _valid_dsn(cls, dsn: str | None) -> str | None:
        return None if dsn is None else postgres_dsn(dsn)

    @model_validator(mode="after")
    def _complete(self) -> Store:
        if self.backend == "postgres" and not self.dsn:
            raise ValueError("backend = \"postgres\" needs dsn = \"postgresql://...\" "
                             "(or $BRIEFLOOP_STORE__DSN)")
        return self


class Cluster(Strict):
    """Briefs run by Celery workers instead of in the process that scans the source."""

    # redis://host:6379/0 or amqp://user:password@host:5672//; unset: no cluster
    broker: str | None = None
    # A task a worker took but never acknowledged (the worker died) goes back to the
    # queue after this long: longer than the longest brief, or a brief still running
    # would be handed to a second worker (which then waits for its thread lock).
    visibility_timeout: float = Field(3600.0, gt=0)
    queue: str = Field("briefloop", min_length=1)
    # A task that finds the database unreachable retries this often, backing off.
    store_retries: int = Field(20, ge=0)
    # A model host's max_parallel counted by every process sharing the database (slots
    # as PostgreSQL advisory locks, batch.store.slots); false: each process counts its own.
    shared_max_parallel: bool = True

    @field_validator("broker")
    @classmethod
    def _valid_broker(cls, url: str | None) -> str | None:
        if url is None:
            return None
        parts = urlsplit(url.strip())
        if parts.scheme not in ("redis", "rediss", "amqp", "amqps", "pyamqp") \
                or not parts.hostname:
            raise ValueError(f"{mask_credentials(url)!r} is not a redis:// or amqp:// "
                             f"broker URL")
        return url.strip()


class Settings(Strict):
    models: Models = Models()
    loop: Loop = Loop()
    paths: Paths = Paths()
    log: Log = Log()
    run: Run = Run()
    retry: Retry = Retry()
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


def _cluster_needs_postgres(settings: Settings) -> None:
    if settings.clustered and settings.store.backend != "postgres":
        raise ConfigError("[cluster] broker is set but [store] backend is \"sqlite\": the "
                          "workers of a cluster share one PostgreSQL database; set "
                          "[store] backend = \"postgres\" and dsn")


def _deep_merge(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in top.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def _set_dotted(target: dict[str, Any], dotted: str, value: Any) -> None:
    parts = dotted.split(".")
    node = target
    for part in parts[:-1]:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise ConfigError(f"config key {dotted!r}: {part!r} is not a table")
    node[parts[-1]] = value


def _parse_env_value(raw: str) -> Any:
    # TOML literal syntax gives numbers and booleans their type; anything else is a string.
    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw


def env_overrides(environ: dict[str, str] | None = None) -> dict[str, Any]:
    environ = dict(os.environ if environ is None else environ)
    out: dict[str, Any] = {}
    for name, raw in sorted(environ.items()):
        if not name.startswith(ENV_PREFIX) or name in ENV_NOT_KEYS:
            continue
        dotted = name[len(ENV_PREFIX):].lower().replace("__", ".")
        _set_dotted(out, dotted, _parse_env_value(raw))
    return out


def _describe(err: ValidationError, origin: str) -> str:
    first = err.errors()[0]
    key = ".".join(str(p) for p in first["loc"]) or "(top level)"
    if first["type"] == "extra_forbidden":
        what = "unknown key"
    elif first["type"] == "value_error":
        what = str(first["ctx"]["error"])  # our own message, without pydantic's prefix
    else:
        what = first["msg"]
    more = f" (and {err.error_count() - 1} more)" if err.error_count() > 1 else ""
    return f"{origin}: {key}: {what}{more}"


def find_config(start: Path) -> Path:
    """config/briefloop.toml in `start` or the nearest folder above it that has one.

    Never a fallback to defaults: without a config file, relative paths would resolve
    against whatever folder the process started in (a cron job's is $HOME or /), and
    state would be scattered there.
    """
    for folder in (start, *start.parents):
        candidate = folder / DEFAULT_CONFIG
        if candidate.is_file():
            return candidate
    raise ConfigError(
        f"no config file: none given, ${ENV_CONFIG_PATH} is not set, and there is no "
        f"{DEFAULT_CONFIG} in {start} or a folder above it; run briefloop from the "
        f"project folder, pass --config FILE, or create a project with `briefloop init`")


def load(
    path: str | Path | None = None,
    overrides: dict[str, Any] | None = None,
    environ: dict[str, str] | None = None,
) -> Settings:
    """Read the config file (explicit, $BRIEFLOOP_CONFIG, or the default) and apply overrides.

    `overrides` maps dotted keys (`loop.max_rounds`) to values from command-line flags.
    """
    env = dict(os.environ if environ is None else environ)
    explicit = path is not None or ENV_CONFIG_PATH in env
    if explicit:
        cfg_path = Path(path if path is not None else env[ENV_CONFIG_PATH])
        if not cfg_path.is_file():
            raise ConfigError(f"{cfg_path}: config file not found")
    else:
        cfg_path = find_config(Path.cwd())
    try:
        data = tomllib.loads(cfg_path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{cfg_path}: not valid TOML: {e}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{cfg_path}: cannot read: {e}") from None
    base_dir = cfg_path.resolve().parent
    origin = str(cfg_path)

    env_data = env_overrides(env)
    merged = _deep_merge(data, env_data)
    flag_data: dict[str, Any] = {}
    for dotted, value in (overrides or {}).items():
        if value is not None:
            _set_dotted(flag_data, dotted, value)
    merged = _deep_merge(merged, flag_data)

    try:
        settings = Settings.model_validate(merged)
    except ValidationError as e:
        where = origin
        if env_data or flag_data:
            where = f"{origin} (with environment/flag overrides)"
        raise ConfigError(_describe(e, where)) from None
    settings.base_dir = base_dir
    _cluster_needs_postgres(settings)
    return settings
