"""spaCy adapter: turn ``Example`` / ``Doc`` pairs into engine :class:`~.spans.Document` values.

The engine never imports spaCy; this module is the one place that reads ``Doc.ents`` or
``Doc.spans[key]``. In ``char`` unit spans keep their character offsets, so differing
tokenizations compare exactly. In ``token`` unit predicted spans are projected onto the
reference tokens through character offsets; a span whose boundaries fall inside a reference
token cannot be projected and is kept as an unaligned prediction with a reason (semantics §1),
never dropped.

Gold spans a ``Doc`` cannot hold (they start or end inside a token) travel beside it, in
``doc.user_data["span_eval_kept_gold"]`` (written by ``convert``, saved in the ``.spacy``
file). They are read on the reference side only and are gold like any other: in ``char`` unit
they are matched as usual, in ``token`` unit they are unaligned gold (an FN with its reason).
A predicted doc that carries them is an error (:func:`check_predicted`), never a silent guess.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, TypeGuard

import numpy as np

from ..engine.batching import SpanBatch
from ..engine.columns import INT, SpanColumns
from ..engine.spans import UNITS, Document, Span
from ..errors import DocumentMismatchError, InvalidInputError, InvalidSpanError

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token
    from spacy.tokens import Span as DocSpan
    from spacy.training import Example

__all__ = [
    "DOC_ID_KEY",
    "KEPT_GOLD_KEY",
    "check_predicted",
    "docs_to_document",
    "example_to_document",
    "examples_to_batch",
    "examples_to_documents",
    "has_source_annotation",
    "kept_gold_in_unit",
    "kept_gold_spans",
    "project_to_tokens",
    "set_kept_gold",
    "source_spans",
    "stored_doc_id",
]

# Readers store a document's own id under this ``Doc.user_data`` key, so errors name it.
DOC_ID_KEY = "span_eval_id"
# Gold spans the Doc's tokens cannot hold, kept beside it: ``{source: [[start_char, end_char,
# label], ...]}``, ``source`` being ``"ents"`` or a span group key (docs/spacy_integration.md).
KEPT_GOLD_KEY = "span_eval_kept_gold"


def stored_doc_id(*docs: Doc) -> str | int | None:
    """The id a reader stored in ``user_data`` (first doc that has one), else ``None``."""
    for doc in docs:
        value: str | int | None = doc.user_data.get(DOC_ID_KEY)
        if value is not None:
            return value
    return None


def source_spans(doc: Doc, source: str) -> Sequence[DocSpan]:
    """``doc.ents`` for ``source="ents"``, else the span group ``doc.spans[source]``.

    A doc without that span group has no spans of it (as spaCy's own span scorers treat it).
    """
    if source == "ents":
        return doc.ents
    group = doc.spans.get(source)
    return () if group is None else group


def span_scores(spans: Sequence[DocSpan]) -> list[float | None]:
    """Each span's score: a span group's ``attrs["scores"]`` (spancat writes one per span)
    where it holds one number per span; else none (``Doc.ents`` have no scores)."""
    attrs = getattr(spans, "attrs", None)
    scores: list[float | None]
    try:
        scores = [float(s) for s in attrs["scores"]] if attrs and "scores" in attrs else []
    except (TypeError, ValueError):
        scores = []
    return scores if len(scores) == len(spans) else [None] * len(spans)


def has_source_annotation(doc: Doc, source: str) -> bool:
    """Whether a reference doc is annotated for ``source`` at all.

    spaCy's scorers skip such docs (``has_annotation("ENT_IOB")`` for entities, the key being
    present for span groups); the scorers here do too, but count them. Gold spans kept beside
    the doc for ``source`` are annotation too.
    """
    if source == "ents":
        annotated = doc.has_annotation("ENT_IOB")
    else:
        annotated = source in doc.spans
    return annotated or bool(_kept_rows(doc, source))


def set_kept_gold(doc: Doc, source: str, spans: Iterable[Span]) -> None:
    """Keep gold ``spans`` (character offsets) beside ``doc`` for ``source``.

    Stored as plain lists, so ``DocBin(store_user_data=True)`` saves them in the ``.spacy``
    file. No spans: nothing is stored.
    """
    rows = [[int(sp.start), int(sp.end), str(sp.label)] for sp in spans]
    if not rows:
        return
    stored = doc.user_data.get(KEPT_GOLD_KEY)
    if not isinstance(stored, dict):
        stored = doc.user_data[KEPT_GOLD_KEY] = {}
    stored.setdefault(source, []).extend(rows)


def _kept_rows(doc: Doc, source: str) -> list[Any]:
    stored = doc.user_data.get(KEPT_GOLD_KEY)
    if not stored:
        return []
    rows = stored.get(source) if isinstance(stored, dict) else stored
    return rows or []


def check_predicted(
    pred_doc: Doc, source: str, doc_id: object, gold_doc: Doc | None = None
) -> None:
    """A predicted doc must not carry gold kept beside it (unless it *is* the reference).

    Spans beside a ``Doc`` are gold written by ``convert``; on the predicted side they would
    be either gold copied along with ``user_data`` (a reference doc run through a pipeline:
    free credit) or predictions a ``Doc`` cannot hold. Neither is guessed: this raises
    :class:`~.errors.InvalidInputError` naming the document.
    """
    if pred_doc is gold_doc or not _kept_rows(pred_doc, source):
        return
    raise InvalidInputError(
        f"document {doc_id!r}: the predicted doc carries gold spans kept beside it "
        f"(user_data[{KEPT_GOLD_KEY!r}][{source!r}], written by convert). Predictions must "
        "be spans of the Doc; if this doc is a copy of the reference, remove that key, and "
        "score predictions a tokenizer cannot hold from a JSONL file in char unit"
    )


def _offset(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def kept_gold_spans(doc: Doc, source: str, doc_id: object = None) -> list[Span]:
    """The gold spans kept beside ``doc`` for ``source``, as character :class:`Span` values.

    Every stored entry is checked against semantics §1 (integer offsets inside the text, a
    non-empty label); a malformed one raises :class:`~.errors.InvalidSpanError` naming the
    document, never dropped or clipped.
    """
    stored = doc.user_data.get(KEPT_GOLD_KEY)
    if not stored:
        return []
    if doc_id is None:
        doc_id = stored_doc_id(doc)
    where = f"document {doc_id!r}, user_data[{KEPT_GOLD_KEY!r}]"
    if not isinstance(stored, dict):
        raise InvalidSpanError(
            f"{where}: expected a mapping of source to spans, not {type(stored).__name__}"
        )
    rows = stored.get(source) or []
    if not isinstance(rows, list | tuple):
        raise InvalidSpanError(
            f"{where}[{source!r}]: expected a list of [start, end, label], "
            f"not {type(rows).__name__}"
        )
    length = len(doc.text)
    out = []
    for i, row in enumerate(rows):
        ok = isinstance(row, list | tuple) and len(row) == 3
        start, end, label = row if ok else (None, None, None)
        if not (ok and _offset(start) and _offset(end)) or not isinstance(label, str) or not label:
            raise InvalidSpanError(
                f"{where}[{source!r}] #{i} {row!r}: expected [start, end, "
                "label] with integer offsets and a non-empty label"
            )
        if not 0 <= start < end <= length:
            raise InvalidSpanError(
                f"{where}[{source!r}] #{i} {row!r}: offsets outside the "
                f"text (0 <= start < end <= {length})"
            )
        out.append(Span(start, end, label))
    return out


def kept_gold_in_unit(
    doc: Doc, source: str, unit: str, doc_id: object = None
) -> tuple[list[Span], list[tuple[Span, str]]]:
    """``(spans, unaligned)``: the kept gold spans in ``unit``.

    In ``char`` unit every kept span is an ordinary gold span. In ``token`` unit a span that
    does fall on ``doc``'s tokens becomes a token span; the others are unaligned gold (counted
    as FN) with their reason, in character offsets.
    """
    kept = kept_gold_spans(doc, source, doc_id)
    if unit == "char" or not kept:
        return kept, []
    projected, lost = _project(doc, kept)
    return projected, [
        (sp, f"gold span not on token boundaries (kept beside the Doc): {detail}")
        for sp, detail in lost
    ]


def same_tokens(gold_doc: Doc, pred_doc: Doc) -> bool:
    """Whether both docs have exactly the same tokens (so token indices agree)."""
    return gold_doc is pred_doc or (
        len(gold_doc) == len(pred_doc)
        and all(g.text_with_ws == p.text_with_ws for g, p in zip(gold_doc, pred_doc, strict=True))
    )


def _mismatch(doc_id: object, gold_doc: Doc, pred_doc: Doc) -> DocumentMismatchError:
    gold_text, pred_text = gold_doc.text, pred_doc.text
    where = next(
        (i for i, (a, b) in enumerate(zip(gold_text, pred_text, strict=False)) if a != b),
        min(len(gold_text), len(pred_text)),
    )
    return DocumentMismatchError(
        f"document {doc_id!r}: reference and predicted texts differ at character {where} "
        f"({gold_text[where : where + 20]!r} != {pred_text[where : where + 20]!r})"
    )


def project_to_tokens(
    gold_doc: Doc, spans: Sequence[DocSpan]
) -> tuple[list[Span], list[tuple[Span, str]]]:
    """Project spans of another tokenization of the same text onto ``gold_doc``'s tokens.

    Returns ``(projected, unaligned)``. A span projects when its first character starts a
    reference token and its last character ends one; otherwise it goes to ``unaligned`` as a
    ``char``-offset span with the reason.
    """
    projected, lost = _project(gold_doc, in_unit(spans, "char"))
    return projected, [
        (sp, f"cannot project onto reference tokens: {detail}") for sp, detail in lost
    ]


def _project(gold_doc: Doc, spans: Iterable[Span]) -> tuple[list[Span], list[tuple[Span, str]]]:
    """Character spans onto ``gold_doc``'s tokens: ``(projected, [(span, why not)])``."""
    starts = {tok.idx: tok.i for tok in gold_doc}
    ends = {tok.idx + len(tok): tok.i + 1 for tok in gold_doc}
    projected: list[Span] = []
    unaligned: list[tuple[Span, str]] = []
    for span in spans:
        s, e = span.start, span.end
        ts, te = starts.get(s), ends.get(e)
        if ts is not None and te is not None and te > ts:
            projected.append(Span(ts, te, span.label, span.score))
            continue
        bad = [
            f"{side} character {pos} falls inside reference token {tok.text!r} "
            f"[{tok.idx}, {tok.idx + len(tok)})"
            for side, pos, hit in (("start", s, ts), ("end", e, te))
            if hit is None
            for tok in (_token_at(gold_doc, pos if side == "start" else pos - 1),)
        ]
        unaligned.append((span, "; ".join(bad) if bad else "no whole token inside"))
    return projected, unaligned


