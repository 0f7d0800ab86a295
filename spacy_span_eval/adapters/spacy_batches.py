"""The spaCy scorers' fast road: ``Example`` pairs straight into a columnar batch.

Same spans, ids, checks and projection as :mod:`.spacy_docs` gives ``Document`` values, without
building them: ``Doc.ents`` of every plain example are read from token arrays at once, the
others span by span through :mod:`.spacy_docs`'s readers.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..engine.batching import SpanBatch
from ..engine.columns import INT, SpanColumns
from ..engine.spans import Span, texts_differ
from ..errors import InvalidSpanError
from .spacy_docs import (
    KEPT_GOLD_KEY,
    check_predicted,
    has_source_annotation,
    kept_gold_in_unit,
    project_to_tokens,
    source_spans,
    span_scores,
    stored_doc_id,
)

if TYPE_CHECKING:
    from spacy.tokens import Doc
    from spacy.tokens import Span as DocSpan
    from spacy.training import Example

__all__ = ["SpacyBatch", "examples_to_batch"]


Row = tuple[int, int, str, float | None]  # start, end, label, score (the engine's Span fields)
_row = attrgetter("start", "end", "label", "score")


class SpacyBatch(NamedTuple):
    """A columnar batch built from examples, how many examples were not annotated, how
    many gold spans were read from beside the reference docs (:data:`KEPT_GOLD_KEY`), and
    which examples the batch's documents are (their indices)."""

    batch: SpanBatch
    unannotated: int
    kept_gold: int = 0
    read: Sequence[int] = ()


def examples_to_batch(
    examples: Iterable[Example], *, source: str = "ents", unit: str = "char"
) -> SpacyBatch:
    """The scorers' fast path: examples straight into columns, without ``Document`` objects.

    Same spans, ids, checks and projection as :func:`.spacy_docs.docs_to_document`. For ``"ents"``
    every example's tokens and entity tags are read as arrays first (:class:`_EntArrays`); an
    example whose two docs have the same tokens and nothing unusual (no gold kept beside them,
    no tag ``Doc.ents`` would refuse) needs no more. Any other example, and every example of
    a span group (whose spans may overlap), is read span by span. Examples whose reference is
    not annotated for ``source`` are skipped, as spaCy's scorers do, and counted in
    ``unannotated``. No texts are kept, so error records built from this batch carry no
    context. Gold spans kept beside a reference are read as in :func:`docs_to_document` and
    counted in ``kept_gold``.
    """
    pairs = [(eg.reference, eg.predicted) for eg in examples]
    # (stored ids and gold kept beside a doc live in user_data, which most docs leave empty)
    noted = [i for i, (g, p) in enumerate(pairs) if g.user_data or p.user_data]
    ents = _EntArrays(pairs, unit, noted) if source == "ents" else None
    plain = ents.plain if ents is not None else [False] * len(pairs)
    read = [i for i, (g, _) in enumerate(pairs) if plain[i] or has_source_annotation(g, source)]
    stored = {i: doc_id for i in noted if (doc_id := stored_doc_id(*pairs[i])) is not None}
    columns = _Columns(unit, [str(stored.get(i, i)) for i in read])
    if ents is not None:
        columns.lengths[:] = ents.lengths[read]
    kept = sum(columns.add(d, *pairs[i], source) for d, i in enumerate(read) if not plain[i])
    return SpacyBatch(columns.batch(ents, read), len(pairs) - len(read), kept, read)


