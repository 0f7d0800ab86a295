"""spacy-span-eval: two-sided IoU span evaluation for spaCy NER and span categorization."""

from __future__ import annotations

from .batching import SpanBatch
from .bootstrap import BootstrapIntervals, PairedTest, bootstrap_intervals, paired_test
from .columns import SpanColumns
from .commands import evaluate_files, gate_files
from .engine import SpanEvaluator
from .errors import (
    DocumentMismatchError,
    EmptyEvaluationError,
    InvalidInputError,
    InvalidSpanError,
    SpanEvalError,
    UnknownLabelError,
)
from .gates import Floors, GateVerdict, check_gate, load_floors
from .labels import Hierarchy, LabelMap
from .labels_io import load_hierarchy, load_label_map
from .ledger import Ledger
from .records import ErrorRecord
from .result import EvaluationResult, ThresholdScores
from .settings import Settings
from .spans import Document, Span
from .tally import Tally

__version__ = "0.1.0"

# Imported on first use: these load spaCy (displaCy rendering, Doc conversion).
_LAZY = {
    "compare_files": "compare",
    "report_files": "report",
    "docs_to_document": "spacy_docs",
    "example_to_document": "spacy_docs",
}


def __getattr__(name: str):
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BootstrapIntervals",
    "Floors",
    "GateVerdict",
    "PairedTest",
    "bootstrap_intervals",
    "check_gate",
    "compare_files",
    "docs_to_document",
    "evaluate_files",
    "example_to_document",
    "gate_files",
    "load_floors",
    "load_hierarchy",
    "load_label_map",
    "paired_test",
    "report_files",
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
