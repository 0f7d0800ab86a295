"""Hugging Face ``evaluate``'s "seqeval" metric, rebuilt from seqeval 1.2.2 as that metric
builds its dict: a ``classification_report`` with ``output_dict=True``, the micro row as the
overall figures, the macro and weighted rows dropped, and token accuracy. The reference for
``spacy_span_eval.seqeval.compute`` in the tests and in ``bench/bench_seqeval_dropin.py``."""

from __future__ import annotations

from typing import Any

from seqeval import scheme as ref_scheme
from seqeval.metrics import accuracy_score, classification_report


def evaluate_style(
    predictions: list[list[str]], references: list[list[str]], **options: Any
) -> dict[str, Any]:
    """The dict evaluate's metric returns, built from seqeval the way the metric builds it.
    ``options``: seqeval's keywords, ``scheme`` by name (``"IOB2"``)."""
    scheme = options.pop("scheme", None)
    if scheme is not None:
        scheme = getattr(ref_scheme, scheme)
    report = classification_report(
        references, predictions, output_dict=True, scheme=scheme, **options
    )
    report.pop("macro avg")
    report.pop("weighted avg")
    overall = report.pop("micro avg")
    scores: dict[str, Any] = {
        name: {
            "precision": row["precision"],
            "recall": row["recall"],
            "f1": row["f1-score"],
            "number": row["support"],
        }
        for name, row in report.items()
    }
    scores["overall_precision"] = overall["precision"]
    scores["overall_recall"] = overall["recall"]
    scores["overall_f1"] = overall["f1-score"]
    scores["overall_accuracy"] = accuracy_score(references, predictions)
    return scores
