"""Hugging Face ``evaluate``'s "seqeval" metric as one function, and the usual
``compute_metrics`` input turned into tag lists.

:func:`compute` returns the metric's dict, key for key: per type ``precision``, ``recall``,
``f1``, ``number``; ``overall_precision``, ``overall_recall``, ``overall_f1`` (micro) and
``overall_accuracy`` (tokens). With ``strategy="two_sided"`` it adds the project's two-sided
partial-match figures (docs/two_sided.md) beside them, scored by the engine on the same chunks
in token offsets, each sentence a document: ``overall_iou_precision``, ``overall_iou_recall``,
``overall_iou_f`` and, per type, ``iou_precision``, ``iou_recall``, ``iou_f`` at the first
threshold; at each further threshold ``t`` the same keys with ``@t`` appended
(``overall_iou_f@0.75``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..engine.columns import INT, SpanColumns
from ..engine.evaluator import SpanEvaluator
from ..engine.ledger import Ledger, has_spans
from ..engine.verdicts import count_rows
from ._scores import count, report, zero_value
from ._tags import Chunks, Decoded, check_lengths, decode
from .scheme import SCHEMES, auto_detect

__all__ = ["compute", "tags_from_ids"]

IGNORE_INDEX = -100


def compute(
    *,
    predictions: Sequence[Sequence[str]],
    references: Sequence[Sequence[str]],
    suffix: bool = False,
    scheme: str | None = None,
    mode: str | None = None,
    sample_weight: Sequence[float] | None = None,
    zero_division: str | int = "warn",
    strategy: str | None = None,
    thresholds: Sequence[float] = (0.5,),
) -> dict[str, Any]:
    """What ``evaluate.load("seqeval").compute(...)`` returns for these arguments (``scheme``
    by name, as there), plus the two-sided figures when ``strategy="two_sided"``.

    >>> tags = [["B-PER", "I-PER", "O"]]
    >>> scores = compute(predictions=tags, references=tags)
    >>> scores["overall_f1"], scores["PER"]["number"]
    (np.float64(1.0), np.int64(1))
    """
    if strategy not in (None, "two_sided"):
        raise ValueError(f"strategy must be None or 'two_sided', not {strategy!r}")
    if scheme is not None and scheme not in SCHEMES:
        raise ValueError(
            f"Scheme should be one of [IOB1, IOB2, IOE1, IOE2, IOBES, BILOU], got {scheme}"
        )
    found = None if scheme is None else SCHEMES[scheme]
    if mode == "strict":
        check_lengths(references, predictions)
        found = found or auto_detect(references, suffix)
        both = decode(references, predictions, suffix=suffix, scheme=found)
    else:
        both = decode(references, predictions, suffix=suffix, scheme=None)
        check_lengths(references, predictions)
    scores = _seqeval_scores(both, zero_division)
    if strategy == "two_sided":
        _two_sided(scores, both, tuple(thresholds), zero_value(zero_division))
    return scores


def _seqeval_scores(both: Decoded, zero_division: str | int) -> dict[str, Any]:
    """The metric's dict: per type, overall (micro) and the token accuracy."""
    figures = report(
        count(both), digits=2, output_dict=True, zero_division=zero_division, before_each=both.again
    )
    assert isinstance(figures, dict)
    figures.pop("macro avg")
    figures.pop("weighted avg")
    overall = figures.pop("micro avg")
    keys = {"precision": "precision", "recall": "recall", "f1": "f1-score", "number": "support"}
    scores: dict[str, Any] = {
        name: {key: row[field] for key, field in keys.items()} for name, row in figures.items()
    }
    scores.update({f"overall_{k}": overall[keys[k]] for k in ("precision", "recall", "f1")})
    # Both sides are laid out alike (the lengths were checked): compare every position and
    # leave out the O laid after each sentence and at the end.
    ids_true, ids_pred = both.enc_true.ids, both.enc_pred.ids
    laid = int(np.count_nonzero(ids_true == ids_pred))
    n_tokens = int(both.enc_true.lengths.sum())
    scores["overall_accuracy"] = (laid - (ids_true.shape[0] - n_tokens)) / n_tokens
    return scores


def _two_sided(
    scores: dict[str, Any], both: Decoded, thresholds: tuple[float, ...], zero: float
) -> None:
    """Add the engine's two-sided figures per type and overall. Only what is returned is
    scored: the labels level, no any-entity pass, no error records."""
    strategy = SpanEvaluator(strategy="two_sided", thresholds=thresholds, unit="token").strategy
    gold, pred = _documents(both)
    n = len(both.types)
    match = strategy.match(gold, pred, n)
    rows = count_rows(gold.label, pred.label, match, n, np.zeros(0, dtype=INT))
    for k, threshold in enumerate(thresholds):
        tail = "" if k == 0 else f"@{threshold:g}"
        ledgers: dict[str | None, Ledger] = {None: Ledger.from_row(rows[k].sum(axis=0))}
        for t in np.flatnonzero(has_spans(rows[k])).tolist():
            ledgers[both.types[t]] = Ledger.from_row(rows[k, t])
        for name, ledger in ledgers.items():
            row = scores if name is None else scores[name]
            stem = "overall_iou_" if name is None else "iou_"
            row[f"{stem}precision{tail}"] = ledger.precision(zero)
            row[f"{stem}recall{tail}"] = ledger.recall(zero)
            row[f"{stem}f{tail}"] = ledger.f(zero_division=zero)


