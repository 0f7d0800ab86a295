"""The ``agree`` job: how far annotators agree (semantics §12). One file or folder per
annotator, read as any input; documents pair by id (by position when no file has ids), and a
document an annotator did not see is missing for that annotator, not empty.

Each ordered pair is scored as ``evaluate`` scores it (the first annotator as gold) on the
documents both saw. Krippendorff's α and the adjudication queue read every annotator's spans
in the unit of the first annotator who saw the document (token spans projected onto its
tokens, as predictions are).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np

from ..engine.agreement import covered, label_alphas
from ..engine.bootstrap import BootstrapIntervals, Interval, bootstrap_intervals
from ..engine.gates import Check
from ..engine.ledger import Ledger
from ..engine.resampling import check_resampling
from ..engine.result import EvaluationResult
from ..engine.settings import as_decimal
from ..engine.spans import Document, Span, Unit
from ..errors import EmptyEvaluationError, InvalidInputError
from ..readers.detect import input_format
from ..readers.options import ReadingOptions
from ..readers.pairing import documents, tokens_to_chars
from ..readers.settings_files import read_settings_file
from .annotators import Annotator, read_annotators
from .chunks import DocumentView
from .options import ScoringOptions

__all__ = ["AGREEMENT_SCHEMA", "AGREEMENT_VERSION", "Agreement", "agree"]

#: JSON-ready rows (queue entries, consensus records, ties).
Rows = list[dict[str, Any]]

AGREEMENT_SCHEMA = "spacy-span-eval/agreement"
AGREEMENT_VERSION = 1


@dataclass
class Agreement:
    """The pairwise scores (``pairs[(a, b)]``: ``b`` scored against ``a`` as gold; ``None``
    when they saw no document in common or neither gave a span there), α overall and per
    label, and the documents ordered by disagreement (:attr:`queue`)."""

    annotators: list[str]
    settings: dict[str, Any]
    pairs: dict[tuple[str, str], EvaluationResult | None]
    alpha: float | None
    label_alpha: dict[str, float | None]
    queue: list[dict[str, Any]]
    n_documents: int
    inputs: dict[str, dict[str, Any]] = field(default_factory=dict)
    consensus: list[dict[str, Any]] = field(default_factory=list, repr=False)
    ties: list[dict[str, Any]] = field(default_factory=list)
    floors: dict[str, Decimal] | None = None
    breaches: list[str] = field(default_factory=list)
    intervals: dict[tuple[str, str], BootstrapIntervals | None] = field(default_factory=dict)
    #: The text (or tokens) of each document in :attr:`queue`, for the page's cards.
    views: dict[str, DocumentView] = field(default_factory=dict, repr=False)
    #: Each annotator's spans scored against the consensus as gold (``None``: nothing to
    #: score), on the documents the annotator saw: what ``evaluate`` gives on the file.
    against_consensus: dict[str, EvaluationResult | None] = field(default_factory=dict)
    #: Per annotator, the spans not placed on the tokens or text of the first annotator who
    #: saw their document (in the pairs as unmatched predictions; in no α, queue or consensus).
    unplaced: dict[str, int] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return not self.breaches

    def verdict_lines(self) -> list[str]:
        """Headline first, then each breached floor (as a gate's verdict reads)."""
        n = len(self.floors or {})
        if self.passed:
            return [f"Agreement gate passed: {n} alpha floor(s) hold"]
        return [
            f"Agreement gate failed: {len(self.breaches)} of {n} alpha floor(s) breached"
        ] + self.breaches

    def check(self, floors: Mapping[str, float | Decimal]) -> None:
        """Check the least α of each label: a label below its floor, or without an α (no
        spans of it, or one category only), is a breach. A floor is a number in [0, 1], a
        float read as the decimal it prints as (as a gate's)."""
        self.floors = {str(k): as_decimal(v, f"alpha floor of {k!r}") for k, v in floors.items()}
        self.breaches = []
        for label, floor in sorted(self.floors.items()):
            value = self.label_alpha.get(label)
            if value is None:
                self.breaches.append(f"{label} alpha undefined (floor {floor}): no evidence")
            elif value < float(floor):  # (α is exact, rounded once: so is the floor)
                self.breaches.append(Check(label, "alpha", value, floor, False).describe())

    def consensus_file(self, docbin: bool) -> str | list[bytes]:
        """The consensus as JSON Lines, or as a DocBin (the converter loaded only then)."""
        if not docbin:
            return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in self.consensus)
        from .convert import SplitReport, docbin_bytes

        items = (
            (r["id"], r["text"], None, tuple(Span(**s) for s in r["spans"])) for r in self.consensus
        )
        return [docbin_bytes(items, SplitReport(), name="consensus")]

    def pair_f(self, a: str, b: str, label: str | None = None) -> float | None:
        """F of ``b`` against ``a`` (micro, or of ``label``)."""
        result = self.pairs[(a, b)]
        if result is None:
            return None
        run = result.scores()
        ledger = run.micro if label is None else run.per_label.get(label, Ledger())
        return ledger.f(run.beta, run.zero_division)

    def f_interval(self, a: str, b: str, label: str | None = None) -> Interval | None:
        """The bootstrap interval of :meth:`pair_f` (``None`` without resamples)."""
        boot = self.intervals.get((a, b))
        if boot is None:
            return None
        return (boot.micro if label is None else boot.per_label.get(label, {})).get("f")

    def consensus_f(self, name: str) -> float | None:
        """The annotator's micro F against the consensus."""
        result = self.against_consensus.get(name)
        return None if result is None else result.scores().micro.f(result.settings.beta)

    def mean_f(self, name: str | None = None, label: str | None = None) -> float | None:
        """The mean F (micro, or of ``label``) of the pairs with annotator ``name`` (both
        orders), or of every pair; the pairs without an F left out."""
        values = [
            f
            for a, b in self.pairs
            if name in (a, b, None)
            for f in [self.pair_f(a, b, label)]
            if f is not None
        ]
        return sum(values) / len(values) if values else None

    def labels(self) -> list[str]:
        return sorted(self.label_alpha)

    def to_dict(self) -> dict[str, Any]:
        """The versioned JSON (see ``docs/json_schema.md``)."""
        return {
            "schema": AGREEMENT_SCHEMA,
            "version": AGREEMENT_VERSION,
            "command": "agree",
            "settings": self.settings,
            "inputs": self.inputs,
            "annotators": self.annotators,
            "documents": self.n_documents,
            "pairs": [
                {
                    "gold": a,
                    "predicted": b,
                    "documents": None if r is None else r.n_documents,
                    "micro": None if r is None else _ledger_dict(r, None),
                    "per_label": {}
                    if r is None
                    else {k: _ledger_dict(r, k) for k in sorted(r.scores().per_label)},
                    "intervals": None if boot is None else boot.to_dict(),
                }
                for (a, b), r in self.pairs.items()
                for boot in [self.intervals.get((a, b))]
            ],
            "alpha": {"overall": self.alpha, "per_label": dict(sorted(self.label_alpha.items()))},
            "mean_f": {name: self.mean_f(name) for name in self.annotators},
            "against_consensus": {
                name: None if r is None else _ledger_dict(r, None)
                for name, r in self.against_consensus.items()
            },
            "queue": self.queue,
            "ties": self.ties,
            "unplaced": self.unplaced,
            "gate": None
            if self.floors is None
            else {
                "floors": {k: float(v) for k, v in sorted(self.floors.items())},
                "breaches": self.breaches,
                "passed": self.passed,
            },
        }


