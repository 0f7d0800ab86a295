"""Parameter values converted without pydantic, where that is plain.

typer converts every parameter's value (a default too) through a pydantic ``TypeAdapter``;
importing pydantic and building the adapters costs about a third of a small ``evaluate`` run.
The values these commands take are plain (strings, integers, floats, paths, choices, lists of
them), so :func:`lighten` gives each such parameter a conversion that does what typer's does
for a valid value, by typer's own path and choice functions where it has them. Whatever it is
not sure of (a string that is not a plain number, a value out of range, a choice or a path
typer would refuse) goes to typer's own conversion, so every error message is typer's.

It leans on typer's private parameter classes: with a typer that has none of them,
:func:`lighten` changes nothing and typer converts as it always does.
"""

from __future__ import annotations

import re
from enum import Enum
from pathlib import Path
from typing import Any, get_args, get_origin

try:  # (typer's private API: see the module's docstring)
    from typer._coercion import RuntimeParam, build_runtime_param
    from typer._param_types import coerce_cli_choice, coerce_cli_path
except ImportError:  # pragma: no cover (another typer)
    RuntimeParam = None  # type: ignore[assignment, misc]

__all__ = ["lighten"]

_INT = re.compile(r"-?[0-9]+")
_FLOAT = re.compile(r"-?[0-9]+(\.[0-9]+)?")


class _Unsure(Exception):
    """The plain conversion does not know this value: typer's own decides."""


def _plain(annotation: Any, info: Any, value: Any, param: Any, ctx: Any) -> Any:
    if get_origin(annotation) is list:
        (item,) = get_args(annotation)
        items = value if isinstance(value, list | tuple) else [value]
        return [_plain(item, info, v, param, ctx) for v in items]
    if annotation is bool and isinstance(value, bool):
        return value
    if annotation is str and isinstance(value, str):
        return value
    if annotation is int or annotation is float:
        if info.clamp:
            raise _Unsure
        if type(value) is int or (annotation is float and type(value) is float):
            number = annotation(value)
        elif isinstance(value, str) and (_INT if annotation is int else _FLOAT).fullmatch(value):
            number = annotation(value)
        else:
            raise _Unsure
        if (info.min is not None and number < info.min) or (
            info.max is not None and number > info.max
        ):
            raise _Unsure
        return number
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        try:
            return coerce_cli_choice(
                value, choices=list(annotation), case_sensitive=info.case_sensitive, ctx=ctx
            )
        except ValueError:
            raise _Unsure from None
    if isinstance(annotation, type) and issubclass(annotation, Path) and info.parser is None:
        path_type = info.path_type or annotation
        if isinstance(value, str) and isinstance(path_type, type) and issubclass(path_type, Path):
            value = path_type(value)
        elif not isinstance(value, Path):
            raise _Unsure
        try:
            return coerce_cli_path(value, info, path_type=path_type, param=param, ctx=ctx)
        except Exception:
            raise _Unsure from None
    raise _Unsure


def _knows(annotation: Any) -> bool:
    """Whether :func:`_plain` converts values of this annotation at all."""
    if get_origin(annotation) is list:
        return _knows(get_args(annotation)[0])
    if annotation in (bool, str, int, float):
        return True
    return isinstance(annotation, type) and issubclass(annotation, Enum | Path)


if RuntimeParam is not None:

    class _LightRuntimeParam(RuntimeParam):
        """A plain conversion, and typer's own when it is unsure."""

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            try:
                return _plain(self.annotation, self.parameter_info, value, param, ctx)
            except _Unsure:
                full = build_runtime_param(param.type_descriptor)
                return full._coerce_value(value, param=param, ctx=ctx)


def lighten(params: list[Any]) -> None:
    """Give each of ``params`` (typer parameters) whose values are plain the plain
    conversion, unless typer has already made its own."""
    if RuntimeParam is None:
        return
    for param in params:
        descriptor = getattr(param, "type_descriptor", None)
        if (
            descriptor is None
            or getattr(param, "_runtime_param", False) is not None
            or descriptor.file_annotation is not None
            or descriptor.parameter_info.parser is not None
            or not _knows(descriptor.annotation)
        ):
            continue
        param._runtime_param = _LightRuntimeParam(
            annotation=descriptor.annotation, parameter_info=descriptor.parameter_info
        )
