"""brat standoff: a folder of ``NAME.txt`` texts, each with its ``NAME.ann`` annotations.

Every ``.txt`` file under the folder (sub-folders too, in sorted order) is one document, its id
the path without suffix relative to the folder (``news/001``), so gold and predictions pair by
id. Offsets are characters of the ``.txt`` file as it is on disk (line ends kept as written).

- A ``.txt`` without an ``.ann`` beside it is a document without spans (brat shows it so),
  counted in the notes; an ``.ann`` without its ``.txt`` is an error.
- Symbolic links to folders are followed, each real folder read once (a second link to it is
  counted); a link back to a folder above it (a loop) is an error naming it.
- ``.ann`` lines end at ``\n`` only (a trailing ``\r`` is dropped): annotation text may hold
  any other character, U+0085 and U+2028 included.
- ``T`` lines (text-bound annotations, ``T1<TAB>PER 0 5<TAB>Alice``) are the spans. Each one's
  text must be the ``.txt``'s characters at its offsets (whitespace compared as spaces; the
  fragments of a discontinuous one joined by a space): a mismatch is an error naming the file
  and line, and says so when the offsets fit the text with its line ends counted the other
  way (CRLF as one character or LF as two) — scoring them would score other characters.
- A discontinuous ``T`` line (``T2<TAB>ORG 0 5;12 20<TAB>...``) is read as its outer extent
  ``[0, 20)`` and counted, so nothing annotated is dropped (semantics §1).
- An event's trigger (the ``T`` line an ``E`` line names first) is not an entity: left out and
  counted, as are relations (``R``), events (``E``), attributes (``A``/``M``),
  normalizations (``N``), notes (``#``) and equivalences (``*``).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from ..engine.spans import Span
from ..errors import InvalidInputError
from .base import Record, char_record, empty_input, not_utf8, note
from .options import ReadingOptions

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
_SPACE = re.compile(r"\s")


NO_ANN = "texts without an .ann file (read without spans)"
LINKED_TWICE = "folders reached twice through links (read once)"


def read_brat(path: Path | str, options: ReadingOptions, notes: Counter[str]) -> Iterator[Record]:
    """One char-unit record per ``.txt`` file under the folder ``path``."""
    root = Path(path)
    if not root.is_dir():
        raise InvalidInputError(
            f"{path}: brat standoff is a folder of .txt and .ann files, not a file"
        )
    files = _files(root, notes)
    if not any(f.suffix == ".ann" for f in files):
        raise empty_input(path, ".ann files")
    for f in files:
        if f.suffix == ".ann" and not f.with_suffix(".txt").is_file():
            raise InvalidInputError(f"{f}: no text file {f.with_suffix('.txt').name} beside it")
    for txt in (f for f in files if f.suffix == ".txt"):
        doc_id = txt.relative_to(root).with_suffix("").as_posix()
        ann = txt.with_suffix(".ann")
        text = _read(txt)
        if not ann.is_file():
            note(notes, NO_ANN)
            yield char_record(str(txt), doc_id, doc_id, text, (), options.side)
            continue
        spans, counts = _annotations(ann, text)
        for what, n in counts.items():
            note(notes, what, n)
        yield char_record(str(ann), doc_id, doc_id, text, spans, options.side)


def brat_fields(path: Path, field: str, options: ReadingOptions) -> Iterator[tuple[str, object]]:
    """Each document's ``folder`` (its sub-folder of ``path``, ``.`` at the top), by its id."""
    for txt in (f for f in _files(path, Counter()) if f.suffix == ".txt"):
        doc_id = txt.relative_to(path).with_suffix("")
        yield doc_id.as_posix(), doc_id.parent.as_posix() if field == "folder" else None


