"""Configuration: a TOML file validated by pydantic, with environment and flag overrides.

Precedence, highest first: command-line flag > BRIEFLOOP_* environment variable > file >
default. Environment variables name nested keys with a double underscore:
BRIEFLOOP_LOOP__MAX_ROUNDS=5, BRIEFLOOP_MODELS__CRITIC__MODEL=qwen2.5:7b.

The sections and their keys are `batch.config.sections` (every key described there);
what one value must be is `batch.config.values`; this module reads the file.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from batch.config.model_sections import Models, ModelSettings, OllamaHost, ollama_hosts
from batch.config.sections import (
    Cluster,
    Google,
    GoogleRetry,
    GSheetLog,
    Log,
    Loop,
    Notify,
    Paths,
    Retention,
    Retry,
    Run,
    Schedule,
    ScheduleJob,
    Settings,
    Store,
    parse_cron,
)
from batch.config.values import (
    ENV_CONFIG_PATH,
    ENV_NOT_KEYS,
    ENV_PREFIX,
    ENV_REVIEW_TOKEN,
    describe,
    http_url,
    is_loopback,
    mask_credentials,
    postgres_dsn,
    scrub_url,
    thread_page,
    url_shown,
)
from batch.errors import ConfigError

__all__ = [
    "DEFAULT_CONFIG",
    "ENV_CONFIG_PATH",
    "ENV_NOT_KEYS",
    "ENV_PREFIX",
    "ENV_REVIEW_TOKEN",
    "Cluster",
    "Google",
    "GoogleRetry",
    "GSheetLog",
    "Log",
    "Loop",
    "Models",
    "ModelSettings",
    "Notify",
    "OllamaHost",
    "Paths",
    "Retention",
    "Retry",
    "Run",
    "Schedule",
    "ScheduleJob",
    "Settings",
    "Store",
    "env_overrides",
    "find_config",
    "http_url",
    "is_loopback",
    "load",
    "mask_credentials",
    "ollama_hosts",
    "parse_cron",
    "postgres_dsn",
    "scrub_url",
    "thread_page",
    "url_shown",
]

DEFAULT_CONFIG = Path("config/briefloop.toml")


def _cluster_needs_postgres(settings: Settings) -> None:
    if settings.clustered and settings.store.backend != "postgres":
        raise ConfigError(
            '[cluster] broker is set but [store] backend is "sqlite": the '
            "workers of a cluster share one PostgreSQL database; set "
            '[store] backend = "postgres" and dsn'
        )


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
        dotted = name[len(ENV_PREFIX) :].lower().replace("__", ".")
        _set_dotted(out, dotted, _parse_env_value(raw))
    return out


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
        f"project folder, pass --config FILE, or create a project with `briefloop init`"
    )


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
        text = cfg_path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
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
        raise ConfigError(describe(e, where, text, Settings)) from None
    settings.base_dir = base_dir
    _cluster_needs_postgres(settings)
    return settings
