"""Label-map and hierarchy files (JSON, YAML or spaCy-style ``.cfg``) to engine objects.

Small settings files are read whole, so only regular files are taken (a directory, a FIFO or a
device is refused by name). In every format a non-integer number is read as the
:class:`~decimal.Decimal` written, from the text of the number, not through a float (a floor of
``0.95`` is the decimal written, semantics §6, to the last digit): JSON through the standard
library, YAML through srsly's bundled parser (srsly is a dependency already) with a float
constructor of its own, ``.cfg`` through confection, the config system spaCy uses, whose
values are then read again as JSON from the text configparser holds. A key (or a ``.cfg``
section) given twice is an error naming the file, the key and its line (semantics §7), never
"the last one wins". Every problem is an :class:`~.errors.InvalidInputError` naming the file.

Label map: ``{"alias": "CANONICAL"}``, or grouped ``{"CANONICAL": ["alias", ...]}``; in a
``.cfg`` file, under a ``[label_map]`` section. Hierarchy: levels in order, each mapping the
labels of the level below to this level's labels (detailed -> branch -> binary); in a
``.cfg`` file, ``[hierarchy.branch]``, ``[hierarchy.binary]``, ... sections.
"""

from __future__ import annotations

import configparser
import json
import re
import stat
from collections.abc import Callable, Mapping
from decimal import Decimal, InvalidOperation
from functools import cache
from pathlib import Path
from typing import Any

from ..engine.gates import Floors
from ..engine.labels import Hierarchy, LabelMap
from ..engine.settings import BASE_LEVEL
from ..errors import InvalidInputError
from .base import not_utf8
from .jsonio import DuplicateKeyError, repeated_key_error, unique_keys

__all__ = [
    "as_floors",
    "load_floors",
    "load_hierarchy",
    "load_label_map",
    "read_settings_file",
]


