"""Who the annotators of ``agree`` are and what each gave: one file or folder per annotator,
or one multi-annotator export read once per annotator it lists; each annotator's records by
document id (by position when no file has ids)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import attrs

from ..errors import InvalidInputError
from ..readers import doccano, labelstudio, prodigy
from ..readers.base import Record
from ..readers.detect import input_format
from ..readers.options import ReadingOptions
from ..readers.source import read_records

__all__ = ["LISTS_ANNOTATORS", "Annotator", "annotator_names", "read_annotators"]

#: How each multi-annotator export lists its annotators (when ``--annotators`` is not given).
LISTS_ANNOTATORS: dict[str, Callable[[Path | str], list[str]]] = {
    "prodigy": prodigy.annotators,
    "labelstudio": labelstudio.annotators,
    "labelstudio-min": partial(labelstudio.annotators, min_format=True),
    "doccano": doccano.annotators,
}


@dataclass
class Annotator:
    """One annotator's documents, by id, in file order."""

    name: str
    path: str
    format: str
    records: dict[str, Record]


def annotator_names(paths: Sequence[Path | str]) -> list[str]:
    """Each file's stem (its full path where two stems are alike)."""
    stems = [Path(str(p)).stem for p in paths]
    return [s if stems.count(s) == 1 else str(p) for s, p in zip(stems, paths, strict=True)]


def _read(name: str, path: Path | str, reading: ReadingOptions) -> Annotator:
    """An annotator's records by id; a repeated id is an error naming it."""
    fmt = input_format(path, reading.input_format)
    records: dict[str, Record] = {}
    for r in read_records(path, fmt.name, reading.for_side("gold"), Counter()):
        key = r.id if r.id is not None else f"#{len(records) + 1}"
        if key in records:
            raise InvalidInputError(f"{r.where}: document id {key!r} appears twice in {path}")
        records[key] = r
    if not records:
        raise InvalidInputError(f"{path}: no documents found (empty input)")
    return Annotator(name, str(path), fmt.name, records)


def _check_keys(annotators: Sequence[Annotator]) -> None:
    """Files without ids pair by position: all of them then, and with as many documents."""
    positional = [a for a in annotators if next(iter(a.records)).startswith("#")]
    if positional and len(positional) < len(annotators):
        raise InvalidInputError(
            f"{positional[0].path}: documents have no ids, but other annotators' files have; "
            "give every file ids, or none"
        )
    sizes = {len(a.records) for a in positional}
    if len(sizes) > 1:
        raise InvalidInputError(
            "annotators' files have no document ids and different numbers of documents "
            f"({', '.join(f'{a.path}: {len(a.records)}' for a in positional)}); give ids"
        )


def _who(
    paths: Sequence[Path | str],
    names: Sequence[str] | None,
    annotators: Sequence[str] | None,
    reading: ReadingOptions,
) -> tuple[list[str], Sequence[Path | str], list[ReadingOptions]]:
    """Each annotator's name, file and reading: one file or folder each, or one
    multi-annotator export read once per annotator it lists (or ``annotators`` names);
    refused unless two or more, each with its own name."""
    readings = [reading] * len(paths)
    if len(paths) == 1 and not annotators:
        lister = LISTS_ANNOTATORS.get(input_format(paths[0], reading.input_format).name)
        annotators = lister(paths[0]) if lister else None
    if annotators:
        if len(paths) != 1:
            raise InvalidInputError("--annotators reads one multi-annotator export; give one file")
        if reading.annotator is not None:
            raise InvalidInputError(
                f"--annotator {reading.annotator}: agree reads each annotator of {paths[0]}; "
                "choose them with --annotators NAME,NAME,..."
            )
        paths = list(paths) * len(annotators)
        readings = [attrs.evolve(reading, annotator=a) for a in annotators]
        names = names or annotators
    if len(paths) < 2:
        raise InvalidInputError(
            "agree needs at least two annotators: a file or folder each, or one "
            "multi-annotator export with --annotators NAME,NAME,..."
        )
    names = list(names) if names is not None else annotator_names(paths)
    if len(names) != len(paths) or len(set(names)) != len(names) or not all(names):
        raise InvalidInputError(
            f"the {len(paths)} annotators need one distinct name each, not {', '.join(names)} "
            "(--names NAME,...)"
        )
    return names, paths, readings


def read_annotators(
    paths: Sequence[Path | str],
    names: Sequence[str] | None,
    annotators: Sequence[str] | None,
    reading: ReadingOptions,
) -> list[Annotator]:
    """The annotators :func:`_who` finds, each read; files without ids pair by position."""
    people = [_read(*job) for job in zip(*_who(paths, names, annotators, reading), strict=True)]
    _check_keys(people)
    return people
