"""The input formats: one registry entry each.

An entry names the format, its reader (a function ``read(path, options, notes)`` yielding one
:class:`~.base.Record` per document, imported on first use), the unit its spans are in, and —
for the formats read straight into columns (:mod:`.columnar`) — its column family. Everything
else (pairing, units, alignment, labels, every command, ``--n-process``) works from that, so a
new format is one module with its reader plus one :func:`register_format` line (which format
a file is in, :mod:`.detect` finds). Reading CoNLL files loads no JSON decoder: the other
readers are imported when a file of theirs is read.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import Any

from ..engine.labels import slice_names
from ..errors import InvalidInputError
from .base import Record
from .options import CHOICES, SIDES, ReadingOptions

__all__ = [
    "FORMATS",
    "InputFormat",
    "check_choices",
    "Reader",
    "SliceFields",
    "format_named",
    "register_format",
]

#: A reader: the records of one file, read as ``options`` say; what it reads differently or
#: leaves out it counts in ``notes`` (``"relations ignored"``).
Reader = Callable[[Path, ReadingOptions, Counter[str]], Iterator[Record]]
#: A format's slice fields: ``(document name, value or None)`` of one field for each document
#: of one file, named as results name it (its id, else its key), read as ``options`` say.
SliceFields = Callable[[Path, str, ReadingOptions], Iterator[tuple[str, object]]]


@dataclass(frozen=True)
class InputFormat:
    """One input format.

    ``reader``: the reader, or ``"module:function"`` of this package's ``readers`` (imported
    when first read). ``unit``: what ``--unit`` defaults to with this format as gold.
    ``columns``: the column family of :mod:`.columnar` that reads a pair of this format
    straight into batches (``"conll"``, ``"chars"``), if any. ``fields``: its
    :data:`SliceFields` (or ``"module:function"``), if its documents carry any. ``suffixes``:
    file name endings that name the format. ``title``: how help and docs name it (``"brat standoff
    folder"``; empty: its name). ``selects``: the :data:`~.options.CHOICES` it makes, on both
    sides (``"annotator"``) or on one (``"predicted:model_version"``).
    """

    name: str
    reader: Reader | str
    unit: str = "char"
    columns: str | None = None
    fields: SliceFields | str | None = None
    suffixes: tuple[str, ...] = ()
    title: str = ""
    selects: tuple[str, ...] = ()

    def chooses(self, name: str, side: str) -> bool:
        """Whether a file of this format, read as ``side``, makes the choice ``name``."""
        return name in self.selects or f"{side}:{name}" in self.selects

    @property
    def shown(self) -> str:
        """The format as help texts name it: its title, else its name."""
        return self.title or self.name

    def read(
        self, path: Path | str, options: ReadingOptions, notes: Counter[str]
    ) -> Iterator[Record]:
        """The records of ``path``."""
        reader: Reader = _loaded(self.reader)
        return reader(Path(path), options, notes)

    def slice_values(
        self, path: Path | str, fields: Sequence[str], options: ReadingOptions
    ) -> dict[str, dict[str, list[str]]]:
        """Per field, the values of the documents of each name results give (in the file's
        order: a JSON array on one line names its documents without ids alike), as
        :func:`.slice_names` writes them: a light pass beside the reading, so every road
        slices alike. A field no document has is refused: a misspelt one would be one slice
        of them all."""
        if not fields:  # (a format without fields is read for none)
            return {}
        if self.fields is None:
            raise InvalidInputError(f"{path}: --slice-by {fields[0]}: {self.shown} has no fields")
        read: SliceFields = _loaded(self.fields)
        out: dict[str, dict[str, list[str]]] = {}
        for field in fields:
            pairs = list(read(Path(path), field, options))
            values = [value for _, value in pairs]
            if values and all(v is None for v in values):
                raise InvalidInputError(f"{path}: no document has the slice field {field!r}")
            named = out[field] = {}
            for (name, _), text in zip(pairs, slice_names(values), strict=True):
                named.setdefault(name, []).append(text)
        return out


def _loaded(function: Callable[..., Any] | str) -> Any:
    """``function``, imported first when named ``"module:function"`` of this package."""
    if not isinstance(function, str):
        return function
    module, _, name = function.partition(":")
    return getattr(import_module(f".{module}", __package__), name)


#: Every format, by name, in the order ``--input-format`` lists them.
FORMATS: dict[str, InputFormat] = {}


def register_format(fmt: InputFormat) -> InputFormat:
    """Add ``fmt`` to :data:`FORMATS` (a name may be registered once)."""
    if fmt.name in FORMATS and FORMATS[fmt.name] != fmt:
        raise ValueError(f"an input format named {fmt.name!r} is already registered")
    FORMATS[fmt.name] = fmt
    return fmt


def format_named(name: str) -> InputFormat:
    """The registered format ``name``, or a ValueError listing the others."""
    try:
        return FORMATS[name]
    except KeyError:
        raise ValueError(
            f"unknown input format {name!r}; choose one of {', '.join(FORMATS)}"
        ) from None


def check_choices(
    reading: ReadingOptions, files: dict[str, tuple[Path | str, InputFormat]]
) -> None:
    """Refuse a choice (``--annotator``, a side's own ``--pred-session``, ...) that no file it
    concerns can make; ``files``: each side read from a file, its path and format."""
    for name in CHOICES:
        for field, sides in (
            (name, SIDES),
            (f"gold_{name}", SIDES[:1]),
            (f"pred_{name}", SIDES[1:]),
        ):
            concerned = {side: files[side] for side in sides if side in files}
            if getattr(reading, field, None) is None or any(
                fmt.chooses(name, side) for side, (_, fmt) in concerned.items()
            ):
                continue
            read = dict.fromkeys(f"{path} is {fmt.shown}" for path, fmt in concerned.values())
            able = ", ".join(
                f"{f.shown}{'' if name in f.selects else ' as ' + c.partition(':')[0]}"
                for f in FORMATS.values()
                for c in f.selects
                if c.endswith(name)
            )
            raise InvalidInputError(
                f"--{field.replace('_', '-')}: {', '.join(read) or 'no file is read there'}: no "
                f"{name.replace('_', ' ')} to choose (only {able} can choose one)"
            )


#: The built-in formats, each naming its reader "module:function" (imported when a file of
#: that format is read: a CoNLL run loads no JSON reader, a JSON run no spaCy).
_JSON = "jsonio:json_fields"
for _built_in in (
    InputFormat(
        "conll",
        "conll:read_conll_as",
        unit="token",
        columns="conll",
        fields="conll:conll_fields",
        title="CoNLL",
    ),
    InputFormat("jsonl", "jsonl:read_jsonl", columns="chars", fields=_JSON, title="JSONL"),
    InputFormat(
        "presidio", "jsonl:presidio_reader", columns="chars", fields=_JSON, title="presidio JSON"
    ),
    InputFormat(
        "spacy",
        "docbin:read_docbin",
        fields="docbin:docbin_fields",
        suffixes=(".spacy",),
        title=".spacy DocBin",
    ),
    InputFormat("brat", "brat:read_brat", fields="brat:brat_fields", title="brat standoff folder"),
    InputFormat(
        "prodigy",
        "prodigy:read_prodigy",
        fields="prodigy:prodigy_fields",
        title="Prodigy JSONL",
        selects=("annotator", "session"),
    ),
    InputFormat(
        "labelstudio",
        "labelstudio:read_labelstudio",
        fields=_JSON,
        title="Label Studio JSON",
        selects=("gold:annotator", "predicted:model_version"),
    ),
    InputFormat(
        "labelstudio-min",
        "labelstudio:read_labelstudio_min",
        fields=_JSON,
        title="Label Studio JSON-MIN",
        selects=("annotator",),
    ),
    InputFormat(
        "doccano",
        "doccano:read_doccano",
        suffixes=(".zip",),
        title="doccano JSONL or zip",
        selects=("annotator",),
    ),
    InputFormat("tuples", "tuples:read_tuples", title="spaCy training tuples"),
    InputFormat("re3d", "re3d:read_re3d", fields="re3d:re3d_fields", title="re3d folder"),
    InputFormat("strings", "strings:read_strings", title="predicted strings"),
):
    register_format(_built_in)