def _documents(both: Decoded) -> tuple[SpanColumns, SpanColumns]:
    """Both sides' chunks as spans of documents in token offsets, one document per sentence;
    sentences stay joined where a chunk runs over the ``O`` laid between them (seqeval reads
    some odd tags so), so that every chunk meets the chunks it meets in the laid-out tags."""
    enc = both.enc_true
    n = enc.lengths.shape[0]
    sentence_at = np.repeat(np.arange(n), enc.lengths + 1)  # the O after each sentence included
    # open_after[s]: how many chunks run on from sentence s into the next
    open_after = np.zeros(n + 1, dtype=INT)
    for chunks in (both.true, both.pred):
        open_after += np.bincount(sentence_at[chunks.first], minlength=n + 1)
        open_after -= np.bincount(sentence_at[chunks.stop - 1], minlength=n + 1)
    cut = np.cumsum(open_after[: n - 1]) == 0
    doc_at = np.append(0, np.cumsum(cut))[sentence_at]  # each position's document
    begin = enc.sentence_first[np.append(0, np.flatnonzero(cut) + 1)]

    def columns(chunks: Chunks) -> SpanColumns:
        doc = doc_at[chunks.first]  # grouped: chunks come in order
        at = begin[doc]
        item = np.arange(len(chunks))  # the row within its document
        item -= np.searchsorted(doc, np.arange(begin.shape[0]))[doc]
        return SpanColumns.from_arrays(doc, chunks.first - at, chunks.stop - at, chunks.type, item)

    return columns(both.true), columns(both.pred)


def tags_from_ids(
    predictions: Any,
    label_ids: Any,
    id2label: Mapping[int, str] | Sequence[str],
    *,
    ignore_index: int = IGNORE_INDEX,
) -> tuple[list[list[str]], list[list[str]]]:
    """``(predicted tags, true tags)`` from a Trainer's ``EvalPrediction`` arrays.

    ``predictions``: logits of shape ``(n, length, n_labels)`` (the label is the argmax over
    the last axis) or label ids of shape ``(n, length)``, or a tuple whose first item is one of
    them (what the Trainer hands over for a model with several outputs); ``label_ids``:
    ``(n, length)`` with ``ignore_index`` (-100) where a position is not scored (padding,
    sub-word pieces).
    ``id2label``: the model config's map, or a list of tag names.

    >>> logits = np.array([[[0.1, 0.9, 0.0], [0.8, 0.1, 0.1], [0.2, 0.3, 0.5]]])
    >>> tags_from_ids(logits, np.array([[1, -100, 2]]), {0: "O", 1: "B-PER", 2: "I-PER"})
    ([['B-PER', 'I-PER']], [['B-PER', 'I-PER']])
    """
    labels = np.asarray(label_ids)
    given = np.asarray(predictions[0] if isinstance(predictions, tuple) else predictions)
    preds = given.argmax(axis=-1) if given.ndim == labels.ndim + 1 else given
    if preds.shape != labels.shape:
        raise ValueError(
            f"predictions of shape {given.shape} do not fit label ids of shape "
            f"{labels.shape}: give logits (..., n_labels) or ids of the labels' shape"
        )
    pairs = id2label.items() if isinstance(id2label, Mapping) else enumerate(id2label)
    by_id = {int(k): name for k, name in pairs}
    # the None after the names: an id the map does not name (a gap, past its end, negative)
    names = np.array([*map(by_id.get, range(max(by_id, default=-1) + 2))], dtype=object)
    kept = labels != ignore_index
    lengths = kept.reshape(labels.shape[0], -1).sum(axis=1).tolist()
    ends = np.cumsum([0, *lengths]).tolist()
    ids = np.concatenate([preds[kept], labels[kept]])
    at = np.where((ids >= 0) & (ids < len(names)), ids, -1)
    unnamed = (names == None)[at]  # noqa: E711 (each name, not the array)
    if unnamed.any():
        raise ValueError(
            f"label id {ids[unnamed.argmax()]} is not in id2label; a position that is not "
            f"scored must hold ignore_index ({ignore_index})"
        )
    tags = names[at].tolist()
    pred_tags, true_tags = tags[: ends[-1]], tags[ends[-1] :]
    return (
        [pred_tags[a:b] for a, b in zip(ends[:-1], ends[1:], strict=True)],
        [true_tags[a:b] for a, b in zip(ends[:-1], ends[1:], strict=True)],
    )
