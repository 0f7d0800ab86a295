"""How to read: :class:`ReadingOptions` for a pair of files (what every command takes) and the
per-side :class:`ReadOptions` that a single reader gets.

Every format reads the options that concern it and ignores the others (a JSON reader has no
tag column). The command line's input flags fill a :class:`ReadingOptions` field by field
(``spacy_span_eval.cli.options``); :meth:`ReadingOptions.side` hands each file its own.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

__all__ = ["ReadOptions", "ReadingOptions"]


@dataclass(frozen=True)
class ReadOptions:
    """Reader settings for one side; each format uses the ones that concern it."""

    scheme: str = "IOB2"
    repair: str = "conlleval"
    tag_column: int = -1
    delimiter: str = "auto"
    comment: str | None = "#"
    side: str = "gold"
    vocab: object = None
    #: Where a reader counts what it read differently or left out (``"relations ignored"``,
    #: ``"rejected answers skipped"``); ``None``: not counted.
    notes: Counter | None = None

    def note(self, what: str, n: int = 1) -> None:
        """Count ``n`` of ``what`` in :attr:`notes` (when there is a counter)."""
        if self.notes is not None and n:
            self.notes[what] += n


@dataclass(frozen=True)
class ReadingOptions:
    """How to read gold and predictions (or run a pipeline over gold) into documents.

    ``input_format``: ``conll``, ``jsonl``, ``presidio`` or ``spacy`` for both files (``None``:
    from each file name). ``unit``: ``token`` or ``char`` (``None``: the gold format's own).
    ``scheme``, ``repair``, ``tag_column``, ``delimiter``: CoNLL; ``pred_tag_column`` is the
    predictions file's tag column when it differs from ``tag_column``. ``source``: ``"ents"``
    or a span group key, for ``.spacy`` files and pipelines. ``n_process``: worker processes,
    for ``nlp.pipe`` when a pipeline predicts, else for scoring (the same numbers either
    way). ``batch_size``: the pipeline's ``nlp.pipe`` batch size. ``align``: ``"text"`` (the
    token strings must agree) or ``"position"`` (CoNLL: pair each sentence's tokens by
    position, as conlleval does, and count the ones whose strings differ). ``code``: a Python
    file imported before the pipeline is loaded (its registered functions and components, as
    spaCy's ``--code``); ``gpu_id``: run the pipeline on this GPU (``-1``: CPU), as spaCy's
    ``--gpu-id``.
    """

    input_format: str | None = None
    unit: str | None = None
    scheme: str = "IOB2"
    repair: str = "conlleval"
    tag_column: int = -1
    pred_tag_column: int | None = None
    delimiter: str = "auto"
    source: str = "ents"
    n_process: int = 1
    batch_size: int = 256
    align: str = "text"
    code: str | None = None
    gpu_id: int = -1

    def side(self, side: str = "gold") -> ReadOptions:
        """The reader settings of one side (``"gold"`` or ``"predicted"``)."""
        if side not in ("gold", "predicted"):
            raise ValueError(f"side must be 'gold' or 'predicted', not {side!r}")
        column = self.tag_column
        if side == "predicted" and self.pred_tag_column is not None:
            column = self.pred_tag_column
        return ReadOptions(scheme=self.scheme, repair=self.repair, tag_column=column,
                           delimiter=self.delimiter, side=side)