def _files(root: Path, notes: Counter[str]) -> list[Path]:
    """The ``.txt`` and ``.ann`` files under ``root``, in sorted order, links to folders
    followed (each real folder once); a link to a folder above it is an error."""
    found: list[Path] = []
    seen: set[str] = set()

    def walk(folder: Path, above: tuple[str, ...]) -> None:
        real = os.path.realpath(folder)
        if real in above:
            raise InvalidInputError(
                f"{folder}: a link back to {real}, a folder above it (a loop); brat folders "
                "follow links to folders, so remove or replace this one"
            )
        if real in seen:
            note(notes, LINKED_TWICE)
            return
        seen.add(real)
        with os.scandir(folder) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                child = folder / entry.name
                if entry.is_dir():  # (follows links)
                    walk(child, (*above, real))
                elif entry.name.endswith((".txt", ".ann")) and entry.is_file():
                    found.append(child)

    walk(root, ())
    return sorted(found, key=lambda f: f.relative_to(root).with_suffix("").parts + (f.suffix,))


def _read(path: Path) -> str:
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            return fh.read()
    except UnicodeDecodeError as exc:
        raise not_utf8(path, exc) from None


def _annotations(ann: Path, text: str) -> tuple[list[Span], Counter[str]]:
    lines = [line.removesuffix("\r") for line in _read(ann).split("\n")]
    counts: Counter[str] = Counter()
    triggers = _event_triggers(lines)
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
        fields = line.split("\t", 2)
        if len(fields) < 2:
            raise InvalidInputError(
                f"{ann} line {n}: a T line needs an id, a label with "
                f"offsets and the text, tab-separated: {line[:60]!r}"
            )
        if fields[0] in triggers:
            counts["event triggers ignored"] += 1
            continue
        label, _, offsets = fields[1].partition(" ")
        pieces = _pieces(offsets, ann, n)
        if len(fields) > 2:
            _check_text(ann, n, fields[2], text, pieces)
        if len(pieces) > 1:
            counts[DISCONTINUOUS] += 1
        spans.append(Span(min(p[0] for p in pieces), max(p[1] for p in pieces), label))
    return spans, counts


def _event_triggers(lines: list[str]) -> set[str]:
    """The ids of the ``T`` lines that ``E`` lines name as their triggers."""
    triggers = set()
    for line in lines:
        fields = line.split("\t") if line.startswith("E") else []
        if len(fields) > 1 and ":" in fields[1]:
            triggers.add(fields[1].split()[0].split(":", 1)[1])
    return triggers


def _pieces(offsets: str, ann: Path, n: int) -> list[tuple[int, ...]]:
    """A ``T`` line's ``START END[;START END...]`` offsets, or an error naming the line."""
    try:
        pieces = [tuple(int(x) for x in piece.split()) for piece in offsets.split(";")]
        if not pieces or any(len(p) != 2 for p in pieces):
            raise ValueError
    except ValueError:
        raise InvalidInputError(
            f"{ann} line {n}: offsets must be 'START END' pairs separated by ';', not {offsets!r}"
        ) from None
    return pieces


def _same(written: str, found: str) -> bool:
    return written == found or _SPACE.sub(" ", written) == _SPACE.sub(" ", found)


def _slice(text: str, pieces: list[tuple[int, ...]]) -> str:
    return " ".join(text[a:b] for a, b in pieces)


def _check_text(ann: Path, n: int, written: str, text: str, pieces: list[tuple[int, ...]]) -> None:
    """The ``T`` line's text is the ``.txt``'s at its offsets, else an error naming the line
    (and the likely cause when the line ends explain it)."""
    if any(not 0 <= a <= b <= len(text) for a, b in pieces):
        return  # (offsets outside the text: the span's own check names them)
    found = _slice(text, pieces)
    if _same(written, found):
        return
    offsets = ";".join(f"{a} {b}" for a, b in pieces)
    why = ""
    if "\r\n" in text and _same(written, _slice(text.replace("\r\n", "\n"), pieces)):
        why = (
            "; the offsets fit the text with its CRLF line ends counted as one character: "
            "they look CRLF-shifted (brat counts every character of the .txt as it is on "
            "disk: convert the .txt to LF line ends, or recount the offsets)"
        )
    elif "\r" not in text and _same(written, _slice(text.replace("\n", "\r\n"), pieces)):
        why = (
            "; the offsets fit the text with CRLF line ends: they look CRLF-shifted (counted "
            "on a copy with CRLF line ends, while this .txt has LF)"
        )
    raise InvalidInputError(
        f"{ann} line {n}: the annotation's text {written!r} is not the .txt's characters "
        f"at {offsets} ({found!r}){why}"
    )