def _token_at(doc: Doc, char: int) -> Token:
    """The token whose characters (with trailing whitespace) contain ``char``."""
    for tok in doc:
        if tok.idx <= char < tok.idx + len(tok.text_with_ws):
            return tok
    return doc[-1]


def docs_to_document(
    gold_doc: Doc,
    pred_doc: Doc,
    *,
    source: str = "ents",
    unit: str = "char",
    doc_id: str | int | None = None,
) -> Document:
    """One engine document from a reference doc and a predicted doc of the same text.

    ``source`` is ``"ents"`` or a span group key. The id is ``doc_id``, else the one a reader
    stored under ``user_data["span_eval_id"]``, else ``0``. Texts that differ raise
    :class:`~.errors.DocumentMismatchError` naming the document. Gold spans kept beside the
    reference doc (:data:`KEPT_GOLD_KEY`) are gold too (:func:`kept_gold_in_unit`).
    """
    if unit not in UNITS:
        raise ValueError(f"unit must be one of {UNITS}, not {unit!r}")
    if doc_id is None:
        doc_id = stored_doc_id(gold_doc, pred_doc)
    if doc_id is None:
        doc_id = 0
    same = same_tokens(gold_doc, pred_doc)
    if not same and gold_doc.text != pred_doc.text:
        raise _mismatch(doc_id, gold_doc, pred_doc)
    pred_spans = source_spans(pred_doc, source)
    kept, unaligned_gold = kept_gold_in_unit(gold_doc, source, unit, doc_id)
    check_predicted(pred_doc, source, doc_id, gold_doc)
    gold = [*in_unit(source_spans(gold_doc, source), unit), *kept]
    unaligned: list[tuple[Span, str]] = []
    if unit == "token" and not same:
        pred, unaligned = project_to_tokens(gold_doc, pred_spans)
    else:
        pred = in_unit(pred_spans, unit)
    if unit == "char":
        return Document.create(id=doc_id, unit="char", text=gold_doc.text, gold=gold, pred=pred)
    tokens = [t.text for t in gold_doc]
    return Document.create(
        id=doc_id,
        unit="token",
        tokens=tokens,
        gold=gold,
        pred=pred,
        unaligned_pred=unaligned,
        unaligned_gold=unaligned_gold,
    )


