"""A toy input format, as a user would add one: one module with its reader, plus one registry
line (:data:`TOY`; the tests register it and take it away again).

Each line is ``id<TAB>text<TAB>start:end:LABEL,start:end:LABEL...`` (character offsets).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from spacy_span_eval.engine.spans import Span
from spacy_span_eval.readers.base import Record, char_record, note
from spacy_span_eval.readers.formats import InputFormat
from spacy_span_eval.readers.options import ReadingOptions


def read_toy(path: Path, options: ReadingOptions, notes: Counter) -> Iterator[Record]:
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                note(notes, "blank lines skipped")
                continue
            doc_id, text, spans = line.rstrip("\n").split("\t")
            parsed = [
                Span(int(s), int(e), label)
                for s, e, label in (item.split(":") for item in spans.split(",") if item)
            ]
            yield char_record(f"{path} line {n}", f"{path}:{n}", doc_id, text, parsed, options.side)


TOY = InputFormat("toy", read_toy, suffixes=(".toy",))
