"""The plain conversion of parameter values (``cli/coercion.py``) against typer's own, which
goes through pydantic: for every parameter of every command and values of every kind, valid
and not, both give the same value or the same error."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Any, get_args, get_origin

import pytest
import typer.main
from typer._click.core import Context
from typer._coercion import build_runtime_param

from spacy_span_eval.cli import app
from spacy_span_eval.cli.coercion import lighten

COMMANDS = typer.main.get_command(app)


def parameters():
    group = COMMANDS
    yield from ((group.name, p) for p in group.params)
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        yield from ((name, p) for p in command.params)


def samples(annotation: Any, tmp: Path) -> list[Any]:
    if get_origin(annotation) is list:
        (item,) = get_args(annotation)
        one = samples(item, tmp)
        return [one[:2], one[-2:], one[0]]
    if annotation is bool:
        return [True, False, "true", "x"]
    if annotation is str:
        return ["abc", "", "-"]
    if annotation is int:
        return [0, 3, -1, "3", "-1", "0", "007", " 4", "1.5", "x", "", 10**9]
    if annotation is float:
        return [0.5, 1, 0, "0.5", "1", "1e3", "nan", "inf", "-0.1", "2", "x", "", ".5"]
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        names = [m.value for m in annotation]
        return [*names, names[0].upper(), "nonesuch", list(annotation)[0]]
    if isinstance(annotation, type) and issubclass(annotation, Path):
        return [str(tmp / "file.txt"), str(tmp / "missing"), str(tmp), "-", tmp / "file.txt"]
    raise AssertionError(f"no samples for {annotation!r}")


def outcome(runtime, value, param, ctx):
    try:
        return "value", repr(runtime._coerce_value(value, param=param, ctx=ctx))
    except Exception as exc:  # (the same exception and message, or the test fails)
        return type(exc).__name__, str(exc)


@pytest.mark.parametrize(
    ("command", "param"),
    [pytest.param(c, p, id=f"{c} {p.name}") for c, p in parameters()],
)
def test_plain_conversion_is_typer_s(command, param, tmp_path):
    (tmp_path / "file.txt").write_text("x")
    descriptor = param.type_descriptor
    param._runtime_param = None
    lighten([param])
    light = param._runtime_param
    if light is None:  # (a parameter typer converts itself)
        return
    full = build_runtime_param(descriptor)
    ctx = Context(COMMANDS)
    for value in samples(descriptor.annotation, tmp_path):
        assert outcome(light, value, param, ctx) == outcome(full, value, param, ctx), value


def test_every_parameter_of_these_commands_is_converted_plainly():
    # A new kind of parameter is noticed here: extend cli/coercion.py or accept typer's cost.
    kinds = set()
    for _, param in parameters():
        param._runtime_param = None
        lighten([param])
        if param._runtime_param is None:
            kinds.add(repr(param.type_descriptor.annotation))
    assert kinds == set()
