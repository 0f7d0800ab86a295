"""A drop-in for ``seqeval.metrics`` and for Hugging Face ``evaluate``'s "seqeval" metric:
the same figures from the same calls, computed on arrays.

Change the import (``from seqeval.metrics import f1_score`` ->
``from spacy_span_eval.seqeval import f1_score``) and nothing else; see docs/seqeval.md.
"""

from __future__ import annotations

from . import metrics
from .hf import compute, tags_from_ids
from .metrics import *  # noqa: F403 (the names in metrics.__all__, listed once, there)
from .scheme import BILOU, IOB1, IOB2, IOBES, IOE1, IOE2

__all__ = ["BILOU", "IOB1", "IOB2", "IOBES", "IOE1", "IOE2", "compute", "tags_from_ids"]
__all__ += metrics.__all__
__all__.sort()  # (in order, as a reader of the list expects)
