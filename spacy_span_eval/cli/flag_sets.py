"""How a typer command takes a whole options dataclass instead of one parameter per flag.

A command names the dataclass and its :class:`Flags` set in the annotation::

    @app.command("evaluate")
    @takes_options
    def evaluate_cli(gold: GoldFile, pred: PredFile = None, *,
                     scoring: Annotated[ScoringOptions, SCORING_FLAGS],
                     reading: Annotated[ReadingOptions, READING_FLAGS], ...) -> None:

:func:`takes_options` puts the set's flags into the command's signature, where typer looks for
parameters, and calls the command with the filled-in dataclass (and every choice as its plain
string). Written out, the four scoring commands declared 22-27 parameters each and collected
them again by hand into the options, so a new option meant five edits that had to agree; here
it is a dataclass field and a flag in its set, and ``--help``, parsing and the value the
command sees follow. The parameters that differ per command (its arguments, ``--output``,
``--floors``, the interval options) stay written out, so a command's signature still says
what it takes.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from enum import Enum
from typing import Annotated, Any, get_args, get_origin

import attrs
import typer

__all__ = ["Flags", "flag", "takes_options"]


def flag(kind: Any, *names: str, **declaration: Any) -> Any:
    """The flag type of an option set's field (:class:`Flags`): its type and its typer
    declaration, ``Annotated[kind, typer.Option(*names, **declaration)]``."""
    return Annotated[kind, typer.Option(*names, **declaration)]


class Flags:
    """The flags that fill one options dataclass, in ``--help`` order.

    Each keyword names a field of ``target`` and gives its flag type, whose default is the
    field's own, or a ``(flag type, default)`` pair when the command line's default differs
    (an empty repeatable flag, or a command's own default). A field without a flag keeps its
    dataclass default.
    """

    def __init__(self, target: type, **flags: Any) -> None:
        defaults = {f.name: f.default for f in attrs.fields(target)}
        unknown = sorted(set(flags) - set(defaults))
        if unknown:
            raise TypeError(f"{target.__name__} has no field {', '.join(unknown)}")
        self.target = target
        self.flags: dict[str, tuple[Any, Any]] = {
            name: flag if isinstance(flag, tuple) else (flag, defaults[name])
            for name, flag in flags.items()
        }

    def but(self, **changes: Any) -> Flags:
        """These flags with some replaced (as in the constructor) or left out (``None``)."""
        merged = {**self.flags, **changes}
        return Flags(self.target, **{k: v for k, v in merged.items() if v is not None})

    def only(self, *names: str) -> Flags:
        """These flags for the fields ``names`` only."""
        return Flags(self.target, **{k: v for k, v in self.flags.items() if k in names})

    def parameters(self) -> list[inspect.Parameter]:
        """The flags as keyword parameters, for a command's signature."""
        return [
            inspect.Parameter(
                name,
                inspect.Parameter.KEYWORD_ONLY,
                annotation=annotation,
                default=inspect.Parameter.empty if default is attrs.NOTHING else default,
            )
            for name, (annotation, default) in self.flags.items()
        ]

    def collect(self, values: dict[str, Any]) -> Any:
        """The dataclass, from (and taking out of) a command's parsed ``values``."""
        given = {name: values.pop(name) for name in self.flags}
        # A repeatable flag given no times leaves the field's default.
        return self.target(**{k: v for k, v in given.items() if v != ()})


def _plain(value: Any) -> Any:
    """A parsed value as the layers below take it: a choice as its string, a list a tuple."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, list):
        return tuple(_plain(v) for v in value)
    return value


def _flags_of(annotation: Any) -> Flags | None:
    if get_origin(annotation) is not Annotated:
        return None
    target, *extras = get_args(annotation)
    for extra in extras:
        if isinstance(extra, Flags):
            if extra.target is not target:
                raise TypeError(
                    f"{annotation}: flags of {extra.target.__name__}, not {target.__name__}"
                )
            return extra
    return None


def takes_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Let a typer command take options dataclasses.

    Each keyword-only parameter annotated ``Annotated[SomeOptions, SOME_FLAGS]`` is replaced,
    in the signature typer reads, by the flags of ``SOME_FLAGS``; the command is called with
    the dataclass filled in from them. Every choice reaches the command as its string.
    """
    signature = inspect.signature(command, eval_str=True)
    sets: dict[str, Flags] = {}
    parameters: list[inspect.Parameter] = []
    for parameter in signature.parameters.values():
        flags = _flags_of(parameter.annotation)
        if flags is None:
            parameters.append(parameter)
            continue
        if parameter.kind is not inspect.Parameter.KEYWORD_ONLY:
            raise TypeError(f"{command.__name__}: make {parameter.name} keyword-only (after *)")
        sets[parameter.name] = flags
        parameters.extend(flags.parameters())

    @functools.wraps(command)
    def run(**values: Any) -> Any:
        values = {name: _plain(value) for name, value in values.items()}
        for name, flags in sets.items():
            try:
                values[name] = flags.collect(values)
            except ValueError as exc:  # a value the dataclass refuses (beta nan, ...)
                raise typer.BadParameter(str(exc)) from None
        return command(**values)

    # (a flag declared twice: inspect refuses the signature, naming it)
    run.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in parameters}
    return run