def _read_text(path: Path, what: str) -> str:
    """The text of a regular UTF-8 file; anything else is an error naming ``what`` it is."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no such file") from None
    except OSError as exc:  # a link loop, a name too long, no permission...
        raise InvalidInputError(f"{path}: cannot read the {what} ({exc.strerror or exc})") from None
    if stat.S_ISDIR(mode):
        raise InvalidInputError(f"{path}: the {what} is a directory, not a file")
    if not stat.S_ISREG(mode):
        kind = "a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "not a regular file"
        raise InvalidInputError(
            f"{path}: the {what} is {kind}; settings files are read whole, so give a regular file"
        )
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InvalidInputError(f"{path}: cannot read the {what} ({exc.strerror or exc})") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise not_utf8(path, exc) from None


def _json_constant(name: str) -> object:
    raise ValueError(f"{name} is not a number here")


def _load_json(text: str) -> Any:
    """JSON with decimals, no NaN or infinity, and no key twice (:class:`DuplicateKeyError`)."""
    return json.loads(
        text, parse_float=Decimal, parse_constant=_json_constant, object_pairs_hook=unique_keys
    )


class RepeatedKey(Exception):
    """A key given twice in a YAML mapping: the key and the line of its second occurrence."""

    def __init__(self, key: object, line: int) -> None:
        super().__init__(key, line)
        self.key, self.line = key, line


# YAML floats as the YAML 1.2 core schema writes them (and 1.1's underscores); anything else
# the float constructor resolves (.inf, .nan, base 60) is left to it.
_YAML_DECIMAL = re.compile(r"[-+]?(?:\d[\d_]*)?(?:\.[\d_]*)?(?:[eE][-+]?\d+)?")


@cache
def _yaml_constructor() -> type:
    """srsly's safe YAML constructor, with floats read as the decimals written and a repeated
    key raised as :class:`RepeatedKey` (with its line)."""
    import srsly  # (its bundled ruamel.yaml, loaded with it)

    # (srsly's bundled ruamel.yaml has no types: its classes are Any to mypy)
    class DecimalConstructor(srsly.ruamel_yaml.constructor.SafeConstructor):  # type: ignore[misc]
        def construct_decimal(self, node: Any) -> object:
            text = str(self.construct_scalar(node))
            if _YAML_DECIMAL.fullmatch(text) and any(c.isdigit() for c in text):
                try:
                    return Decimal(text.replace("_", ""))
                except InvalidOperation:
                    pass
            return self.construct_yaml_float(node)

        def check_mapping_key(
            self, node: Any, key_node: Any, mapping: Any, key: Any, value: Any
        ) -> bool:
            if key in mapping:
                raise RepeatedKey(key, key_node.start_mark.line + 1)
            return True

    DecimalConstructor.add_constructor(
        "tag:yaml.org,2002:float", DecimalConstructor.construct_decimal
    )
    return DecimalConstructor


def _load_yaml(text: str, path: Path) -> Any:
    import srsly  # (slow to import: only a YAML file needs it)

    yaml = srsly.ruamel_yaml.YAML(typ="safe", pure=True)
    yaml.Constructor = _yaml_constructor()
    return yaml.load(text)


def _load_cfg(text: str, path: Path) -> Any:
    """A ``.cfg`` file through confection, each value then read again from configparser's
    text with :func:`_load_json` where it is JSON: decimals as written, no key twice in an
    inline object. A section or key given twice is refused with its line."""
    from confection import Config  # (spaCy's config system: only a .cfg file needs it)

    parser = configparser.ConfigParser(interpolation=None, allow_no_value=True, strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # (as confection)
    try:
        parser.read_string(text)
    except configparser.DuplicateSectionError as exc:
        raise InvalidInputError(
            f"{path} line {exc.lineno}: the section [{exc.section}] is given twice "
            "(a section may appear once: neither is taken)"
        ) from None
    except configparser.DuplicateOptionError as exc:
        raise InvalidInputError(
            f"{path} line {exc.lineno}: the key {exc.option!r} is given twice in "
            f"[{exc.section}] (a key may appear once: neither value is taken)"
        ) from None
    except configparser.Error:
        pass  # confection words the problem
    data = Config().from_str(text, interpolate=False)
    for section in parser.sections():
        node: Any = data
        for part in section.split("."):
            node = node.get(part) if isinstance(node, Mapping) else None
        if not isinstance(node, dict):
            continue
        for key in parser[section]:
            raw = parser.get(section, key, raw=True)
            if raw is None or key not in node:
                continue
            try:
                node[key] = _load_json(raw)
            except DuplicateKeyError as exc:
                raise InvalidInputError(
                    f"{path} [{section}] {key}: the key {exc.key!r} is given twice in one "
                    "object (a key may appear once: neither value is taken)"
                ) from None
            except (ValueError, RecursionError):
                pass  # not JSON: confection's reading stands
    return data


#: Each suffix's parser: the file's text (and path, for messages) to its value.
_LOADERS: dict[str, Callable[[str, Path], Any]] = {
    ".json": lambda text, path: _load_json(text),
    ".yaml": _load_yaml,
    ".yml": _load_yaml,
    ".cfg": _load_cfg,
}
SUFFIXES: tuple[str, ...] = tuple(_LOADERS)


def read_settings_file(
    path: Path | str, *, section: str | None = None, what: str = "settings file"
) -> dict[str, Any]:
    """A small JSON / YAML / ``.cfg`` file as a dict.

    ``section`` unwraps a top-level key of that name when the file has one (a ``.cfg`` file
    needs sections, so it always does); other formats may leave it out. ``what`` names the
    file in messages ("label map", "floors file").
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise InvalidInputError(
            f"{path}: unknown settings file type {suffix or '(none)'!r}"
            f"; use one of {', '.join(SUFFIXES)}"
        )
    text = _read_text(path, what)
    try:
        data = _LOADERS[suffix](text, path)
    except DuplicateKeyError as exc:
        raise repeated_key_error(path, 1, text, exc.key) from None
    except RepeatedKey as exc:
        raise InvalidInputError(
            f"{path} line {exc.line}: the key {exc.key!r} is given twice in one mapping "
            "(a key may appear once: neither value is taken)"
        ) from None
    except InvalidInputError:
        raise
    except Exception as exc:  # each parser has its own error type (deep nesting included)
        detail = " ".join(str(exc).split())
        raise InvalidInputError(f"{path}: cannot parse {suffix[1:].upper()} ({detail})") from None
    if not isinstance(data, Mapping):
        raise InvalidInputError(
            f"{path}: expected a mapping at the top level, found {type(data).__name__}"
        )
    data = dict(data)
    if section is not None and set(data) == {section} and isinstance(data[section], Mapping):
        data = dict(data[section])
    elif suffix == ".cfg" and section is not None:
        raise InvalidInputError(
            f"{path}: expected one [{section}] section, found "
            f"{', '.join(f'[{k}]' for k in data) or 'none'}"
        )
    return data


