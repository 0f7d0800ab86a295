"""Where two systems disagree: the gold spans one system finds at the threshold and the
other does not.

Each system's verdict on a gold span is the engine's own: the strategy's match flag
(``Verdicts.match.gold_tp``) at the comparison's threshold, on the distinct gold spans the
ledgers count (unaligned gold spans are missed by both, so never a disagreement). The two
systems share the gold file, so their gold spans are the same (document, start, end, label)
rows and are paired on that key, document by document.

Every disagreement is counted, per label and direction; a bounded sample is kept for the
page: each disagreement gets a seeded pseudo-random priority from its document id and offsets,
and the kept ones are those of lowest (rank within their direction and label, priority), so
every label and direction shows a span before any shows a second, the same on every run.
"""

from __future__ import annotations

import heapq
import re
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from ..engine.batching import SpanBatch
from ..engine.evaluator import SpanEvaluator
from ..engine.records import span_context
from ..engine.settings import BASE_LEVEL
from ..engine.verdicts import Verdicts

__all__ = ["DIRECTIONS", "Disagreement", "Disagreements", "disagreements_of"]

#: The two directions: the first system finds the span and the second misses it, and the
#: reverse.
DIRECTIONS: tuple[str, str] = ("a_only", "b_only")
#: Disagreements kept for the page by default.
DEFAULT_SAMPLE = 200

Pred = tuple[int, int, str]


@dataclass(frozen=True)
class Disagreement:
    """One gold span found by one system and missed by the other, in its context (in the
    unit's terms: tokens joined by spaces in ``token`` unit), with each system's predictions
    that overlap it (``(start, end, label)``)."""

    direction: str
    document: str
    start: int
    end: int
    label: str
    text: str | None
    left: str | None
    right: str | None
    pred_a: tuple[Pred, ...]
    pred_b: tuple[Pred, ...]
    unit: str = "char"

    def to_dict(self) -> dict:
        return {
            "direction": self.direction,
            "document": self.document,
            "start": self.start,
            "end": self.end,
            "label": self.label,
            "text": self.text,
            "left": self.left,
            "right": self.right,
            "predicted_a": [list(p) for p in self.pred_a],
            "predicted_b": [list(p) for p in self.pred_b],
        }


@dataclass
class Disagreements:
    """Counts per label of gold spans found by A alone (``a_only``), by B alone (``b_only``),
    by both and by neither, and a seeded sample of the disagreements (``shown``)."""

    names: tuple[str, str]
    threshold: float | None
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    shown: list[Disagreement] = field(default_factory=list)
    unpaired_documents: int = 0

    def total(self, direction: str) -> int:
        return sum(c[direction] for c in self.counts.values())

    @property
    def n_disagreements(self) -> int:
        return sum(self.total(d) for d in DIRECTIONS)

    def rows(self) -> list[tuple[str, int, int, int, int]]:
        """``(label, a_only, b_only, both, neither)`` per label, most disagreements first."""
        return [
            (label, c["a_only"], c["b_only"], c["both"], c["neither"])
            for label, c in sorted(
                self.counts.items(), key=lambda kv: (-(kv[1]["a_only"] + kv[1]["b_only"]), kv[0])
            )
        ]

    def to_dict(self) -> dict:
        a, b = self.names
        return {
            "systems": {"a": a, "b": b},
            "threshold": self.threshold,
            "per_label": {label: dict(c) for label, c in sorted(self.counts.items())},
            "total": {d: self.total(d) for d in DIRECTIONS},
            "unpaired_documents": self.unpaired_documents,
            "shown": [d.to_dict() for d in self.shown],
        }


@dataclass
class _DocSide:
    """One system's view of one document: its gold spans' match flags and its predictions."""

    flags: dict[tuple[int, int, str], bool]
    preds: list[Pred]
    text: str | None
    tokens: list[str] | None


def _sides(evaluator: SpanEvaluator, batch: SpanBatch, t: int) -> Iterator[tuple[str, _DocSide]]:
    """Each document of ``batch`` with its gold spans' match flags at threshold index ``t``."""
    projection = evaluator.projection
    kept = projection.select(batch)
    view = projection.view(BASE_LEVEL, projection.mapped(kept), kept)
    v = Verdicts.of(evaluator.strategy, view, kept)
    labels = v.labels
    docs: list[_DocSide] = [
        _DocSide(
            {},
            [],
            kept.texts[i] if kept.texts else None,
            list(tok) if kept.tokens and (tok := kept.tokens[i]) is not None else None,
        )
        for i in range(len(kept))
    ]
    tp = v.match.gold_tp[t].tolist()
    for d, s, e, lab, hit in zip(
        v.gold.doc.tolist(),
        v.gold.start.tolist(),
        v.gold.end.tolist(),
        v.gold.label.tolist(),
        tp,
        strict=True,
    ):
        docs[d].flags[(s, e, labels[lab])] = bool(hit)
    for d, s, e, lab in zip(
        v.pred.doc.tolist(),
        v.pred.start.tolist(),
        v.pred.end.tolist(),
        v.pred.label.tolist(),
        strict=True,
    ):
        docs[d].preds.append((s, e, labels[lab]))
    for i, doc_id in enumerate(kept.doc_ids):
        yield doc_id, docs[i]


