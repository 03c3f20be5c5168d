"""Behaviour that bled from one name of a module into another's docs.

A small model that has read a whole file says of `slugify` what `unique_slug` does
("useful for creating unique slugs"). Code sees it by the words: a section of the docs
about one name that uses a word of another name's identifier ("unique" of
`unique_slug`) that nothing of its own has: not its code, its docstring, the code it
calls, nor the module's docstring. A name that calls another may say what the other
does; one that does not, may not.
"""

from __future__ import annotations

import ast
import re

from batch.check_types import Finding, Repair
from batch.judging.apidocs import definitions
from batch.judging.wording import sentences, stem, stems_of

_IDENT = re.compile(r"[A-Za-z][a-z0-9]*|[A-Z]+(?![a-z])")
_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_INLINE = re.compile(r"`[^`\n]*`")
_SIGNATURE = re.compile(r"(?<![\w.])((?:[A-Za-z_]\w*\.)?[A-Za-z_]\w*)\(")


def _parts(identifier: str) -> set[str]:
    """The stems of an identifier's words: unique_slug -> uniqu, slug; SlugSet -> slug, set."""
    return {stem(w) for w in _IDENT.findall(identifier) if len(w) > 2}


def _reach(node: ast.AST, defs: dict[str, ast.AST]) -> set[str]:
    """The names of the module that `node` calls, and that those call, by their keys."""
    seen: set[str] = set()
    todo = [node]
    while todo:
        for n in ast.walk(todo.pop()):
            if isinstance(n, ast.Call | ast.Name | ast.Attribute):
                target = n.func if isinstance(n, ast.Call) else n
                name = (
                    target.id
                    if isinstance(target, ast.Name)
                    else (target.attr if isinstance(target, ast.Attribute) else "")
                )
                for key in [k for k in defs if k == name or k.endswith("." + name)]:
                    if key not in seen:
                        seen.add(key)
                        todo.append(defs[key])
    return seen


def check_bleed(doc: str, source: str) -> list[Finding]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    defs = definitions(tree)
    public = {k for k in defs if not k.split(".")[-1].startswith("_")}
    shared = stems_of(ast.get_docstring(tree) or "")
    out: list[Finding] = []
    sections = re.split(r"(?m)^(?=#{1,6}\s)", _FENCE.sub(" ", doc))
    for section in sections:
        heading, _, body = section.partition("\n")
        shown = _SIGNATURE.search(heading)
        key = shown.group(1) if shown else ""
        if key not in defs:
            key = next((k for k in defs if k.endswith("." + key)), "") if key else ""
        if not key:
            continue
        owner = key.split(".")[0]
        reach = _reach(defs[key], defs) | {key, owner}
        related = reach | {k for k in defs if k.split(".")[0] == owner or owner in k}
        own = shared | set().union(
            *(stems_of(ast.get_source_segment(source, defs[k]) or "") for k in related)
        )
        foreign: dict[str, str] = {}
        for other in public - related:
            for part in _parts(other.split(".")[-1]) - own:
                foreign.setdefault(part, other)
        said = stems_of(_INLINE.sub(" ", body))
        for part in sorted(said & set(foreign)):
            where = [s for s in sentences(body) if part in stems_of(_INLINE.sub(" ", s))]
            out.append(
                Finding(
                    repair=Repair(
                        action="rewrite",
                        sentences=where,
                        goal=f"says only what `{key}` itself does",
                    ),
                    code=f"api-bleed:{key}:{part}",
                    severity="must_fix",
                    message=f"The docs of `{key}` speak of {part!r}, which belongs to "
                    f"`{foreign[part]}`: `{key}` does not do that. Say only what its "
                    f"own code does.",
                )
            )
    return out