def _mapping(raw: object, path: Path | str, what: str) -> dict[str, str]:
    """``{alias: target}`` from either the flat or the grouped (``target: [aliases]``) form."""
    if not isinstance(raw, Mapping):
        raise InvalidInputError(f"{path}: {what} must be a mapping, found {type(raw).__name__}")
    out: dict[str, str] = {}
    for key, value in raw.items():
        pairs = [(a, key) for a in value] if isinstance(value, list) else [(key, value)]
        for alias, target in pairs:
            if not isinstance(alias, str) or not alias or not isinstance(target, str) or not target:
                raise InvalidInputError(
                    f"{path}: {what}: entry {key!r}: {value!r} must map label names (non-empty "
                    "strings) to a label name, or a label name to a list of them"
                )
            if alias in out and out[alias] != target:
                raise InvalidInputError(
                    f"{path}: {what}: {alias!r} maps to both {out[alias]!r} and {target!r}"
                )
            out[alias] = target
    return out


def load_label_map(path: Path | str, *, strict: bool = False) -> LabelMap:
    """A :class:`~.labels.LabelMap` from a file; ``strict`` rejects labels it does not know."""
    data = read_settings_file(path, section="label_map", what="label map")
    mapping = _mapping(data, path, "label map")
    if not mapping:
        raise InvalidInputError(f"{path}: the label map is empty")
    return LabelMap(mapping, strict=strict)


def load_hierarchy(path: Path | str) -> Hierarchy:
    """A :class:`~.labels.Hierarchy` from a file of chained levels.

    Each level maps the labels of the level before it (the first: the scored labels, after
    the label map) to coarser ones; every label reached must go on to the next level, which
    is checked here so a gap names the file, the level and the label.
    """
    data = read_settings_file(path, section="hierarchy", what="hierarchy")
    if not data:
        raise InvalidInputError(f"{path}: the hierarchy has no levels")
    levels: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    for name, raw in data.items():
        if not isinstance(name, str) or not name or name == BASE_LEVEL:
            raise InvalidInputError(
                f"{path}: level name {name!r} is not allowed "
                f"({BASE_LEVEL!r} names the scored labels themselves)"
            )
        step = _mapping(raw, path, f"level {name!r}")
        if current is None:
            current = dict(step)
        else:
            missing = sorted({up for up in current.values() if up not in step})
            if missing:
                below = [k for k, up in current.items() if up == missing[0]]
                raise InvalidInputError(
                    f"{path}: level {name!r} has no parent for {missing[0]!r} (reached from "
                    f"{below[0]!r}); every label of the level below needs one"
                )
            current = {label: step[up] for label, up in current.items()}
        levels[name] = current
    return Hierarchy(levels)


def load_floors(path: Path | str) -> Floors:
    """Floors from a JSON, YAML or ``.cfg`` file (in ``.cfg``: ``[gate]`` and
    ``[floors.LABEL]`` sections)."""
    return Floors.from_dict(read_settings_file(path, what="floors file"), source=str(path))


def as_floors(value: Floors | Path | str | None) -> Floors | None:
    """Floors from a file path, or the given ones."""
    return load_floors(value) if isinstance(value, str | Path) else value