def _priority(document: str, start: int, end: int) -> int:
    return zlib.crc32(f"{document}\x00{start}\x00{end}".encode())


def disagreements_of(
    evaluator: SpanEvaluator,
    batches_a: Iterable[SpanBatch],
    batches_b: Iterable[SpanBatch],
    *,
    names: tuple[str, str],
    threshold: float | None,
    sample: int = DEFAULT_SAMPLE,
) -> Disagreements:
    """Pair the two systems' documents by id and count, per label, the gold spans each finds
    at ``threshold`` (one of ``evaluator``'s thresholds; ``None`` for a strategy without
    any) and the other does not; keep a seeded sample of ``sample`` of them."""
    s = evaluator.settings
    t = 0 if threshold is None else list(s.thresholds).index(threshold)
    out = Disagreements(names, threshold)
    pending: tuple[dict[str, _DocSide], dict[str, _DocSide]] = ({}, {})
    groups: dict[tuple[str, str], list[tuple[int, int, Disagreement]]] = {}
    tie = 0

    def resolve(doc_id: str, a: _DocSide, b: _DocSide) -> None:
        nonlocal tie
        for key, hit_a in a.flags.items():
            hit_b = b.flags.get(key)
            if hit_b is None:  # not a shared gold span (the files differ): not comparable
                continue
            start, end, label = key
            c = out.counts.setdefault(label, {"a_only": 0, "b_only": 0, "both": 0, "neither": 0})
            if hit_a == hit_b:
                c["both" if hit_a else "neither"] += 1
                continue
            direction = "a_only" if hit_a else "b_only"
            c[direction] += 1
            heap = groups.setdefault((direction, label), [])
            priority = _priority(doc_id, start, end)
            if sample <= 0 or (len(heap) >= sample and -heap[0][0] <= priority):
                continue
            left, text, right = span_context(
                start, end, text=a.text, tokens=a.tokens, unit=s.unit, window=s.context
            )
            item = Disagreement(
                direction,
                doc_id,
                start,
                end,
                label,
                text,
                left,
                right,
                tuple(sorted(p for p in a.preds if p[0] < end and start < p[1])),
                tuple(sorted(p for p in b.preds if p[0] < end and start < p[1])),
                s.unit,
            )
            tie += 1
            entry = (-priority, -tie, item)
            if len(heap) < sample:
                heapq.heappush(heap, entry)
            else:
                heapq.heapreplace(heap, entry)

    def feed(side: int, batch: SpanBatch) -> None:
        mine, theirs = pending[side], pending[1 - side]
        for doc_id, view in _sides(evaluator, batch, t):
            other = theirs.pop(doc_id, None)
            if other is None:
                mine[doc_id] = view
            elif side == 0:
                resolve(doc_id, view, other)
            else:
                resolve(doc_id, other, view)

    it_a, it_b = iter(batches_a), iter(batches_b)
    while True:
        batch_a, batch_b = next(it_a, None), next(it_b, None)
        if batch_a is None and batch_b is None:
            break
        if batch_a is not None:
            feed(0, batch_a)
        if batch_b is not None:
            feed(1, batch_b)
    out.unpaired_documents = len(pending[0]) + len(pending[1])
    ranked: list[tuple[int, int, int, Disagreement]] = []
    for heap in groups.values():
        members = sorted(((-p, -k, item) for p, k, item in heap), key=lambda m: (m[0], m[1]))
        ranked.extend((rank, p, k, item) for rank, (p, k, item) in enumerate(members))
    ranked.sort(key=lambda r: (r[0], r[1], r[2]))
    chosen = [item for *_, item in ranked[: max(sample, 0)]]
    out.shown = sorted(chosen, key=_document_order)
    return out


_DIGITS = re.compile(r"(\d+)")


def _document_order(d: Disagreement) -> tuple[object, ...]:
    """Document id with its numbers compared as numbers (``gold.conll:9`` before
    ``gold.conll:10``), then offsets and label."""
    parts = tuple((0, int(x), "") if x.isdigit() else (1, 0, x) for x in _DIGITS.split(d.document))
    return parts, d.start, d.end, d.label
