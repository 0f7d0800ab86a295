"""Seeded synthetic predictions: gold spans perturbed into a plausible model's output.

Shared by the differential tests and the benchmarks (``bench/`` puts this folder on
``sys.path``), which both score a real gold corpus against a prediction that is mostly right,
partly off by one, and sometimes wrong. It needs nothing but spans and a seeded
:class:`random.Random`, so the same seed gives the same prediction everywhere. A test helper,
not part of the package.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from spacy_span_eval.engine.spans import Span

__all__ = ["perturb"]


def perturb(
    spans: Sequence[Span],
    length: int,
    labels: Sequence[str],
    rng: random.Random,
    *,
    rate: float = 0.3,
) -> list[Span]:
    """Boundary shifts, label swaps, drops and spurious spans; the result never overlaps, so it
    can be written as BIO tags or set as ``Doc.ents``."""
    out: list[Span] = []
    for s in spans:
        r = rng.random()
        if r < rate * 0.25:
            continue  # dropped
        start, end, label = s.start, s.end, s.label
        if r < rate * 0.5:
            start = max(0, min(end - 1, start + rng.choice([-1, 1])))
        elif r < rate * 0.75:
            end = min(length, max(start + 1, end + rng.choice([-1, 1])))
        elif r < rate:
            label = rng.choice([x for x in labels if x != label] or [label])
        out.append(Span(start, end, label))
    if length and rng.random() < rate:
        start = rng.randrange(length)
        out.append(Span(start, min(length, start + rng.randint(1, 3)), rng.choice(labels)))
    kept: list[Span] = []
    for s in sorted(out):
        if not kept or s.start >= kept[-1].end:
            kept.append(s)
    return kept
