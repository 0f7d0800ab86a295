"""The evaluator: streams documents in columnar batches through a strategy into a tally.

The engine knows nothing about spaCy; anything that yields :class:`~.spans.Document` values
(or :class:`~.batching.SpanBatch` columns) can be scored.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from ..errors import UnknownLabelError
from .batching import SpanBatch, batches, documents_to_batch
from .columns import INT, SpanColumns, check_columns, overlap_pairs
from .labels import Hierarchy, LabelMap
from .records import ErrorRecord, span_context
from .settings import BASE_LEVEL, Settings
from .spans import Document
from .strategies import STRATEGIES, Exact, Match, Overlap, Strategy, TokenLevel, TwoSided
from .tally import N_FIELDS, Tally, ViewTally


class SpanEvaluator:
    """Scores documents under one set of settings.

    >>> ev = SpanEvaluator(strategy="two_sided", thresholds=(0.5, 0.75))
    >>> result = ev.evaluate(documents)          # or: tally = ev.tally(part1) + ev.tally(part2)
    >>> result.to_dict()["levels"]["labels"][0]["per_label"]
    """

    def __init__(
        self,
        *,
        strategy: str = "two_sided",
        thresholds: float | Iterable[float] = (0.5,),
        unit: str = "char",
        coverage: str = "best",
        one_to_one: bool = False,
        beta: float = 1.0,
        zero_division: float | None = None,
        label_map: LabelMap | Mapping[str, str] | None = None,
        strict_labels: bool = False,
        hierarchy: Hierarchy | None = None,
        max_errors: int | None = 1000,
        context: int | None = None,
        per_document: bool = False,
        min_gold: float = 0.5,
        min_pred: float = 0.5,
        batch_size: int = 2048,
    ) -> None:
        if strategy not in STRATEGIES:
            raise ValueError(
                f"unknown strategy {strategy!r}; choose one of {', '.join(STRATEGIES)}")
        cls = STRATEGIES[strategy]
        if cls.uses_thresholds:
            taus = (thresholds,) if isinstance(thresholds, int | float) else tuple(thresholds)
            taus = tuple(float(t) for t in taus)
        else:
            taus = (None,)
        self.hierarchy = hierarchy
        self.label_map = LabelMap.coerce(label_map, strict=strict_labels)
        self.settings = Settings(
            strategy=strategy, thresholds=taus, unit=unit, coverage=coverage,  # type: ignore[arg-type]
            one_to_one=one_to_one, beta=beta, zero_division=zero_division, min_gold=min_gold,
            min_pred=min_pred, max_errors=max_errors,
            context=context if context is not None else (40 if unit == "char" else 6),
            levels=(BASE_LEVEL, *(hierarchy.levels if hierarchy else ())),
            per_document=per_document,
        )
        self.strategy = self._build_strategy(cls, taus)
        self.batch_size = batch_size

    def _build_strategy(self, cls: type[Strategy], taus: tuple[float | None, ...]) -> Strategy:
        s = self.settings
        if cls is TwoSided:
            return TwoSided(taus, coverage=s.coverage, one_to_one=s.one_to_one)
        if cls is Overlap:
            return Overlap(taus, min_gold=s.min_gold, min_pred=s.min_pred)
        if s.one_to_one or s.coverage != "best":
            raise ValueError("coverage and one_to_one apply to the two_sided strategy only")
        assert cls in (Exact, TokenLevel)
        return cls(taus)

    # -- public API ------------------------------------------------------------------------
    def evaluate(self, docs: Iterable[Document]):
        """Score documents and return an :class:`~.result.EvaluationResult`."""
        return self.tally(docs).result()

    def tally(self, docs: Iterable[Document]) -> Tally:
        """Score documents into a mergeable :class:`~.tally.Tally` (streaming, batched)."""
        total = Tally.empty(self.settings)
        for chunk in batches(docs, self.batch_size):
            self._tally_batch_into(total, documents_to_batch(chunk))
        return total

    def tally_batch(self, batch: SpanBatch) -> Tally:
        """Score one columnar batch (the fast path for pre-extracted spans)."""
        total = Tally.empty(self.settings)
        self._tally_batch_into(total, batch)
        return total

    # -- batch scoring -----------------------------------------------------------------------
    def _tally_batch_into(self, total: Tally, batch: SpanBatch) -> None:
        mapped = self._map_labels(batch)
        for side, cols in (("gold", batch.gold), ("predicted", batch.pred)):
            check_columns(cols, batch.lengths, batch.doc_ids, side, list(batch.labels))
        total.n_documents += len(batch)
        for level in self.settings.levels:
            names = mapped if level == BASE_LEVEL else self._project_all(level, mapped, batch)
            view_labels = sorted(set(names))
            ids = {name: i for i, name in enumerate(view_labels)}
            proj = np.array([ids[n] for n in names], dtype=INT)
            gold, pred = (c.relabel(proj[c.label]) if len(c) else c
                          for c in (batch.gold, batch.pred))
            self._score_view(total, level, gold, pred, view_labels, batch)
        out = self.strategy.run(_one_label(batch.gold), _one_label(batch.pred), 1)
        total.agnostic += _count_rows(out.gold, out.pred, out.match, 1)[:, 0, :]
        if batch.unaligned:
            total.agnostic[:, 1] += len(batch.unaligned)
            total.agnostic[:, 5] += len(batch.unaligned)
        if batch.unaligned_gold:
            total.agnostic[:, 0] += len(batch.unaligned_gold)
            total.agnostic[:, 3] += len(batch.unaligned_gold)

    def _map_labels(self, batch: SpanBatch) -> list[str]:
        if self.label_map is None:
            return list(batch.labels)
        out = []
        for i, label in enumerate(batch.labels):
            try:
                out.append(self.label_map(label))
            except UnknownLabelError as exc:
                raise UnknownLabelError(f"{_first_use(batch, i)}: {exc}") from None
        return out

    def _project(self, level: str, label: str) -> str:
        assert self.hierarchy is not None
        return self.hierarchy.project(level, label)

    def _project_all(self, level: str, labels: list[str], batch: SpanBatch) -> list[str]:
        out = []
        for i, label in enumerate(labels):
            try:
                out.append(self._project(level, label))
            except UnknownLabelError as exc:
                raise UnknownLabelError(f"{_first_use(batch, i)}: {exc}") from None
        return out

    def _score_view(self, total: Tally, level: str, gold: SpanColumns, pred: SpanColumns,
                    labels: list[str], batch: SpanBatch) -> None:
        view: ViewTally = total.views[level]
        out = self.strategy.run(gold, pred, len(labels))
        if level == BASE_LEVEL:
            total.notes.update({k: v for k, v in out.notes.items() if v})
        gold, pred, m = out.gold, out.pred, out.match
        rows = _count_rows(gold, pred, m, len(labels))
        for lab in np.flatnonzero(rows[0, :, 0] + rows[0, :, 1]).tolist():
            view.add_counts(labels[lab], rows[:, lab, :])
        if level == BASE_LEVEL and total.documents is not None:
            self._per_document(total, gold, pred, m, labels, batch)
        wrong = self._confusion(view, gold, pred, m, labels)
        unaligned = self._unaligned(total, view, level, batch)
        self._errors(view, gold, pred, m, labels, batch, wrong, unaligned)

    def _per_document(self, total: Tally, gold: SpanColumns, pred: SpanColumns, m: Match,
                      labels: list[str], batch: SpanBatch) -> None:
        """Each document's ledger rows (for resampling statistics), in stream order."""
        n_docs, n_lab = len(batch), len(labels)
        keyed_gold = gold.relabel(gold.doc * n_lab + gold.label)
        keyed_pred = pred.relabel(pred.doc * n_lab + pred.label)
        rows = _count_rows(keyed_gold, keyed_pred, m, n_docs * n_lab)
        rows = rows.reshape(rows.shape[0], n_docs, n_lab, N_FIELDS)
        # unaligned predictions: num_predicted and fp; unaligned gold: num_annotated and fn
        for fields, spans in (((1, 5), batch.unaligned), ((0, 3), batch.unaligned_gold)):
            for d_i, span, _ in spans:
                label = self.label_map(span.label) if self.label_map else span.label
                if label not in labels:
                    labels = [*labels, label]
                    rows = np.concatenate([rows, np.zeros_like(rows[:, :, :1])], axis=2)
                lab = labels.index(label)
                for f in fields:
                    rows[:, d_i, lab, f] += 1
        present = np.flatnonzero(rows[0, :, :, :2].sum(axis=(0, 2)))
        assert total.documents is not None
        total.documents.append(list(batch.doc_ids),
                               {labels[lab]: rows[:, :, lab, :].transpose(1, 0, 2).copy()
                                for lab in present.tolist()})

    def _confusion(self, view: ViewTally, gold: SpanColumns, pred: SpanColumns, m: Match,
                   labels: list[str]) -> list[dict[int, str]]:
        """Annotation-centric cells (SPEC 4); returns, per threshold, the predicted label of each
        wrong-label annotation (gold row -> label)."""
        cov = self._other_label_covers(gold, pred, m)
        n_lab = len(labels)
        wrong: list[dict[int, str]] = []
        for t in range(self.strategy.n):
            cells = view.confusion[t]
            tp = m.gold_tp[t]
            represented = m.pred_credited[t].copy()
            # Per FN annotation, the passing other label with the highest score (ties: the
            # alphabetically first label; view label ids are in alphabetical order).
            ok = np.flatnonzero(cov.passes[t] & ~tp[cov.gold])
            ok = ok[np.lexsort((cov.label[ok], -cov.score[ok], cov.gold[ok]))]
            first = np.ones(ok.size, dtype=bool)
            first[1:] = cov.gold[ok[1:]] != cov.gold[ok[:-1]]
            winners = ok[first]
            won = np.zeros(cov.gold.size, dtype=bool)
            won[winners] = True
            represented[cov.sel_pred[won[cov.sel_cover]]] = True
            missed = ~tp
            missed[cov.gold[winners]] = False
            _add_cells(cells, labels, gold.label[tp], gold.label[tp], n_lab)
            _add_cells(cells, labels, gold.label[cov.gold[winners]], cov.label[winners], n_lab)
            _add_cells(cells, labels, gold.label[missed], None, n_lab, other="O")
            _add_cells(cells, labels, None, pred.label[~represented], n_lab, other="O")
            wrong.append(dict(zip(cov.gold[winners].tolist(),
                                  (labels[u] for u in cov.label[winners].tolist()), strict=True)))
        return wrong

    def _other_label_covers(self, gold: SpanColumns, pred: SpanColumns, m: Match) -> _Covers:
        """How each other label's predictions cover the annotations that are FN at some
        threshold (one row per annotation and label that passes somewhere)."""
        fn_rows = np.flatnonzero(~m.gold_tp.all(axis=0))
        if not fn_rows.size or not len(pred):
            return _Covers.empty(self.strategy.n)
        has_fn = np.zeros(int(max(gold.doc.max(), pred.doc.max())) + 1, dtype=bool)
        has_fn[gold.doc[fn_rows]] = True
        near = np.flatnonzero(has_fn[pred.doc])
        sub_g, sub_p = gold.take(fn_rows), pred.take(near)
        cg, cp = overlap_pairs(sub_g, sub_p, sub_g.doc, sub_p.doc)
        cg, cp = fn_rows[cg], near[cp]
        other = pred.label[cp] != gold.label[cg]
        cg, cp = cg[other], cp[other]
        if not cg.size:
            return _Covers.empty(self.strategy.n)
        key = cg * (int(pred.label.max()) + 1) + pred.label[cp]
        order = np.lexsort((cp, key))
        cg, cp, key = cg[order], cp[order], key[order]
        first = np.ones(key.shape[0], dtype=bool)
        first[1:] = key[1:] != key[:-1]
        run_size = np.bincount(np.cumsum(first) - 1)[np.cumsum(first) - 1]
        single = run_size == 1
        g1, p1 = cg[single], cp[single]
        score, passes = self.strategy.pair_cover(gold.start[g1], gold.end[g1], pred.start[p1],
                                                 pred.end[p1])
        keep = passes.any(axis=0)
        n_keep = int(keep.sum())
        parts = [(g1[keep], pred.label[p1[keep]], score[keep], passes[:, keep],
                  np.arange(n_keep), p1[keep])]
        multi = np.flatnonzero(~single)
        for run in np.split(multi, np.flatnonzero(first[multi])[1:]) if multi.size else ():
            g, rows = int(cg[run[0]]), cp[run]
            cands = list(zip(pred.start[rows].tolist(), pred.end[rows].tolist(), strict=True))
            c = self.strategy.cover(int(gold.start[g]), int(gold.end[g]), cands)
            if c.passes.any():
                sel = rows[list(c.selection)]
                parts.append((np.array([g]), pred.label[rows[:1]], np.array([c.score]),
                              c.passes[:, None], np.zeros(sel.size, dtype=INT), sel))
        return _Covers.build(parts)

    def _unaligned(self, total: Tally, view: ViewTally, level: str, batch: SpanBatch
                   ) -> list[ErrorRecord]:
        """Spans that could not be put in the unit: gold ones are counted as missed (FN),
        predicted ones as unmatched (FP). Returns their records (gold first, then predicted),
        which take their place among the batch's other records."""
        records = []
        for is_gold, spans in ((True, batch.unaligned_gold), (False, batch.unaligned)):
            what = "gold span" if is_gold else "prediction"
            for d_i, span, reason in spans:
                try:
                    raw = self.label_map(span.label) if self.label_map else span.label
                    label = raw if level == BASE_LEVEL else self._project(level, raw)
                except UnknownLabelError as exc:
                    raise UnknownLabelError(f"document {batch.doc_ids[d_i]!r}, unaligned "
                                            f"{what} {span}: {exc}") from None
                rows = np.zeros((self.strategy.n, N_FIELDS), dtype=np.int64)
                if is_gold:
                    rows[:, 0] = rows[:, 3] = 1
                else:
                    rows[:, 1] = rows[:, 5] = 1
                view.add_counts(label, rows)
                for cells in view.confusion:
                    cells[(label, "O") if is_gold else ("O", label)] += 1
                records.append(ErrorRecord(
                    "false_negative" if is_gold else "false_positive", batch.doc_ids[d_i],
                    span.start, span.end, label, None if is_gold else label, None, None, None,
                    0.0, reason))
        if level == BASE_LEVEL:
            if batch.unaligned:
                total.notes["unaligned_predictions"] += len(batch.unaligned)
            if batch.unaligned_gold:
                total.notes["unaligned_gold"] += len(batch.unaligned_gold)
        return records

    def _errors(self, view: ViewTally, gold: SpanColumns, pred: SpanColumns, m: Match,
                labels: list[str], batch: SpanBatch, wrong: list[dict[int, str]],
                unaligned: list[ErrorRecord]) -> None:
        """Keep records in document order (then start, end; gold, predicted, unaligned on
        ties), so the kept ones do not depend on batch boundaries."""
        cap = self.settings.max_errors
        both = [*batch.unaligned_gold, *batch.unaligned]  # the order of ``unaligned``
        u_doc = np.array([d_i for d_i, _, _ in both], dtype=INT)
        u_start = np.array([span.start for _, span, _ in both], dtype=INT)
        u_end = np.array([span.end for _, span, _ in both], dtype=INT)
        for t in range(self.strategy.n):
            room = None if cap is None else cap - len(view.errors[t])
            if room is not None and room <= 0:
                continue
            fn = np.flatnonzero(~m.gold_tp[t])
            fp = np.flatnonzero(~m.pred_credited[t])
            side = np.concatenate([np.zeros(fn.size, dtype=INT), np.ones(fp.size, dtype=INT),
                                   np.full(u_doc.size, 2, dtype=INT)])
            rows = np.concatenate([fn, fp, np.arange(u_doc.size, dtype=INT)])
            doc = np.concatenate([gold.doc[fn], pred.doc[fp], u_doc])
            start = np.concatenate([gold.start[fn], pred.start[fp], u_start])
            end = np.concatenate([gold.end[fn], pred.end[fp], u_end])
            order = np.lexsort((side, end, start, doc))
            if room is not None:
                order = order[:room]
            for i in order.tolist():
                if side[i] == 2:
                    view.errors[t].append(unaligned[int(rows[i])])
                else:
                    view.errors[t].append(self._record(
                        int(side[i]), int(rows[i]), gold, pred, m, labels, batch, wrong[t]))

    def _record(self, side: int, row: int, gold: SpanColumns, pred: SpanColumns, m: Match,
                labels: list[str], batch: SpanBatch, wrong: dict[int, str]) -> ErrorRecord:
        cols = gold if side == 0 else pred
        d = int(cols.doc[row])
        s, e = int(cols.start[row]), int(cols.end[row])
        left, text, right = span_context(
            s, e, text=batch.texts[d] if batch.texts else None,
            tokens=batch.tokens[d] if batch.tokens else None,
            unit=self.settings.unit, window=self.settings.context)
        label = labels[int(cols.label[row])]
        if side == 0:
            predicted = wrong.get(row)
            kind = "wrong_label" if predicted is not None else "false_negative"
            score = float(m.gold_score[row])
        else:
            predicted, kind, score = label, "false_positive", float(m.pred_score[row])
        return ErrorRecord(kind, batch.doc_ids[d], s, e, label, predicted, text, left, right,
                           score)


