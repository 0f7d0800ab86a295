"""Predictions given as strings (semantics §11): the ungrounded rate and the string-set score.

A reader grounds each predicted string in its document's text; one grounded nowhere reaches
the engine as an unaligned prediction whose reason starts with :data:`UNGROUNDED` (so it counts
against precision like any prediction that finds nothing), and every string the model wrote
comes along in the batch's ``strings``. Per level and label this counts the strings, the
ungrounded ones, and the string-set ledger: per document and label, the set of normalised gold
span texts against the set of normalised predicted strings, positions ignored (UniversalNER's
evaluation, SQuAD's normalisation: lowercase, no punctuation, no articles, single spaces).
"""

from __future__ import annotations

import re
import string
from collections import defaultdict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np

from .ledger import Ledger, ratio

if TYPE_CHECKING:
    from .batching import SpanBatch
    from .projection import LevelView
    from .verdicts import Verdicts

#: How an ungrounded string's unaligned reason starts.
UNGROUNDED = "ungrounded string"
#: Each label's counts: strings, ungrounded strings, then the string-set ledger row.
STRINGS, UNGROUNDED_AT, SET_AT = 0, 1, 2

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)


def normalized(text: str) -> str:
    """SQuAD's answer normalisation, which UniversalNER's evaluation applies to both sides."""
    return " ".join(_ARTICLES.sub(" ", text.lower().translate(_PUNCTUATION)).split())


def string_counts(verdicts: Verdicts, view: LevelView, batch: SpanBatch) -> dict[str, np.ndarray]:
    """Per label of ``view``'s level: its strings, ungrounded ones and string-set ledger."""
    labels = view.labels
    out: defaultdict[str, np.ndarray] = defaultdict(lambda: np.zeros(8, dtype=np.int64))
    for (_, _, why), lab in zip(verdicts.unaligned, verdicts.unaligned_label.tolist(), strict=True):
        if why.startswith(UNGROUNDED):
            out[labels[lab]][UNGROUNDED_AT] += 1
    said: dict[tuple[int, int], set[str]] = defaultdict(set)
    for (d, _, text), lab in zip(batch.strings, view.strings.tolist(), strict=True):
        if text not in said[d, lab]:
            out[labels[lab]][STRINGS] += 1
        said[d, lab].add(text)
    docs, found = set(batch.string_docs), defaultdict(set)
    g = view.gold
    rows = (g.doc.tolist(), g.start.tolist(), g.end.tolist(), g.label.tolist())
    for d, s, e, lab in zip(*rows, strict=True):
        if d in docs:
            found[d, lab].add(normalized(_text(batch, d, s, e)))
    for d, lab in said.keys() | found.keys():
        gold, pred = found.get((d, lab), set()), {normalized(t) for t in said.get((d, lab), ())}
        tp = len(gold & pred)
        row = Ledger(len(gold), len(pred), tp, len(gold) - tp, tp, len(pred) - tp).to_row()
        out[labels[lab]][SET_AT:] += row
    return dict(out)


def _text(batch: SpanBatch, d: int, start: int, end: int) -> str:
    if batch.texts is not None and batch.texts[d] is not None:
        return str(batch.texts[d])[start:end]
    tokens = batch.tokens[d] if batch.tokens is not None else None
    assert tokens is not None
    return " ".join(tokens[start:end])


@attrs.frozen
class StringScores:
    """One level's string counts: per label, an array ``(strings, ungrounded, string-set
    ledger row)``. The ungrounded rate is ungrounded strings / strings the model wrote."""

    counts: Mapping[str, np.ndarray]

    def ungrounded(self, label: str | None = None) -> tuple[int, int]:
        """``(ungrounded, strings)`` of ``label`` (``None``: every label)."""
        rows = list(self.counts.values()) if label is None else [self.counts.get(label)]
        total = sum((r for r in rows if r is not None), np.zeros(8, dtype=np.int64))
        return int(total[UNGROUNDED_AT]), int(total[STRINGS])

    def rate(self, label: str | None = None) -> float | None:
        return ratio(*self.ungrounded(label))

    def string_set(self, label: str | None = None) -> Ledger:
        """The string-set ledger of ``label`` (``None``: pooled over labels)."""
        rows = self.counts.values() if label is None else [self.counts.get(label, np.zeros(8))]
        return sum((Ledger.from_row(r[SET_AT:]) for r in rows), Ledger())

    def to_dict(self, beta: float, zero_division: float | None) -> dict[str, Any]:
        def rates(label: str | None) -> dict[str, Any]:
            bad, n = self.ungrounded(label)
            return {"strings": n, "ungrounded": bad, "ungrounded_rate": ratio(bad, n)}

        return {
            "ungrounded": {
                "per_label": {k: rates(k) for k in sorted(self.counts)},
                "overall": rates(None),
            },
            "string_set": {
                "scoring": "string-set: normalised strings per document and label, positions "
                "ignored (UniversalNER's evaluation)",
                "per_label": {
                    k: self.string_set(k).to_dict(beta, zero_division) for k in sorted(self.counts)
                },
                "micro": self.string_set().to_dict(beta, zero_division),
            },
        }
