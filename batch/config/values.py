"""What a single configuration value must be: an http(s) URL, a PostgreSQL DSN, a
loopback host; and a credential masked wherever a value is shown back."""

from __future__ import annotations

import difflib
import ipaddress
import re
import typing
from typing import Any
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


def _uri_parts(url: str) -> tuple[str | None, ...]:
    """RFC 3986's five parts of `url` (its regex matches any text)."""
    found = _URI.match(url.strip())
    assert found is not None  # every part of the pattern is optional
    return found.groups()


def url_secrets(url: str) -> list[str]:
    """The parts of a URL that may be secret, longest first: its user:password, its
    path and every segment of it, its query and every value in it, its fragment. (A
    Slack webhook's path is its secret; other services put a key in the query.) Pieces
    of one or two characters carry no secret and would blot out ordinary words."""
    scheme, authority, path, query, fragment = _uri_parts(url)
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
    scheme, authority, path, query, fragment = _uri_parts(url)
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


def _one(error: Any, model: type[BaseModel] | None) -> tuple[str, str]:
    """(the dotted key, what is wrong with it) of one pydantic error; for an unknown
    key, the closest known one of its table when there is one."""
    key = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error["loc"])
    key = key.lstrip(".") or "(top level)"
    if error["type"] == "extra_forbidden":
        what = "unknown key"
        known = _keys_at(model, error["loc"][:-1]) if model else []
        close = difflib.get_close_matches(str(error["loc"][-1]), known, n=1, cutoff=0.6)
        if close:
            what += f" (did you mean {close[0]!r}?)"
    elif error["type"] == "value_error":
        what = str(error["ctx"]["error"])  # our own message, without pydantic's prefix
    elif error["type"] == "missing":
        what = "missing: this table needs it"
    else:
        what = error["msg"]
    return key, what


def _keys_at(model: type[BaseModel], loc: tuple) -> list[str]:
    """The keys a table at `loc` (a path of keys and list indexes) may hold."""
    for part in loc:
        if isinstance(part, int):
            continue
        field = model.model_fields.get(str(part))
        if field is None:
            return []
        inner = _model_in(field.annotation)
        if inner is None:
            return []
        model = inner
    return list(model.model_fields)


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The model a field holds: itself, or inside `X | None`, `list[X]`, `dict[str, X]`."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def _header(keys: list[str]) -> re.Pattern[str]:
    dotted = r"\s*\.\s*".join(map(re.escape, keys))
    return re.compile(r"^\s*\[\[?\s*" + dotted + r"\s*\]\]?\s*(?:#.*)?$")


def _table_lines(lines: list[str], loc: tuple) -> tuple[int, int] | None:
    """The lines (first, past the last) of the body of the table at `loc`, its n-th
    `[[...]]` for an index n; (0, first header) for the top level."""
    keys = [str(p) for p in loc if not isinstance(p, int)]
    index = next((p for p in reversed(loc) if isinstance(p, int)), 0)
    headers = [n for n, line in enumerate(lines) if re.match(r"^\s*\[", line)]
    if not keys:
        return 0, headers[0] if headers else len(lines)
    found = [n for n in headers if _header(keys).match(lines[n])]
    if len(found) <= index:
        return None
    start = found[index] + 1
    return start, next((n for n in headers if n >= start), len(lines))


def line_of(text: str, loc: tuple, missing: bool = False) -> int | None:
    """The line of the TOML `text` that sets the key at `loc` (a path of keys and list
    indexes): its line in its table, a dotted `b.key = ` in a table above it, or the
    header of a table it names; for a `missing` key, its table's header. None when the
    file does not write it (a default, an environment variable)."""
    lines = text.splitlines()
    if missing:
        body = _table_lines(lines, loc[:-1])
        return body[0] if body and body[0] > 0 else None
    for cut in range(len(loc) - 1, -1, -1):
        body = _table_lines(lines, loc[:cut])
        rest = [str(p) for p in loc[cut:] if not isinstance(p, int)]
        if body is None or not rest:
            continue
        setting = re.compile(r"^\s*" + r"\s*\.\s*".join(map(re.escape, rest)) + r"\s*=")
        for number in range(*body):
            if setting.match(lines[number]):
                return number + 1
    whole = [str(p) for p in loc if not isinstance(p, int)]
    for number, line in enumerate(lines, 1):
        if whole and _header(whole).match(line):
            return number
    return None


def describe(
    err: ValidationError,
    origin: str,
    text: str | None = None,
    model: type[BaseModel] | None = None,
) -> str:
    """A validation error as lines, one per problem: where (the file, and its line when
    `text` is the file's TOML), which key, what is wrong; an unknown key of `model` with
    the closest known one."""
    found = []
    for error in err.errors():
        key, what = _one(error, model)
        line = (
            line_of(text, error["loc"], missing=error["type"] == "missing")
            if text is not None
            else None
        )
        found.append((line or 0, f"{origin}:{line}" if line else origin, key, what))
    # in the file's order, what no line holds first
    return "\n".join(f"{where}: {key}: {what}" for _, where, key, what in sorted(found))


def thread_page(review_url: str, thread_id: str) -> str:
    """The address of a thread's page on the review page at `review_url` (unsigned)."""
    return f"{review_url.rstrip('/')}/thread/{quote(thread_id, safe='')}"
