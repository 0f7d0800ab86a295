"""A drop-in for ``seqeval.metrics`` and for Hugging Face ``evaluate``'s "seqeval" metric:
the same figures from the same calls, computed on arrays.

Change the import (``from seqeval.metrics import f1_score`` ->
``from spacy_span_eval.seqeval import f1_score``) and nothing else; see docs/seqeval.md.
"""

from __future__ import annotations

from .hf import compute, tags_from_ids
from .metrics import (
    accuracy_score,
    classification_report,
    f1_score,
    get_entities,
    performance_measure,
    precision_recall_fscore_support,
    precision_score,
    recall_score,
)
from .scheme import BILOU, IOB1, IOB2, IOBES, IOE1, IOE2

__all__ = [
    "BILOU",
    "IOB1",
    "IOB2",
    "IOBES",
    "IOE1",
    "IOE2",
    "accuracy_score",
    "classification_report",
    "compute",
    "f1_score",
    "get_entities",
    "performance_measure",
    "precision_recall_fscore_support",
    "precision_score",
    "recall_score",
    "tags_from_ids",
]
