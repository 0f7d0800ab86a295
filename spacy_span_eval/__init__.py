"""spacy-span-eval: two-sided IoU span evaluation for spaCy NER and span categorization."""

from __future__ import annotations

import importlib as _importlib
import typing as _typing

from .about import __version__

# Every name is imported on first use (PEP 562): plain imports would load numpy (the engine),
# the readers and the API's jobs for ``import spacy_span_eval`` or ``--version``, and a
# command imports only what it runs (``evaluate`` on two CoNLL files needs no bootstrap, no
# JSON decoder; tests/test_imports_on_demand.py holds it so).
_LAZY = {
    "SpanBatch": "engine.batching",
    "BootstrapIntervals": "engine.bootstrap",
    "PairedTest": "engine.paired",
    "bootstrap_intervals": "engine.bootstrap",
    "paired_test": "engine.paired",
    "SpanColumns": "engine.columns",
    "SpanEvaluator": "engine.evaluator",
    "Floors": "engine.gates",
    "GateVerdict": "engine.gates",
    "check_gate": "engine.gates",
    "Hierarchy": "engine.labels",
    "LabelMap": "engine.labels",
    "Ledger": "engine.ledger",
    "ErrorRecord": "engine.records",
    "EvaluationResult": "engine.result",
    "ThresholdScores": "engine.result",
    "Settings": "engine.settings",
    "Document": "engine.spans",
    "Span": "engine.spans",
    "Tally": "engine.tally",
    "DocumentMismatchError": "errors",
    "EmptyEvaluationError": "errors",
    "InvalidInputError": "errors",
    "InvalidSpanError": "errors",
    "SpanEvalError": "errors",
    "UnknownLabelError": "errors",
    "load_floors": "readers.settings_files",
    "load_hierarchy": "readers.settings_files",
    "load_label_map": "readers.settings_files",
    "compare_files": "api",
    "evaluate_files": "api",
    "gate_files": "api",
    "report_files": "api",
    "docs_to_document": "adapters.spacy_docs",
    "example_to_document": "adapters.spacy_docs",
}

if _typing.TYPE_CHECKING:  # the same names, for type checkers and editors
    from .adapters.spacy_docs import docs_to_document, example_to_document
    from .api import compare_files, evaluate_files, gate_files, report_files
    from .engine.batching import SpanBatch
    from .engine.bootstrap import BootstrapIntervals, bootstrap_intervals
    from .engine.columns import SpanColumns
    from .engine.evaluator import SpanEvaluator
    from .engine.gates import Floors, GateVerdict, check_gate
    from .engine.labels import Hierarchy, LabelMap
    from .engine.ledger import Ledger
    from .engine.paired import PairedTest, paired_test
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


def __getattr__(name: str) -> object:
    if name in _LAZY:
        value = getattr(_importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value  # (looked up once)
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


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
