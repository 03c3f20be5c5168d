"""One exported name of a source file."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Export:
    name: str  # "slugify", "Account", "Account.deposit"
    kind: str  # "function", "class", "method", "type", "const", "variable", ...
    signature: str  # the declaration's header as written, on one line; "" if none