@dataclass(frozen=True)
class _Covers:
    """Rows of (annotation, other label) that pass at some threshold, with their selections
    flattened as ``(sel_cover, sel_pred)`` pairs."""

    gold: np.ndarray
    label: np.ndarray
    score: np.ndarray
    passes: np.ndarray  # (n_thresholds, n)
    sel_cover: np.ndarray
    sel_pred: np.ndarray

    @classmethod
    def empty(cls, n_thresholds: int) -> _Covers:
        z = np.zeros(0, dtype=INT)
        return cls(z, z, np.zeros(0), np.zeros((n_thresholds, 0), dtype=bool), z, z)

    @classmethod
    def build(cls, parts: list[tuple]) -> _Covers:
        """``parts``: ``(gold, label, score, passes, sel_cover, sel_pred)`` with ``sel_cover``
        indexing the part's own rows; concatenated with offsets."""
        offsets = np.cumsum([0] + [p[0].size for p in parts])[:-1]
        cat = np.concatenate
        return cls(
            cat([p[0] for p in parts]).astype(INT), cat([p[1] for p in parts]).astype(INT),
            cat([p[2] for p in parts]).astype(float), cat([p[3] for p in parts], axis=1),
            cat([p[4] + o for p, o in zip(parts, offsets, strict=True)]).astype(INT),
            cat([p[5] for p in parts]).astype(INT),
        )


