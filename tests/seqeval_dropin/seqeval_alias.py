"""A pytest plugin (``-p seqeval_alias``) that resolves ``seqeval``, ``seqeval.metrics``,
``seqeval.metrics.sequence_labeling`` and ``seqeval.scheme`` to spacy_span_eval.seqeval, so
that seqeval's own test file runs, unchanged, against this package."""

from __future__ import annotations

import sys

from spacy_span_eval import seqeval
from spacy_span_eval.seqeval import metrics, scheme

ALIASES = {
    "seqeval": seqeval,
    "seqeval.metrics": metrics,
    "seqeval.metrics.sequence_labeling": metrics,
    "seqeval.scheme": scheme,
}
sys.modules.update(ALIASES)


def pytest_report_header() -> str:
    return f"seqeval resolved to {metrics.__name__} (file {metrics.__file__})"
