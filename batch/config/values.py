"""What a single configuration value must be: an http(s) URL, a PostgreSQL DSN, a
loopback host; and a credential masked wherever a value is shown back."""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import quote, unquote, urlsplit

from pydantic import BaseModel, ConfigDict, ValidationError


class Strict(BaseModel):
    # strict: `max_rounds = true` or `concurrency = "4"` is a mistake, not a 1 or a 4
    model_config = ConfigDict(extra="forbid", strict=True)


ENV_PREFIX = "BRIEFLOOP_"
# Not config keys: the config file itself, who answers reviews, the review page's token
# (the command line's --reviewer and --token).
ENV_CONFIG_PATH = "BRIEFLOOP_CONFIG"
ENV_REVIEW_TOKEN = "BRIEFLOOP_REVIEW_TOKEN"
ENV_NOT_KEYS = {ENV_CONFIG_PATH, "BRIEFLOOP_REVIEWER", ENV_REVIEW_TOKEN}


def mask_credentials(url: str) -> str:
    """A URL (or a message holding one) with its user:password@ part masked, up to the
    last @ of the address (a password may hold an unencoded @), and any password=
    parameter or keyword."""
    masked = re.sub(r"(?<=//)[^/\s]*@", "***@", url)
    return re.sub(r"(?i)(password\s*=\s*)('[^']*'|[^&\s]+)", r"\1***", masked)


# RFC 3986's own regular expression: it splits any string, valid URL or not, so a
# secret is found before anything tries (and fails) to parse the URL
_URI = re.compile(r"^(?:([^:/?#]+):)?(?://([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$", re.DOTALL)


def url_secrets(url: str) -> list[str]:
    """The parts of a URL that may be secret, longest first: its user:password, its
    path and every segment of it, its query and every value in it, its fragment. (A
    Slack webhook's path is its secret; other services put a key in the query.) Pieces
    of one or two characters carry no secret and would blot out ordinary words."""
    scheme, authority, path, query, fragment = _URI.match(url.strip()).groups()
    pieces: list[str] = []
    if authority and "@" in authority:
        userinfo = authority.rpartition("@")[0]
        pieces += [userinfo, *userinfo.split(":")]
    if path and path.strip("/"):
        pieces += [path, *path.split("/")]
    if query:
        pairs = re.split(r"[&;]", query)
        pieces += [query, *pairs, *(pair.partition("=")[2] for pair in pairs)]
    if fragment:
        pieces.append(fragment)
    return sorted({p for p in pieces if len(p) >= 3}, key=len, reverse=True)


def url_shown(url: str) -> str:
    """A URL as a message may name it: scheme, host and port only, `/…` for the rest."""
    scheme, authority, path, query, fragment = _URI.match(url.strip()).groups()
    host = (authority or "").rpartition("@")[2] or "?"
    rest = "/…" if (path and path.strip("/")) or query or fragment else ""
    return f"{scheme or '?'}://{host}{rest}"


def scrub_url(text: str, url: str) -> str:
    """`text` (a server's answer, an error) without any secret part of `url`, as written,
    percent-encoded or decoded, in any case."""
    secrets: set[str] = set()
    for piece in url_secrets(url):
        secrets |= {piece, quote(piece, safe=""), quote(piece), unquote(piece)}
    for secret in sorted(secrets, key=len, reverse=True):
        # whole words only: "hook" of a path /hook/… is not taken out of "webhook"
        edge_l = r"(?<![A-Za-z0-9])" if secret[:1].isalnum() else ""
        edge_r = r"(?![A-Za-z0-9])" if secret[-1:].isalnum() else ""
        text = re.sub(edge_l + re.escape(secret) + edge_r, "…", text, flags=re.IGNORECASE)
    return mask_credentials(text)


def http_url(url: str, secret_path: bool = False) -> str:
    """`url` if it is an http(s)://host[:port] URL a server can listen on, else a
    ValueError that shows it with any password masked (and, `secret_path`, without its
    path, query and fragment: a webhook's secret)."""
    shown = url_shown(url) if secret_path else mask_credentials(url)
    try:
        parts = urlsplit(url.strip())
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
    try:
        parts.port  # noqa: B018 - raises for a port that is not a number, or out of range
    except ValueError:
        raise ValueError(f"{shown!r}: the port is not a number from 1 to 65535") from None
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
