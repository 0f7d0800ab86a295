"""The functions of ``seqeval.metrics`` (1.2.2), same signatures, defaults, return types,
warnings and errors, computed on arrays.

``mode=None`` is seqeval's default (conlleval-style) chunking; ``mode="strict"`` with a
``scheme`` (one of :mod:`.scheme`'s classes, seqeval's own class of the same name, or its name)
is its strict mode. ``sample_weight`` is accepted and, as in seqeval, has no effect
(docs/seqeval.md lists this and seqeval's other documented defects, reproduced here).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._scores import EVERY, check_average, count, prf, report
from ._tags import check_lengths, decode, encode, lenient_chunks, parse_tags
from .scheme import Token, auto_detect, resolve_scheme

__all__ = [
    "accuracy_score",
    "classification_report",
    "f1_score",
    "get_entities",
    "performance_measure",
    "precision_recall_fscore_support",
    "precision_score",
    "recall_score",
]

Tags = Sequence[Any]


def get_entities(seq: Tags, suffix: bool = False) -> list[tuple[str, int, int]]:
    """Chunks of a tag list (or of a list of tag lists, laid end to end with an ``O`` between
    sentences) as ``(type, first, last)``, ``last`` inclusive, in the order they end.

    >>> get_entities(["B-PER", "I-PER", "O", "B-LOC"])
    [('PER', 0, 1), ('LOC', 3, 3)]
    """
    (enc,) = encode(seq)
    tags = parse_tags(enc.vocab, suffix, strict=False)
    chunks = lenient_chunks(enc, tags)
    names = [tags.types[t] for t in chunks.type.tolist()]
    return list(zip(names, chunks.first.tolist(), (chunks.stop - 1).tolist(), strict=True))


def precision_recall_fscore_support(
    y_true: Tags,
    y_pred: Tags,
    *,
    average: str | None = None,
    warn_for: Sequence[str] = EVERY,
    beta: float = 1.0,
    sample_weight: Sequence[float] | None = None,
    zero_division: str | int = "warn",
    suffix: bool = False,
) -> tuple[Any, Any, Any, Any]:
    """Precision, recall, F-beta and support per type (``average=None``) or averaged
    (``"micro"``, ``"macro"``, ``"weighted"``), in seqeval's default mode.

    >>> y_true = [["O", "B-MISC", "I-MISC", "O"], ["B-PER", "I-PER", "O"]]
    >>> y_pred = [["B-MISC", "I-MISC", "I-MISC", "O"], ["B-PER", "I-PER", "O"]]
    >>> precision_recall_fscore_support(y_true, y_pred, average="micro")
    (np.float64(0.5), np.float64(0.5), np.float64(0.5), np.int64(2))
    """
    return _prfs(y_true, y_pred, average, warn_for, beta, zero_division, suffix, scheme=None)


def _prfs(
    y_true: Tags,
    y_pred: Tags,
    average: str | None,
    warn_for: Sequence[str],
    beta: float,
    zero_division: object,
    suffix: bool,
    scheme: type[Token] | None,
) -> tuple[Any, Any, Any, Any]:
    check_average(average, beta)
    check_lengths(y_true, y_pred)
    counts = count(decode(y_true, y_pred, suffix=suffix, scheme=scheme))
    return prf(counts, average=average, warn_for=warn_for, beta=beta, zero_division=zero_division)


def _score(
    which: int,
    y_true: Tags,
    y_pred: Tags,
    average: str | None,
    suffix: bool,
    mode: str | None,
    zero_division: object,
    scheme: object,
) -> Any:
    """One of precision, recall and F1 (``which``: its index in :data:`EVERY`), warning for
    that one alone, as seqeval's ``precision_score``, ``recall_score`` and ``f1_score``."""
    strict: type[Token] | None = None  # strict mode: mode="strict" and a scheme both
    if mode == "strict" and scheme:
        strict = resolve_scheme(scheme)
        if strict is None:
            raise TypeError(f"scheme {scheme!r} is not one of IOB1, IOB2, IOE1, IOE2, IOBES, BILOU")
    warn_for = (EVERY[which],)
    return _prfs(y_true, y_pred, average, warn_for, 1.0, zero_division, suffix, strict)[which]


def precision_score(
    y_true: Tags,
    y_pred: Tags,
    *,
    average: str | None = "micro",
    suffix: bool = False,
    mode: str | None = None,
    sample_weight: Sequence[float] | None = None,
    zero_division: str | int = "warn",
    scheme: object = None,
) -> Any:
    """Chunk precision: micro-averaged by default, per type (an array) with ``average=None``.

    >>> precision_score([["B-PER", "I-PER", "O"]], [["B-PER", "I-PER", "B-LOC"]])
    np.float64(0.5)
    """
    return _score(0, y_true, y_pred, average, suffix, mode, zero_division, scheme)


