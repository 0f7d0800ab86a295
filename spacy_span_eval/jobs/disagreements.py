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
from itertools import zip_longest
from typing import Any

from ..engine.batching import SpanBatch
from ..engine.evaluator import SpanEvaluator
from ..engine.records import span_context
from ..engine.settings import BASE_LEVEL, Settings
from ..engine.verdicts import Verdicts

__all__ = ["DIRECTIONS", "VERDICTS", "Disagreement", "Disagreements", "disagreements_of"]

#: The two directions: the first system finds the span and the second misses it, and the
#: reverse.
DIRECTIONS: tuple[str, str] = ("a_only", "b_only")
#: What each system makes of a shared gold span, counted per label.
VERDICTS = (*DIRECTIONS, "both", "neither")
#: The verdict of (found by A, found by B).
VERDICT_OF = {(True, False): "a_only", (False, True): "b_only", (True, True): "both"}
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

    def to_dict(self) -> dict[str, Any]:
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

    def to_dict(self) -> dict[str, Any]:
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

    text: str | None
    tokens: list[str] | None
    flags: dict[tuple[int, int, str], bool] = field(default_factory=dict)
    preds: list[Pred] = field(default_factory=list)


def _sides(evaluator: SpanEvaluator, batch: SpanBatch, t: int) -> Iterator[tuple[str, _DocSide]]:
    """Each document of ``batch`` with its gold spans' match flags at threshold index ``t``."""
    projection = evaluator.projection
    kept = projection.select(batch)
    view = projection.view(BASE_LEVEL, projection.mapped(kept), kept)
    v = Verdicts.of(evaluator.strategy, view, kept)
    docs = [
        _DocSide(
            kept.texts[i] if kept.texts else None,
            list(tok) if kept.tokens and (tok := kept.tokens[i]) is not None else None,
        )
        for i in range(len(kept))
    ]
    gold, pred = v.gold, v.pred
    gold_rows = (gold.doc, gold.start, gold.end, gold.label, v.match.gold_tp[t])
    for d, s, e, lab, hit in zip(*(c.tolist() for c in gold_rows), strict=True):
        docs[d].flags[(s, e, v.labels[lab])] = bool(hit)
    pred_rows = (pred.doc, pred.start, pred.end, pred.label)
    for d, s, e, lab in zip(*(c.tolist() for c in pred_rows), strict=True):
        docs[d].preds.append((s, e, v.labels[lab]))
    return zip(kept.doc_ids, docs, strict=True)


class _Sample:
    """A bounded, seeded sample of disagreements: per direction and label, the ``size`` of
    lowest priority (the first met, on a tie)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.groups: dict[tuple[str, str], list[tuple[int, int, Disagreement]]] = {}
        self.added = 0

    def wants(self, group: tuple[str, str], priority: int) -> bool:
        heap = self.groups.setdefault(group, [])
        return self.size > 0 and (len(heap) < self.size or priority < -heap[0][0])

    def add(self, group: tuple[str, str], priority: int, item: Disagreement) -> None:
        self.added += 1
        entry = (-priority, -self.added, item)  # (the heap's top: the one to let go first)
        heap = self.groups[group]
        if len(heap) < self.size:
            heapq.heappush(heap, entry)
        else:
            heapq.heapreplace(heap, entry)

    def chosen(self) -> list[Disagreement]:
        """At most ``size`` in all, every group's first before any group's second, in
        document order."""
        ranked = sorted(
            (rank, -p, -k, item)
            for heap in self.groups.values()
            for rank, (p, k, item) in enumerate(sorted(heap, reverse=True))
        )
        return sorted((item for *_, item in ranked[: max(self.size, 0)]), key=_document_order)


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
    kept = _Sample(sample)
    waiting: tuple[dict[str, _DocSide], dict[str, _DocSide]] = ({}, {})
    for batches in zip_longest(batches_a, batches_b):
        for side, batch in enumerate(batches):
            for doc_id, view in _sides(evaluator, batch, t) if batch is not None else ():
                other = waiting[1 - side].pop(doc_id, None)
                if other is None:
                    waiting[side][doc_id] = view
                else:
                    a, b = (view, other) if side == 0 else (other, view)
                    _compare_document(out, kept, doc_id, a, b, s)
    out.unpaired_documents = len(waiting[0]) + len(waiting[1])
    out.shown = kept.chosen()
    return out


def _compare_document(
    out: Disagreements, kept: _Sample, doc_id: str, a: _DocSide, b: _DocSide, s: Settings
) -> None:
    """Count one document's shared gold spans by verdict; offer its disagreements to the
    sample."""
    for key, hit_a in a.flags.items():
        hit_b = b.flags.get(key)
        if hit_b is None:  # not a shared gold span (the files differ): not comparable
            continue
        start, end, label = key
        verdict = VERDICT_OF.get((hit_a, hit_b), "neither")
        out.counts.setdefault(label, dict.fromkeys(VERDICTS, 0))[verdict] += 1
        if verdict not in DIRECTIONS:
            continue
        priority = zlib.crc32(f"{doc_id}\x00{start}\x00{end}".encode())
        if not kept.wants((verdict, label), priority):
            continue
        left, text, right = span_context(
            start, end, text=a.text, tokens=a.tokens, unit=s.unit, window=s.context
        )
        item = Disagreement(
            verdict,
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
        kept.add((verdict, label), priority, item)


_DIGITS = re.compile(r"(\d+)")


def _document_order(d: Disagreement) -> tuple[object, ...]:
    """Document id with its numbers compared as numbers (``gold.conll:9`` before
    ``gold.conll:10``), then offsets and label."""
    parts = tuple((0, int(x), "") if x.isdigit() else (1, 0, x) for x in _DIGITS.split(d.document))
    return parts, d.start, d.end, d.label