def _one_label(cols: SpanColumns) -> SpanColumns:
    return cols.relabel(np.zeros(len(cols), dtype=INT))


def _add_cells(cells: Counter, labels: list[str], rows: np.ndarray | None,
               columns: np.ndarray | None, n_lab: int, other: str = "O") -> None:
    """Count (row label, column label) cells; ``None`` on one side stands for ``other``."""
    if rows is None or columns is None:
        ids = rows if rows is not None else columns
        found = np.bincount(ids, minlength=n_lab)
        for lab in np.flatnonzero(found).tolist():
            cell = (labels[lab], other) if rows is not None else (other, labels[lab])
            cells[cell] += int(found[lab])
        return
    codes, counts = np.unique(rows * n_lab + columns, return_counts=True)
    for code, n in zip(codes.tolist(), counts.tolist(), strict=True):
        cells[(labels[code // n_lab], labels[code % n_lab])] += n


def _count_rows(gold: SpanColumns, pred: SpanColumns, m: Match, n_labels: int) -> np.ndarray:
    """``(n_thresholds, n_labels, 6)`` ledger rows from one batch's verdicts."""
    n_thr = m.gold_tp.shape[0]
    out = np.zeros((n_thr, n_labels, N_FIELDS), dtype=np.int64)
    ann = np.bincount(gold.label, minlength=n_labels)
    npred = np.bincount(pred.label, minlength=n_labels)
    for t in range(n_thr):
        tp = np.bincount(gold.label[m.gold_tp[t]], minlength=n_labels)
        cred = np.bincount(pred.label[m.pred_credited[t]], minlength=n_labels)
        out[t] = np.stack([ann, npred, tp, ann - tp, cred, npred - cred], axis=1)
    return out


def _first_use(batch: SpanBatch, label_id: int) -> str:
    for side, cols in (("gold", batch.gold), ("predicted", batch.pred)):
        hits = np.flatnonzero(cols.label == label_id)
        if hits.size:
            i = int(hits[0])
            return f"document {batch.doc_ids[int(cols.doc[i])]!r}, {side} span #{int(cols.item[i])}"
    return "unaligned prediction"