def recall_score(
    y_true: Tags,
    y_pred: Tags,
    *,
    average: str | None = "micro",
    suffix: bool = False,
    mode: str | None = None,
    sample_weight: Sequence[float] | None = None,
    zero_division: str | int = "warn",
    scheme: object = None,
) -> Any:
    """Chunk recall: micro-averaged by default, per type (an array) with ``average=None``.

    >>> recall_score([["B-PER", "I-PER", "B-LOC"]], [["B-PER", "I-PER", "O"]])
    np.float64(0.5)
    """
    return _score(1, y_true, y_pred, average, suffix, mode, zero_division, scheme)


def f1_score(
    y_true: Tags,
    y_pred: Tags,
    *,
    average: str | None = "micro",
    suffix: bool = False,
    mode: str | None = None,
    sample_weight: Sequence[float] | None = None,
    zero_division: str | int = "warn",
    scheme: object = None,
) -> Any:
    """Chunk F1: micro-averaged by default, per type (an array) with ``average=None``.

    >>> f1_score([["B-ORG", "I-ORG"]], [["I-ORG", "I-ORG"]])
    np.float64(1.0)
    >>> f1_score([["B-ORG", "I-ORG"]], [["I-ORG", "I-ORG"]], mode="strict", scheme="IOB2")
    np.float64(0.0)
    """
    return _score(2, y_true, y_pred, average, suffix, mode, zero_division, scheme)


def _flat_pair(y_true: Tags, y_pred: Tags) -> tuple[np.ndarray, np.ndarray, int]:
    """Both sides as id arrays over one vocabulary (``O`` is 0), flattened when ``y_true``
    holds lists; and ``len(y_true)`` after flattening."""
    nested = any(isinstance(s, list) for s in y_true)
    # drop the O laid after every sentence, and the one at the end
    ids_true, ids_pred = (
        np.delete(enc.ids[:-1], enc.sentence_first + enc.lengths)
        for enc in encode(y_true, y_pred, nested=nested)
    )
    n = min(ids_true.shape[0], ids_pred.shape[0])
    return ids_true[:n], ids_pred[:n], int(ids_true.shape[0])


def accuracy_score(y_true: Tags, y_pred: Tags) -> float:
    """The share of tokens whose tags agree (flattened when ``y_true`` holds lists).

    >>> accuracy_score([["O", "B-PER", "I-PER"]], [["O", "B-PER", "O"]])
    0.6666666666666666
    """
    ids_true, ids_pred, n_true = _flat_pair(y_true, y_pred)
    return int(np.count_nonzero(ids_true == ids_pred)) / n_true


def performance_measure(y_true: Tags, y_pred: Tags) -> dict[str, int]:
    """Token counts: ``TP`` (equal and not both ``O``), ``FP`` (differ, predicted not ``O``),
    ``FN`` (true not ``O``, predicted ``O``), ``TN`` (both ``O``).

    >>> performance_measure([["O", "B-PER", "I-PER"]], [["O", "B-PER", "O"]])
    {'TP': 1, 'FP': 0, 'FN': 1, 'TN': 1}
    """
    t, p, _ = _flat_pair(y_true, y_pred)
    equal = t == p
    t_out, p_out = t == 0, p == 0
    return {
        "TP": int(np.count_nonzero(equal & ~t_out)),
        "FP": int(np.count_nonzero(~equal & ~p_out)),
        "FN": int(np.count_nonzero(~t_out & p_out)),
        "TN": int(np.count_nonzero(equal & t_out)),
    }


def classification_report(
    y_true: Tags,
    y_pred: Tags,
    digits: int = 2,
    suffix: bool = False,
    output_dict: bool = False,
    mode: str | None = None,
    sample_weight: Sequence[float] | None = None,
    zero_division: str | int = "warn",
    scheme: object = None,
) -> str | dict[str, dict[str, Any]]:
    """Per-type precision, recall, F1 and support, then micro, macro and weighted averages:
    seqeval's text table, or a dict with ``output_dict=True``.

    >>> print(classification_report([["B-PER", "I-PER", "B-LOC"]], [["B-PER", "O", "B-LOC"]]))
                  precision    recall  f1-score   support
    <BLANKLINE>
             LOC       1.00      1.00      1.00         1
             PER       0.00      0.00      0.00         1
    <BLANKLINE>
       micro avg       0.50      0.50      0.50         2
       macro avg       0.50      0.50      0.50         2
    weighted avg       0.50      0.50      0.50         2
    <BLANKLINE>
    """
    if mode == "strict":
        check_lengths(y_true, y_pred)
        found = resolve_scheme(scheme) or auto_detect(y_true, suffix)
        counts = count(decode(y_true, y_pred, suffix=suffix, scheme=found))
        return report(counts, digits=digits, output_dict=output_dict, zero_division=zero_division)
    # Default mode fails and warns where seqeval does: it decodes each side five times
    # (warning each time), and sizes the text table before it checks the lengths.
    both = decode(y_true, y_pred, suffix=suffix, scheme=None)
    counts = count(both)
    if not output_dict and not counts.names:
        raise ValueError("max() arg is an empty sequence")
    check_lengths(y_true, y_pred)
    return report(
        counts,
        digits=digits,
        output_dict=output_dict,
        zero_division=zero_division,
        before_each=both.again,
    )