class _EntArrays:
    """``Doc.ents`` of many examples, read from token arrays at once (one ``to_array`` per
    doc; no ``Span`` objects): entities start at a ``B`` tag with a label and run over the
    ``I`` tags after it, as ``Doc.ents`` reads them.

    ``plain[i]``: example ``i`` is annotated, both docs have the same tokens, neither carries
    gold kept beside it (only the examples ``noted`` have anything in ``user_data``), and no
    ``I`` tag starts an entity (``Doc.ents`` raises on that, so the span-by-span road reads
    such a doc and raises as spaCy does). ``lengths[i]``: its length in the unit. ``rows``:
    per side, the entities of the plain examples as columns (example, start, end, label code),
    ``names`` the label of each code.
    """

    def __init__(self, pairs: Sequence[tuple[Doc, Doc]], unit: str, noted: list[int]) -> None:
        from spacy.attrs import ENT_IOB, ENT_TYPE, LENGTH, ORTH, SPACY

        tags = [ORTH, SPACY, ENT_IOB, ENT_TYPE]
        g_arrs = [g.to_array([*tags, LENGTH]) for g, _ in pairs]
        p_arrs = [p.to_array(tags) for _, p in pairs]
        (gold, g_off, g_len), (pred, p_off, p_len) = _joined(g_arrs, 5), _joined(p_arrs, 4)
        n, g_doc = len(pairs), np.repeat(np.arange(len(pairs)), g_len)
        # the same tokens: same length and (where the lengths agree) the same ORTH and SPACY;
        # as a rule all lengths agree, and token t of one side is token t of the other
        plain = g_len == p_len
        at: slice | np.ndarray = slice(None)
        p_at = at
        if not plain.all():
            at = np.flatnonzero(plain[g_doc])
            p_at = at - g_off[g_doc[at]] + p_off[g_doc[at]]
        plain[g_doc[at][(gold[at, 0] != pred[p_at, 0]) | (gold[at, 1] != pred[p_at, 1])]] = False
        plain &= (np.bincount(g_doc[gold[:, 2] != 0], minlength=n) > 0) | (g_len == 0)
        plain[[i for i in noted if any(KEPT_GOLD_KEY in doc.user_data for doc in pairs[i])]] = False
        sides = [_tagged_ents(gold, g_off, g_len), _tagged_ents(pred, p_off, p_len)]
        for *_, refused in sides:
            plain &= ~refused
        if unit == "token":
            self.lengths = g_len
            shifts = (-g_off, -p_off)  # token of all docs -> token of its doc
        else:
            # a doc's text is its tokens' texts, each followed by its space, so a token's
            # offset (IDX) is the sum of LENGTH + SPACY over the tokens before it in its doc
            before = np.append(0, np.cumsum((gold[:, 4] + gold[:, 1]).astype(INT)))
            doc_start = before[g_off]
            self.lengths = before[g_off + g_len] - doc_start
            shifts = (0 * g_off, g_off - p_off)  # token of all docs -> its reference token
        self.rows: list[tuple[np.ndarray, ...]] = []
        self.names: list[list[str]] = []  # per side, the names of the label codes in rows
        for k, ((ex, start, end, label, _), shift) in enumerate(zip(sides, shifts, strict=True)):
            take = plain[ex]
            ex, label = ex[take], label[take]
            start, end = start[take] + shift[ex], end[take] + shift[ex]
            if unit == "char":
                at = doc_start[ex]
                start, end = before[start] - at, before[end - 1] - at + gold[end - 1, 4].astype(INT)
            hashes, first, code = np.unique(label, return_index=True, return_inverse=True)
            self.names.append(
                [
                    pairs[i][k].vocab.strings[h]
                    for h, i in zip(hashes.tolist(), ex[first].tolist(), strict=True)
                ]
            )
            self.rows.append((ex, start.astype(INT), end.astype(INT), code))
        self.plain: list[bool] = plain.tolist()


