"""spacy-span-eval: two-sided IoU span evaluation for spaCy NER and span categorization."""

from __future__ import annotations

from .about import __version__
from .engine.batching import SpanBatch
from .engine.bootstrap import BootstrapIntervals, PairedTest, bootstrap_intervals, paired_test
from .engine.columns import SpanColumns
from .engine.evaluator import SpanEvaluator
from .engine.gates import Floors, GateVerdict, check_gate
from .engine.labels import Hierarchy, LabelMap
from .engine.ledger import Ledger
from .engine.records import ErrorRecord
from .engine.result import EvaluationResult, ThresholdScores
from .engine.settings import Settings
from .engine.spans import Document, Span
from .engine.tally import Tally
from .errors import (
    DocumentMismatchError,
    EmptyEvaluationError,
    InvalidInputError,
    InvalidSpanError,
    SpanEvalError,
    UnknownLabelError,
)
from .readers.settings_files import load_floors, load_hierarchy, load_label_map

# Imported on first use: these load spaCy (displaCy rendering, Doc conversion).
_LAZY = {
    "compare_files": "api",
    "evaluate_files": "api",
    "gate_files": "api",
    "report_files": "api",
    "docs_to_document": "adapters.spacy_docs",
    "example_to_document": "adapters.spacy_docs",
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
