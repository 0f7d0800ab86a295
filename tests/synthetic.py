"""Seeded synthetic predictions: gold spans perturbed into a plausible model's output.

Shared by the differential tests and the benchmarks (``bench/`` puts this folder on
``sys.path``), which both score a real gold corpus against a prediction that is mostly right,
partly off by one, and sometimes wrong. It needs nothing but spans and a seeded
:class:`random.Random`, so the same seed gives the same prediction everywhere. Also two
systems that differ by chance alone, for the paired test's rejection rate under the null. A
test helper, not part of the package.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from spacy_span_eval import SpanEvaluator
from spacy_span_eval.engine.paired import paired_test
from spacy_span_eval.engine.spans import Document, Span

__all__ = ["exchangeable_systems", "null_rejections", "perturb"]
LABELS = ("PER", "ORG", "LOC")


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


def exchangeable_systems(n_documents: int, rng: random.Random) -> tuple[list[Document], ...]:
    """Two systems exchangeable document by document: each document draws its gold (up to
    four spans over 20 tokens) and its difficulty (a perturbation rate) once, then both
    predictions independently from the same perturbation of that gold."""
    a, b = [], []
    for i in range(n_documents):
        starts = sorted(rng.sample(range(0, 20, 5), rng.randint(1, 4)))
        gold = [Span(s, s + rng.randint(1, 3), rng.choice(LABELS)) for s in starts]
        rate = rng.uniform(0.1, 0.9)
        for side in (a, b):
            pred = perturb(gold, 20, LABELS, rng, rate=rate)
            side.append(Document.create(id=i, unit="token", length=20, gold=gold, pred=pred))
    return a, b


def null_rejections(
    n_documents: int, *, runs: int, seed: int, method: str, resamples: int, alpha: float = 0.05
) -> dict[str, float]:
    """Per micro figure, the share of ``runs`` pairs of :func:`exchangeable_systems` that the
    paired test calls different at level ``alpha``."""
    rng = random.Random(seed)
    evaluator = SpanEvaluator(strategy="exact", unit="token", per_document=True)
    hits = dict.fromkeys(("precision", "recall", "f"), 0)
    for run in range(runs):
        a, b = (evaluator.evaluate(docs) for docs in exchangeable_systems(n_documents, rng))
        test = paired_test(a, b, resamples=resamples, seed=run, method=method)
        for figure, d in test.micro.figures.items():
            hits[figure] += d.p_value is not None and d.p_value < alpha
    return {figure: n / runs for figure, n in hits.items()}