def in_unit(spans: Sequence[DocSpan], unit: str) -> list[Span]:
    """A Doc's spans as engine spans: token indices in ``token`` unit, else characters; a
    span group's scores kept (:func:`span_scores`)."""
    scores = span_scores(spans)
    if unit == "token":
        return [Span(s.start, s.end, s.label_, c) for s, c in zip(spans, scores, strict=True)]
    return [Span(s.start_char, s.end_char, s.label_, c) for s, c in zip(spans, scores, strict=True)]


def example_to_document(
    example: Example,
    *,
    source: str = "ents",
    unit: str = "char",
    doc_id: str | int | None = None,
) -> Document:
    """One engine document from a spaCy ``Example`` (gold = reference, pred = predicted)."""
    return docs_to_document(
        example.reference, example.predicted, source=source, unit=unit, doc_id=doc_id
    )


def examples_to_documents(
    examples: Iterable[Example], *, source: str = "ents", unit: str = "char"
) -> Iterator[Document]:
    """Engine documents from examples; ids are the stored ones, else the position."""
    for i, eg in enumerate(examples):
        stored = stored_doc_id(eg.reference, eg.predicted)
        yield example_to_document(
            eg, source=source, unit=unit, doc_id=i if stored is None else stored
        )


class SpacyBatch(NamedTuple):
    """A columnar batch built from examples, how many examples were not annotated, and how
    many gold spans were read from beside the reference docs (:data:`KEPT_GOLD_KEY`)."""

    batch: SpanBatch
    unannotated: int
    kept_gold: int = 0


