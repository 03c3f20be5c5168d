"""The configuration reference, generated from the sections' field descriptions:
docs/configuration.md's key tables (tests/project/test_docs.py keeps them in step).
`python -m batch.config.reference` prints it."""

from __future__ import annotations

import types
import typing
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from batch.config.sections import Settings


def _section_of(annotation: Any) -> type[BaseModel] | None:
    """The section model a field holds (`ModelSettings | None` too), or None."""
    args = (
        typing.get_args(annotation)
        if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union
        else (annotation,)
    )
    for arg in args:
        if isinstance(arg, type) and issubclass(arg, BaseModel):
            return arg
    return None


_PLAIN = {
    "str": "text",
    "int": "integer",
    "float": "number",
    "bool": "true/false",
    "OllamaHost": "host table",
    "ScheduleJob": "job table",
}


def _type_name(annotation: Any) -> str:
    """A key's type as a reader writes it: `a` or `b` for a choice, "or" for either."""
    if typing.get_origin(annotation) is typing.Literal:
        return " or ".join(f"`{a}`" for a in typing.get_args(annotation))
    args = typing.get_args(annotation)
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        return " or ".join(_type_name(a) for a in args if a is not type(None))
    if typing.get_origin(annotation) is list:
        return f"list of {_type_name(args[0])}"
    if isinstance(annotation, type):
        return _PLAIN.get(annotation.__name__, annotation.__name__)
    return str(annotation)


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if value is None:
        return "unset"
    if isinstance(value, str):
        return f'`"{value}"`'
    return f"`{value}`"


def _rows(model: type[BaseModel], instance: BaseModel | None) -> list[str]:
    rows = []
    for key, field in model.model_fields.items():
        if field.exclude or _section_of(field.annotation) and key != "base_url":
            continue
        default = (
            "required"
            if field.default is PydanticUndefined and instance is None
            else _shown(getattr(instance, key) if instance is not None else field.default)
        )
        rows.append(
            f"| `{key}` | {_type_name(field.annotation)} | {default} | {field.description or ''} |"
        )
    return rows


def _tables(model: type[BaseModel], name: str, instance: BaseModel | None, out: list[str]) -> None:
    rows = _rows(model, instance)
    if rows:
        doc = " ".join((model.__doc__ or "").split())
        out += [
            f"### `[{name}]`",
            "",
            doc,
            "",
            "| key | type | default | what it does |",
            "|---|---|---|---|",
            *rows,
            "",
        ]
    # sections of the same kind (the roles' models) share one table of their own
    shared: dict[type[BaseModel], list[tuple[str, BaseModel | None]]] = {}
    for key, field in model.model_fields.items():
        section = _section_of(field.annotation)
        if field.exclude or section is None or key == "base_url":
            continue
        default = None if field.default in (None, PydanticUndefined) else field.default
        shared.setdefault(section, []).append((f"{name}.{key}" if name else key, default))
    for key, field in model.model_fields.items():
        if key == "jobs":
            job = typing.get_args(field.annotation)[0]
            out += [
                f"### `[[{name}.jobs]]`",
                "",
                " ".join((job.__doc__ or "").split()),
                "",
                "| key | type | default | what it does |",
                "|---|---|---|---|",
                *_rows(job, None),
                "",
            ]
    for section, places in shared.items():
        if len(places) == 1:
            _tables(section, places[0][0], places[0][1], out)
            continue
        names = ", ".join(f"`[{p}]`" for p, _ in places)
        out += [
            f"### {names}",
            "",
            " ".join((section.__doc__ or "").split()),
            "",
            "| key | type | default | what it does |",
            "|---|---|---|---|",
            *_rows(section, None),
            "",
        ]
        for place, instance in places:
            if instance is None:
                continue
            changed = [
                f"`{k}` = {_shown(getattr(instance, k))}"
                for k, f in section.model_fields.items()
                if getattr(instance, k) != f.default
            ]
            if changed:
                out.append(f"`[{place}]` defaults differ: {', '.join(changed)}.")
        out.append("")


def configuration_reference() -> str:
    """Every key of every section as Markdown tables, in the order the sections hold
    them."""
    out: list[str] = []
    _tables(Settings, "", None, out)
    return "\n".join(out).rstrip() + "\n"


if __name__ == "__main__":
    print(configuration_reference())
