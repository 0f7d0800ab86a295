"""spacy-span-eval: two-sided IoU span evaluation for spaCy NER and span categorization."""

from __future__ import annotations

from .batching import SpanBatch
from .columns import SpanColumns
from .engine import SpanEvaluator
from .errors import (
    DocumentMismatchError,
    EmptyEvaluationError,
    InvalidInputError,
    InvalidSpanError,
    SpanEvalError,
    UnknownLabelError,
)
from .labels import Hierarchy, LabelMap
from .ledger import Ledger
from .records import ErrorRecord
from .result import EvaluationResult, ThresholdScores
from .settings import Settings
from .spans import Document, Span
from .tally import Tally

__version__ = "0.1.0"

__all__ = [
    "Document",
    "DocumentMismatchError",
    "EmptyEvaluationError",
    "ErrorRecord",
    "EvaluationResult",
    "Hierarchy",
    "InvalidInputError",
    "InvalidSpanError",
    "LabelMap",
    "Ledger",
    "Settings",
    "Span",
    "SpanBatch",
    "SpanColumns",
    "SpanEvalError",
    "SpanEvaluator",
    "Tally",
    "ThresholdScores",
    "UnknownLabelError",
    "__version__",
]
