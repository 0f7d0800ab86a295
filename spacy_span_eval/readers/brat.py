"""brat standoff: a folder of ``NAME.txt`` texts, each with its ``NAME.ann`` annotations.

Every ``.ann`` file under the folder (sub-folders too, in sorted order) is one document, its id
the path without suffix relative to the folder (``news/001``), so gold and predictions pair by
id. Offsets are characters of the ``.txt`` file as it is on disk (line ends kept as written).

- ``T`` lines (text-bound annotations, ``T1<TAB>PER 0 5<TAB>Alice``) are the spans. A
  discontinuous one (``T2<TAB>ORG 0 5;12 20<TAB>...``) is read as its outer extent
  ``[0, 20)`` and counted, so nothing annotated is dropped (semantics §1).
- An event's trigger (the ``T`` line an ``E`` line names first) is not an entity: left out and
  counted, as are relations (``R``), events (``E``), attributes (``A``/``M``),
  normalizations (``N``), notes (``#``) and equivalences (``*``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from ..engine.spans import Span
from ..errors import InvalidInputError
from .base import Record, char_record, empty_input, not_utf8, note
from .options import ReadOptions

__all__ = ["IGNORED_KINDS", "read_brat"]

#: What a line's first character says it is, for the lines that are counted and left out.
IGNORED_KINDS: dict[str, str] = {
    "R": "relations",
    "E": "events",
    "A": "attributes",
    "M": "attributes",
    "N": "normalizations",
    "#": "notes",
    "*": "equivalences",
}
DISCONTINUOUS = "discontinuous entities read as their outer extent"


def read_brat(path: Path | str, options: ReadOptions, notes: Counter) -> Iterator[Record]:
    """One char-unit record per ``.ann`` file under the folder ``path``."""
    root = Path(path)
    if not root.is_dir():
        raise InvalidInputError(
            f"{path}: brat standoff is a folder of .txt and .ann files, not a file"
        )
    anns = sorted(root.rglob("*.ann"))
    if not anns:
        raise empty_input(path, ".ann files")
    for ann in anns:
        doc_id = ann.relative_to(root).with_suffix("").as_posix()
        txt = ann.with_suffix(".txt")
        if not txt.exists():
            raise InvalidInputError(f"{ann}: no text file {txt.name} beside it")
        text = _read(txt)
        spans, counts = _annotations(ann, options.side)
        for what, n in counts.items():
            note(notes, what, n)
        yield char_record(str(ann), doc_id, doc_id, text, spans, options.side)


def _read(path: Path) -> str:
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            return fh.read()
    except UnicodeDecodeError as exc:
        raise not_utf8(path, exc) from None


def _annotations(ann: Path, side: str) -> tuple[list[Span], Counter]:
    lines = _read(ann).splitlines()
    counts: Counter = Counter()
    triggers = set()
    for line in lines:
        if line.startswith("E"):
            fields = line.split("\t")
            if len(fields) > 1 and ":" in fields[1]:
                triggers.add(fields[1].split()[0].split(":", 1)[1])
    spans: list[Span] = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        kind = line[0]
        if kind != "T":
            if kind not in IGNORED_KINDS:
                raise InvalidInputError(
                    f"{ann} line {n}: not a brat annotation line: {line[:60]!r}"
                )
            counts[f"{IGNORED_KINDS[kind]} ignored"] += 1
            continue
        fields = line.split("\t")
        if len(fields) < 2:
            raise InvalidInputError(
                f"{ann} line {n}: a T line needs an id, a label with "
                f"offsets and the text, tab-separated: {line[:60]!r}"
            )
        if fields[0] in triggers:
            counts["event triggers ignored"] += 1
            continue
        label, _, offsets = fields[1].partition(" ")
        try:
            pieces = [tuple(int(x) for x in piece.split()) for piece in offsets.split(";")]
            if not pieces or any(len(p) != 2 for p in pieces):
                raise ValueError
        except ValueError:
            raise InvalidInputError(
                f"{ann} line {n}: offsets must be 'START END' pairs "
                f"separated by ';', not {offsets!r}"
            ) from None
        if len(pieces) > 1:
            counts[DISCONTINUOUS] += 1
        spans.append(Span(min(p[0] for p in pieces), max(p[1] for p in pieces), label))
    return spans, counts