def _ledger_dict(result: EvaluationResult, label: str | None) -> dict[str, Any]:
    run = result.scores()
    ledger = run.micro if label is None else run.per_label[label]
    return ledger.to_dict(run.beta, run.zero_division)


def alpha_floors(path: Path | str) -> dict[str, Decimal]:
    """``{label: least alpha}`` from a JSON, YAML or ``.cfg`` file (its ``alpha`` section, or
    the whole file)."""
    data = read_settings_file(path, section="alpha", what="agreement floors")
    if not data:
        raise InvalidInputError(f"{path}: no alpha floors")
    return {str(k): as_decimal(v, f"{path}: alpha floor of {k!r}") for k, v in data.items()}


def agree(
    paths: Sequence[Path | str],
    *,
    names: Sequence[str] | None = None,
    annotators: Sequence[str] | None = None,
    reading: ReadingOptions | None = None,
    scoring: ScoringOptions | None = None,
    queue: int = 20,
    floors: Mapping[str, float | Decimal] | Path | str | None = None,
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> Agreement:
    """How far the annotators of ``paths`` (one file or folder each; named ``names``, else
    by :func:`.annotators.annotator_names`) agree; or, with ``annotators``, those annotators of one
    multi-annotator export (each read as ``--annotator NAME`` reads it; one export without
    ``annotators``: all it lists, :data:`.annotators.LISTS_ANNOTATORS`). ``queue``: how many
    contested documents the adjudication queue keeps (most first; 0: all). ``floors``:
    the least α per label (a file: :func:`alpha_floors`), checked (:meth:`Agreement.check`).
    ``resamples``, ``seed``, ``confidence``: each pair's bootstrap intervals over the documents
    both saw, as ``report`` computes them (0 resamples: none)."""
    check_resampling(resamples=resamples, seed=seed, confidence=confidence, min_resamples=0)
    reading = reading or ReadingOptions()
    people = read_annotators(paths, names, annotators, reading)
    names = [p.name for p in people]
    loaded = (scoring or ScoringOptions()).load()
    unit = reading.unit or input_format(people[0].path, reading.input_format).unit
    pairs, intervals = _pairwise(people, unit, reading, loaded, resamples, seed, confidence)
    unplaced: Counter[str] = Counter()
    alpha, per_label, ranked, consensus, ties, views, judged = _alpha_and_queue(
        people, unit, reading, loaded, unplaced
    )
    ranked = [d for d in ranked if d["contested"]][: queue or None]  # (nothing to adjudicate)
    scored = (r.scores().threshold for r in pairs.values() if r is not None)
    threshold = next(scored, loaded.threshold)
    agreement = Agreement(
        names,
        {"strategy": loaded.strategy, "threshold": threshold, "unit": unit, "beta": loaded.beta},
        pairs,
        alpha,
        per_label,
        ranked,
        len(views),
        {a.name: {"path": a.path, "format": a.format, "documents": len(a.records)} for a in people},
        consensus,
        ties,
        intervals=intervals,
        views={d["id"]: views[d["id"]] for d in ranked},
        against_consensus={p.name: _judged(judged[i], unit, loaded) for i, p in enumerate(people)},
        unplaced=dict(+unplaced),
    )
    if floors is not None:
        agreement.check(floors if isinstance(floors, Mapping) else alpha_floors(floors))
    return agreement


def _pairwise(
    people: Sequence[Annotator],
    unit: str,
    reading: ReadingOptions,
    scoring: ScoringOptions,
    resamples: int,
    seed: int,
    confidence: float,
) -> tuple[
    dict[tuple[str, str], EvaluationResult | None], dict[tuple[str, str], BootstrapIntervals | None]
]:
    """Each ordered pair scored (:func:`_scored`; ``None`` where neither gave a span on the
    documents both saw, refused when that is every pair) and, with ``resamples``, its
    bootstrap intervals over the documents both saw."""
    pairs: dict[tuple[str, str], EvaluationResult | None] = {}
    empty: EmptyEvaluationError | None = None
    for a, b in ((a, b) for a in people for b in people if a is not b):
        try:
            pairs[(a.name, b.name)] = _scored(a, b, unit, reading, scoring, bool(resamples))
        except EmptyEvaluationError as exc:
            pairs[(a.name, b.name)], empty = None, exc
    if empty is not None and all(r is None for r in pairs.values()):
        raise empty
    return pairs, {
        pair: None
        if r is None or not resamples
        else bootstrap_intervals(r, resamples=resamples, seed=seed, confidence=confidence)
        for pair, r in pairs.items()
    }


def _scored(
    a: Annotator,
    b: Annotator,
    unit: str,
    reading: ReadingOptions,
    scoring: ScoringOptions,
    per_document: bool,
) -> EvaluationResult | None:
    """``b`` scored against ``a`` as gold on the documents both saw, as ``evaluate`` does."""
    shared = [(r, b.records[key]) for key, r in a.records.items() if key in b.records]
    if not shared:
        return None
    docs = documents(
        shared,
        unit=unit,
        align=reading.align,
        align_share=reading.align_share,
    )
    return scoring.evaluator(
        unit,
        thresholds=scoring.thresholds[:1],
        details=False,
        error_strings=False,
        per_document=per_document,
    ).evaluate(docs)


def _judged(docs: list[Document], unit: str, scoring: ScoringOptions) -> EvaluationResult | None:
    """An annotator's spans (``pred``) against the consensus (``gold``), labels mapped."""
    if not any(d.gold or d.pred for d in docs):
        return None
    return scoring.evaluator(
        unit,
        thresholds=scoring.thresholds[:1],
        details=False,
        error_strings=False,
        max_errors=0,
        label_map=None,
        labels=(),
    ).evaluate(docs)


def _alpha_and_queue(
    annotators: Sequence[Annotator],
    unit: str,
    reading: ReadingOptions,
    scoring: ScoringOptions,
    unplaced: Counter[str],
) -> tuple[
    float | None,
    dict[str, float | None],
    Rows,
    Rows,
    Rows,
    dict[str, DocumentView],
    list[list[Document]],
]:
    """α over every document's positions, the documents by contested spans (spans some but
    not all of the annotators who saw the document gave, at the same extent and label), the
    majority consensus of each document (:func:`_consensus`) and, per annotator, the
    documents it saw with the consensus as gold and its spans as predictions."""
    views = _views(annotators, unit, reading, scoring, unplaced)
    labels = sorted({s.label for *_, spans, _ in views for ss in spans.values() for s in ss})
    total = sum(doc.length for *_, doc in views)
    coverage = np.zeros((len(annotators), len(labels), total), dtype=bool)
    seen = np.zeros((len(annotators), total), dtype=bool)
    at = 0
    ranked: list[dict[str, Any]] = []
    consensus: list[dict[str, Any]] = []
    ties: list[dict[str, Any]] = []
    shown: dict[str, DocumentView] = {}
    judged: list[list[Document]] = [[] for _ in annotators]
    unit_of: Unit = "token" if unit == "token" else "char"
    for key, saw, spans, doc in views:
        shown[key] = DocumentView(key, unit, doc.text, doc.tokens, (), ())
        for i in saw:
            coverage[i, :, at : at + doc.length] = covered(spans[i], doc.length, labels)
            seen[i, at : at + doc.length] = True
        at += doc.length
        given = Counter(s for i in saw for s in set(spans[i]))
        consensus.append(_consensus(key, doc, unit, given, len(saw), ties))
        kept = [s for s, n in given.items() if n * 2 > len(saw)]
        for i in saw:
            judged[i].append(
                Document.create(id=key, gold=kept, pred=spans[i], unit=unit_of, length=doc.length)
            )
        ranked.append(
            {
                "id": key,
                "annotators": [annotators[i].name for i in saw],
                "contested": consensus[-1]["contested"],
                "spans": {
                    annotators[i].name: [
                        _span_view(s, doc) for s in sorted(set(spans[i]), key=_order)
                    ]
                    for i in saw
                },
            }
        )
    alpha, per_label = label_alphas(coverage, seen, labels)
    ranked.sort(key=lambda d: -int(d["contested"]))  # (stable: document order among equals)
    return alpha, per_label, ranked, consensus, ties, shown, judged


def _views(
    annotators: Sequence[Annotator],
    unit: str,
    reading: ReadingOptions,
    scoring: ScoringOptions,
    unplaced: Counter[str],
) -> list[tuple[str, list[int], dict[int, list[Span]], Document]]:
    """Per document (in first-seen order): the annotators who saw it, each one's spans
    (labels mapped, kept to the chosen labels) and the document as the first of them read it;
    the spans that cannot be read in it counted in ``unplaced`` by annotator."""
    label_of: Callable[[str], str] = scoring.loaded_label_map() or str
    chosen = set(scoring.labels)
    views: list[tuple[str, list[int], dict[int, list[Span]], Document]] = []
    for key in dict.fromkeys(k for a in annotators for k in a.records):
        saw = [i for i, a in enumerate(annotators) if key in a.records]
        docs = list(
            documents(
                [(annotators[saw[0]].records[key], annotators[i].records[key]) for i in saw],
                unit=unit,
                align=reading.align,
                align_share=reading.align_share,
            )
        )
        spans = {
            i: [
                s
                for s in (Span(p.start, p.end, label_of(p.label)) for p in doc.pred)
                if not chosen or s.label in chosen
            ]
            for i, doc in zip(saw, docs, strict=True)
        }
        for i, doc in zip(saw, docs, strict=True):
            off = [p for p, _ in doc.unaligned_pred if not chosen or label_of(p.label) in chosen]
            unplaced[annotators[i].name] += len(off)
        views.append((key, saw, spans, docs[0]))
    return views


def _consensus(
    key: str, doc: Document, unit: str, votes: Counter[Span], saw: int, ties: list[dict[str, Any]]
) -> dict[str, Any]:
    """The document's majority spans (given by more than half of the ``saw`` annotators who
    saw it, at the same extent and label) as a JSON Lines record in character offsets, with
    its counts of contested spans (not given by all) and ties (given by exactly half: not
    kept, each appended to ``ties``)."""
    spans = sorted(votes, key=_order)
    text = doc.text or ""
    chars = spans
    if unit == "token" and doc.tokens is not None:
        text, chars = " ".join(doc.tokens), tokens_to_chars(doc.tokens, spans)
    kept, tied = [], []
    for span, at in zip(spans, chars, strict=True):
        row = {"start": at.start, "end": at.end, "label": at.label}
        if votes[span] * 2 > saw:
            kept.append(row)
        elif votes[span] * 2 == saw:
            tied.append({"id": key, **row, "votes": votes[span], "of": saw})
    ties.extend(tied)
    contested = sum(1 for n in votes.values() if n < saw)
    return {"id": key, "text": text, "spans": kept, "contested": contested, "ties": len(tied)}


def _order(span: Span) -> tuple[int, int, str]:
    return span.start, span.end, span.label


def _span_view(span: Span, doc: Document) -> list[Any]:
    """``[start, end, label, text]`` of a span of ``doc`` (text: tokens joined by spaces)."""
    if doc.tokens is not None:
        return [span.start, span.end, span.label, " ".join(doc.tokens[span.start : span.end])]
    return [span.start, span.end, span.label, (doc.text or "")[span.start : span.end]]