def examples_to_batch(
    examples: Iterable[Example], *, source: str = "ents", unit: str = "char"
) -> SpacyBatch:
    """The scorers' fast path: examples straight into columns, without ``Document`` objects.

    Same spans, ids, checks and projection as :func:`examples_to_documents`. For ``"ents"``
    every example's tokens and entity tags are read as arrays first (:class:`_EntArrays`); an
    example whose two docs have the same tokens and nothing unusual (no gold kept beside them,
    no tag ``Doc.ents`` would refuse) needs no more. Any other example, and every example of
    a span group (whose spans may overlap), is read span by span. Examples whose reference is
    not annotated for ``source`` are skipped, as spaCy's scorers do, and counted in
    ``unannotated``. No texts are kept, so error records built from this batch carry no
    context. Gold spans kept beside a reference are read as in :func:`docs_to_document` and
    counted in ``kept_gold``.
    """
    if unit not in UNITS:
        raise ValueError(f"unit must be one of {UNITS}, not {unit!r}")
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
    return SpacyBatch(columns.batch(ents, read), len(pairs) - len(read), kept)


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
        from spacy.attrs import ENT_IOB, ENT_TYPE, IDX, LENGTH, ORTH, SPACY

        tags = [ORTH, SPACY, ENT_IOB, ENT_TYPE]
        g_arrs = [g.to_array([*tags, IDX, LENGTH]) for g, _ in pairs]
        p_arrs = [p.to_array(tags) for _, p in pairs]
        (gold, g_off, g_len), (pred, p_off, p_len) = _joined(g_arrs, 6), _joined(p_arrs, 4)
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
            last = np.maximum(g_off + g_len - 1, 0)
            ends = gold[last, 1] + gold[last, 4] + gold[last, 5] if len(gold) else g_len
            self.lengths = np.where(g_len > 0, ends, 0).astype(INT)
            shifts = (0 * g_off, g_off - p_off)  # token of all docs -> its reference token
        self.rows: list[tuple[np.ndarray, ...]] = []
        self.names: list[list[str]] = []  # per side, the names of the label codes in rows
        for k, ((ex, start, end, label, _), shift) in enumerate(zip(sides, shifts, strict=True)):
            take = plain[ex]
            ex, label = ex[take], label[take]
            start, end = start[take] + shift[ex], end[take] + shift[ex]
            if unit == "char":
                start, end = gold[start, 4], gold[end - 1, 4] + gold[end - 1, 5]
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
    rows = np.frombuffer(b"".join(a.data for a in arrays), dtype=np.uint64).reshape(-1, width)
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
            raise _mismatch(doc_id, gold_doc, pred_doc)
        if self.unit == "token":
            self.lengths[d] = len(gold_doc)
        elif len(g_arr):
            self.lengths[d] = int(g_arr[-1, 1] + g_arr[-1, 2] + g_arr[-1, 3])
        self._add_doc_spans(0, d, source_spans(gold_doc, source))
        kept, lost_gold = kept_gold_in_unit(gold_doc, source, self.unit, doc_id)
        self._add(0, d, kept)
        self.unaligned_gold.extend((d, sp, why) for sp, why in lost_gold)
        check_predicted(pred_doc, source, doc_id, gold_doc)
        pred_spans = source_spans(pred_doc, source)
        if self.unit == "token" and not same:
            projected, lost = project_to_tokens(gold_doc, pred_spans)
            self._add(1, d, projected)
            self.unaligned.extend((d, sp, why) for sp, why in lost)
        else:
            self._add_doc_spans(1, d, pred_spans)
        return len(kept) + len(lost_gold)

    def _add(self, side: int, d: int, spans: Iterable[Span]) -> None:
        ids, out = self.label_ids, self.rows[side]
        for sp in spans:
            out.extend((d, sp.start, sp.end, ids.setdefault(sp.label, len(ids))))
            if side:
                self.scores.append(np.nan if sp.score is None else sp.score)

    def _add_doc_spans(self, side: int, d: int, spans: Sequence[DocSpan]) -> None:
        """A Doc's spans, in the unit's offsets; a span without a label is an error."""
        ids, out, by_token = self.label_ids, self.rows[side], self.unit == "token"
        for sp, score in zip(spans, span_scores(spans), strict=True):
            label = sp.label_
            if not label:
                raise InvalidSpanError(
                    f"document {self.doc_ids[d]!r}, {('gold', 'predicted')[side]} span "
                    f"[{sp.start_char}, {sp.end_char}) {sp.text!r}: label must be a non-empty "
                    "string"
                )
            lab = ids.setdefault(label, len(ids))
            if side:
                self.scores.append(np.nan if score is None else score)
            if by_token:
                out.extend((d, sp.start, sp.end, lab))
            else:
                out.extend((d, sp.start_char, sp.end_char, lab))

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