def _joined(arrays: list[np.ndarray], width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-doc token arrays as one: ``(rows, first row of each doc, rows of each doc)``."""
    lengths = np.fromiter(map(len, arrays), dtype=INT, count=len(arrays))
    rows = np.concatenate(arrays) if arrays else np.zeros((0, width), dtype=np.uint64)
    return rows, np.cumsum(lengths) - lengths, lengths


def _tagged_ents(
    rows: np.ndarray, offsets: np.ndarray, lengths: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The entities of joined ``(..., ENT_IOB, ENT_TYPE)`` rows: ``(doc, start, end, label
    hash, refused)``, tokens counted over all docs; ``refused[d]``: doc ``d`` has an ``I`` tag
    outside an entity (or an unknown tag), which ``Doc.ents`` does not read."""
    iob, label = rows[:, 2], rows[:, 3]
    doc = np.repeat(np.arange(len(lengths)), lengths)
    first = np.zeros(len(rows), dtype=bool)
    first[offsets[lengths > 0]] = True
    begin, inside = (iob == 3) & (label != 0), iob == 1
    after = np.zeros(len(rows), dtype=bool)  # the token before is in an entity of this doc
    after[1:] = (begin | inside)[:-1]
    after &= ~first
    refused = np.zeros(len(lengths), dtype=bool)
    refused[doc[(inside & ~after) | (iob > 3)]] = True
    start = np.flatnonzero(begin)
    stops = np.append(np.flatnonzero(~inside | first), len(rows))
    end = stops[np.searchsorted(stops, start, side="right")]
    return doc[start], start, end, label[start], refused


class _Columns:
    """The columns :func:`examples_to_batch` gathers: documents (ids and lengths), and a flat
    ``(doc, start, end, label)`` row list per side for the examples read span by span."""

    def __init__(self, unit: str, doc_ids: list[str]) -> None:
        from spacy.attrs import IDX, LENGTH, ORTH, SPACY  # (spaCy: only its scorers come here)

        self.unit, self.attrs = unit, [ORTH, SPACY, IDX, LENGTH]
        self.doc_ids = doc_ids
        self.lengths = np.zeros(len(doc_ids), dtype=INT)
        self.rows: tuple[list[int], list[int]] = ([], [])
        self.scores: list[float] = []  # each predicted row's (NaN: none)
        self.label_ids: dict[str, int] = {}
        self.unaligned: list[tuple[int, Span, str]] = []
        self.unaligned_gold: list[tuple[int, Span, str]] = []

    def add(self, d: int, gold_doc: Doc, pred_doc: Doc, source: str) -> int:
        """Read example ``d`` span by span; returns how many gold spans were kept beside it."""
        doc_id = self.doc_ids[d]
        g_arr = gold_doc.to_array(self.attrs)
        p_arr = g_arr if pred_doc is gold_doc else pred_doc.to_array(self.attrs)
        same = g_arr.shape == p_arr.shape and g_arr.tobytes() == p_arr.tobytes()
        if not same and gold_doc.text != pred_doc.text:
            raise texts_differ(doc_id, gold_doc.text, pred_doc.text)
        if self.unit == "token":
            self.lengths[d] = len(gold_doc)
        elif len(g_arr):
            self.lengths[d] = int(g_arr[-1, 1] + g_arr[-1, 2] + g_arr[-1, 3])
        self._add(0, d, self._doc_rows(0, d, source_spans(gold_doc, source)))
        kept, lost_gold = kept_gold_in_unit(gold_doc, source, self.unit, doc_id)
        self._add(0, d, map(_row, kept))
        self.unaligned_gold.extend((d, sp, why) for sp, why in lost_gold)
        check_predicted(pred_doc, source, doc_id, gold_doc)
        pred_spans = source_spans(pred_doc, source)
        if self.unit == "token" and not same:
            projected, lost = project_to_tokens(gold_doc, pred_spans)
            self._add(1, d, map(_row, projected))
            self.unaligned.extend((d, sp, why) for sp, why in lost)
        else:
            self._add(1, d, self._doc_rows(1, d, pred_spans))
        return len(kept) + len(lost_gold)

    def _add(self, side: int, d: int, rows: Iterable[Row]) -> None:
        ids, out = self.label_ids, self.rows[side]
        for start, end, label, score in rows:
            out.extend((d, start, end, ids.setdefault(label, len(ids))))
            if side:
                self.scores.append(np.nan if score is None else score)

    def _doc_rows(self, side: int, d: int, spans: Sequence[DocSpan]) -> Iterator[Row]:
        """A Doc's spans, in the unit's offsets; a span without a label is an error."""
        by_token = self.unit == "token"
        for sp, score in zip(spans, span_scores(spans), strict=True):
            if not sp.label_:
                raise InvalidSpanError(
                    f"document {self.doc_ids[d]!r}, {('gold', 'predicted')[side]} span "
                    f"[{sp.start_char}, {sp.end_char}) {sp.text!r}: label must be a non-empty "
                    "string"
                )
            start, end = (sp.start, sp.end) if by_token else (sp.start_char, sp.end_char)
            yield start, end, sp.label_, score

    def batch(self, ents: _EntArrays | None, read: list[int]) -> SpanBatch:
        """The batch, with the plain examples of ``ents`` (``read[d]``: document ``d``'s
        example) and the rows read span by span in document order."""
        sides = [np.array(flat, dtype=INT).reshape(-1, 4) for flat in self.rows]
        if ents is not None:
            d_of = np.zeros(len(ents.plain), dtype=INT)
            d_of[read] = np.arange(len(read))
            for k, (ex, start, end, code) in enumerate(ents.rows):
                ids = [self.label_ids.setdefault(x, len(self.label_ids)) for x in ents.names[k]]
                taken = np.stack([d_of[ex], start, end, np.array(ids, dtype=INT)[code]], axis=1)
                both = np.concatenate([sides[k], taken])
                sides[k] = both[np.argsort(both[:, 0], kind="stable")]
        labels = _first_seen(list(self.label_ids), sides)

        def columns(rows: np.ndarray) -> SpanColumns:
            if not len(rows):
                return SpanColumns.empty()
            return SpanColumns.from_arrays(rows[:, 0], rows[:, 1], rows[:, 2], rows[:, 3])

        pred = columns(sides[1])
        scores = np.array(self.scores, dtype=np.float64)
        if not np.isnan(scores).all():  # (span groups only: Doc.ents have none)
            pred = dataclasses.replace(pred, score=scores)
        return SpanBatch(
            doc_ids=self.doc_ids,
            lengths=self.lengths,
            gold=columns(sides[0]),
            pred=pred,
            labels=labels,
            unaligned=self.unaligned,
            unaligned_gold=self.unaligned_gold,
        )


def _first_seen(names: list[str], sides: list[np.ndarray]) -> list[str]:
    """Renumber the label ids of ``sides`` (rows in document order) in order of first
    appearance, document by document, gold spans first; returns the names in that order."""
    key = np.concatenate([rows[:, 0] * 2 + k for k, rows in enumerate(sides)])
    label = np.concatenate([rows[:, 3] for rows in sides])
    seen, first = np.unique(label[np.argsort(key, kind="stable")], return_index=True)
    order = seen[np.argsort(first)]
    remap = np.zeros(len(names), dtype=INT)
    remap[order] = np.arange(len(order))
    for rows in sides:
        rows[:, 3] = remap[rows[:, 3]]
    return [names[i] for i in order.tolist()]
