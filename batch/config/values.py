"""What a single configuration value must be: an http(s) URL, a PostgreSQL DSN, a
loopback host; and a credential masked wherever a value is shown back."""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, ValidationError


class Strict(BaseModel):
    # strict: `max_rounds = true` or `concurrency = "4"` is a mistake, not a 1 or a 4
    model_config = ConfigDict(extra="forbid", strict=True)


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


def describe(err: ValidationError, origin: str) -> str:
    """A validation error as one line: where, which key, what is wrong."""
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
