"""One :class:`~spacy_span_eval.engine.batching.SpanBatch` from the sentences of a gold and a
predicted :class:`~.conll_block.ConllBlock` that pair by position: the two sides' tokens
compared as words of bytes, all at once, and the spans as columns (in characters for the char
unit). A pair whose tokens differ is replayed through the reference pairing for its error, or,
with ``align="position"``, counted as :func:`.align.align_by_position` counts it."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar, overload

import numpy as np

from ..engine.batching import SpanBatch
from ..engine.columns import INT, SpanColumns
from .align import TokenDifferences, align_by_position, difference_example
from .conll_block import ConllBlock
from .conll_bytes import differing_tokens
from .pairing import to_document

__all__ = ["equal_tags", "pair_batch"]


def pair_batch(
    g: ConllBlock,
    glo: int,
    ghi: int,
    p: ConllBlock,
    plo: int,
    phi: int,
    unit: str,
    done: int,
    differences: TokenDifferences | None = None,
) -> SpanBatch:
    """The batch of gold sentences ``glo:ghi`` and predicted ``plo:phi`` (``done``: the
    sentences paired before them). ``differences``: pair tokens by position, counting the
    differing ones there; the predicted spans then sit on the gold tokens."""
    bad = _differing_sentences(g, glo, ghi, p, plo, phi)
    if differences is not None:
        if bad.shape[0]:
            _count_differences(g, glo, p, plo, bad, done, differences)
        bad = bad[:0]
    for j in bad.tolist():
        gr, pr = g.record(glo + j), p.record(plo + j)
        if unit == "token" or gr.char_text() != pr.char_text():
            to_document(gr, pr, unit=unit)  # raises the reference's error
            raise AssertionError("tokens differ but the reference pairs them")  # pragma: no cover
    known = {name: i for i, name in enumerate(g.labels)}
    remap = np.array([known.setdefault(name, len(known)) for name in p.labels], dtype=INT)
    gold = _side_columns(g, glo, ghi, unit, None)
    pred = _side_columns(p, plo, phi, unit, remap, None if differences is None else (g, glo))
    lengths = np.diff(g.tok_off[glo : ghi + 1])
    texts: Sequence[str] | None = None
    tokens: Sequence[tuple[str, ...]] | None = _Spans(g.tokens, g, glo, ghi)
    if unit == "char":
        lo, hi = g.tok_off[glo], g.tok_off[ghi]
        per = (
            np.add.reduceat(g.char_lengths()[lo:hi], g.tok_off[glo:ghi] - lo)
            if ghi > glo
            else np.zeros(0, dtype=INT)
        )
        lengths = np.where(lengths > 0, per + lengths - 1, 0)  # tokens joined by spaces
        texts, tokens = _Spans(g.text, g, glo, ghi), None
    return SpanBatch(
        doc_ids=_Keys(g, glo, ghi),
        lengths=lengths.astype(INT),
        gold=gold,
        pred=pred,
        labels=list(known),
        texts=texts,
        tokens=tokens,
    )


def equal_tags(g: ConllBlock, glo: int, ghi: int, p: ConllBlock, plo: int, phi: int) -> int:
    """How many tokens of gold sentences ``glo:ghi`` have the same tag as their predicted
    token (sentences ``plo:phi``), as conlleval counts its accuracy: the tags' bytes equal.
    The tokens of a sentence pair of other lengths (a char-unit pair tokenized apart) pair
    with none."""
    gt, pt, _ = _token_pairs(g, glo, ghi, p, plo, phi)
    gs, gl = g.tag_start[gt], g.tag_len[gt]
    differ = differing_tokens(g.buf, gs, gl, p.buf, p.tag_start[pt], p.tag_len[pt])
    return int(gs.shape[0] - differ.shape[0])


def _token_pairs(
    g: ConllBlock, glo: int, ghi: int, p: ConllBlock, plo: int, phi: int
) -> tuple[slice | np.ndarray, slice | np.ndarray, np.ndarray]:
    """``(gold tokens, predicted tokens, which pairs have them)`` of the sentence pairs
    ``glo:ghi``/``plo:phi`` of one length: as slices where all are (the usual case), else
    as indices."""
    gn, pn = np.diff(g.tok_off[glo : ghi + 1]), np.diff(p.tok_off[plo : phi + 1])
    same = gn == pn
    if same.all():
        gt0, pt0, n = int(g.tok_off[glo]), int(p.tok_off[plo]), int(g.tok_off[ghi] - g.tok_off[glo])
        return slice(gt0, gt0 + n), slice(pt0, pt0 + n), same
    within = _within(gn[same])
    gt = np.repeat(g.tok_off[glo:ghi][same], gn[same]) + within
    return gt, np.repeat(p.tok_off[plo:phi][same], gn[same]) + within, same


def _side_columns(
    b: ConllBlock,
    lo: int,
    hi: int,
    unit: str,
    remap: np.ndarray | None,
    tokens: tuple[ConllBlock, int] | None = None,
) -> SpanColumns:
    """The spans of ``b``'s sentences ``lo:hi``; in char unit measured on the tokens of
    ``tokens`` (a block and its sentence matching ``lo``, sentences of the same lengths;
    ``None``: ``b``'s own)."""
    a, z = np.searchsorted(b.span_sent, [lo, hi])
    doc = b.span_sent[a:z] - lo
    start, end = b.span_start[a:z], b.span_end[a:z]
    label = b.span_label[a:z] if remap is None else remap[b.span_label[a:z]]
    if unit == "char":
        t, tlo = (b, lo) if tokens is None else tokens
        chars = t.char_lengths()
        offsets = t.tok_off[tlo : tlo + hi - lo]
        first_tok = offsets[doc]
        # Character offset of every token in its sentence: tokens joined by single spaces.
        at = np.zeros(chars.shape[0] + 1, dtype=INT)
        np.cumsum(chars + 1, out=at[1:])
        base = at[offsets][doc]
        s_tok, e_tok = first_tok + start, first_tok + end - 1
        start = at[s_tok] - base
        end = at[e_tok] - base + chars[e_tok]
    item = _within(np.bincount(doc, minlength=hi - lo))
    return SpanColumns(doc.astype(INT), start.astype(INT), end.astype(INT), label.astype(INT), item)


def _differing_sentences(
    g: ConllBlock, glo: int, ghi: int, p: ConllBlock, plo: int, phi: int
) -> np.ndarray:
    """Sentences (relative to ``glo``/``plo``) whose tokens differ between the two files."""
    gt, pt, same = _token_pairs(g, glo, ghi, p, plo, phi)
    bad_tok = _differing(g, gt, p, pt)
    differ = ~same
    if bad_tok.shape[0]:
        n = np.diff(g.tok_off[glo : ghi + 1])[same]
        paired = np.flatnonzero(same)
        differ[paired[np.searchsorted(np.cumsum(n) - n, bad_tok, side="right") - 1]] = True
    return np.flatnonzero(differ)


def _differing(
    g: ConllBlock, gt: slice | np.ndarray, p: ConllBlock, pt: slice | np.ndarray
) -> np.ndarray:
    """Which of the tokens ``gt`` of ``g`` differ from the tokens ``pt`` of ``p``."""
    return differing_tokens(
        g.buf, g.tok_start[gt], g.tok_len[gt], p.buf, p.tok_start[pt], p.tok_len[pt]
    )


def _count_differences(
    g: ConllBlock,
    glo: int,
    p: ConllBlock,
    plo: int,
    bad: np.ndarray,
    done: int,
    differences: TokenDifferences,
) -> None:
    """Pair the tokens of sentences ``bad`` (relative to ``glo``/``plo``, whose tokens
    differ) by position, as :func:`.align.align_by_position` does for each: a sentence of
    different lengths is its error, else the differing tokens are counted in
    ``differences`` and the first few named."""
    gn = g.tok_off[glo + bad + 1] - g.tok_off[glo + bad]
    pn = p.tok_off[plo + bad + 1] - p.tok_off[plo + bad]
    uneven = np.flatnonzero(gn != pn)
    if uneven.shape[0]:
        j = int(bad[uneven[0]])
        align_by_position(
            g.record(glo + j), p.record(plo + j), index=done + j + 1, differences=TokenDifferences()
        )  # raises the reference's error
        raise AssertionError("lengths differ but the reference pairs them")  # pragma: no cover
    within = _within(gn)
    gt = np.repeat(g.tok_off[glo + bad], gn) + within
    pt = np.repeat(p.tok_off[plo + bad], gn) + within
    tok = _differing(g, gt, p, pt)
    differences.tokens += int(tok.shape[0])
    differences.sentences += int(bad.shape[0])
    room = differences.limit - len(differences.examples)
    if room > 0:
        sentence = np.repeat(bad, gn)
        for k in tok[:room].tolist():
            j, i = int(sentence[k]), int(within[k])
            differences.examples.append(
                difference_example(
                    g.where(glo + j), p.where(plo + j), i, g.token(int(gt[k])), p.token(int(pt[k]))
                )
            )


def _within(counts: np.ndarray) -> np.ndarray:
    """0, 1, ... counts[0] - 1, 0, 1, ... for each count."""
    out: np.ndarray = np.arange(int(counts.sum()), dtype=INT)
    out -= np.repeat(np.cumsum(counts) - counts, counts)
    return out


_Row = TypeVar("_Row")


class _Lazy(Sequence[_Row]):
    """Rows ``lo:hi`` of a block, each made by ``row`` when asked for (token strings are
    decoded only when an error record or a document's verdicts need them)."""

    def __init__(self, row: Callable[[int], _Row], lo: int, hi: int) -> None:
        self.row, self.lo, self.hi = row, lo, hi

    def __len__(self) -> int:
        return self.hi - self.lo

    @overload
    def __getitem__(self, d: int) -> _Row: ...
    @overload
    def __getitem__(self, d: slice) -> list[_Row]: ...
    def __getitem__(self, d: int | slice) -> _Row | list[_Row]:
        if isinstance(d, slice):
            return [self[i] for i in range(*d.indices(len(self)))]
        if not -len(self) <= d < len(self):
            raise IndexError(d)
        return self.row(self.lo + (d % len(self)))

    def __iter__(self) -> Iterator[_Row]:
        return map(self.row, range(self.lo, self.hi))


class _Spans(_Lazy[_Row]):
    """The texts (``row`` is the block's ``text``: char unit) or tokens of a batch, which also
    read many spans' texts at once (:class:`~..engine.batching.SpanTexts`): the bytes of their
    tokens gathered and decoded together, not each document's every token."""

    def __init__(self, row: Callable[[int], _Row], block: ConllBlock, lo: int, hi: int) -> None:
        super().__init__(row, lo, hi)
        self.block, self.by_char = block, row == block.text

    def span_texts(self, docs: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> list[str]:
        b = self.block
        first_tok = b.tok_off[self.lo + docs]
        if not self.by_char:
            return _joined(b, first_tok + starts, first_tok + ends)
        at = np.zeros(b.tok_len.shape[0] + 1, dtype=INT)  # where each token starts, in
        np.cumsum(b.char_lengths() + 1, out=at[1:])  # the texts of all sentences joined
        begin, end = at[first_tok] + starts, at[first_tok] + ends
        first = np.searchsorted(at, begin, side="right") - 1
        texts = _joined(b, first, np.searchsorted(at, end, side="left"))
        cut = zip(texts, (begin - at[first]).tolist(), (end - at[first]).tolist(), strict=True)
        return [(text + " ")[a:z] for text, a, z in cut]  # (a space follows each token)


def _joined(b: ConllBlock, first: np.ndarray, stop: np.ndarray) -> list[str]:
    """The tokens ``first[k]:stop[k]`` (``stop > first``) of block ``b`` joined by single
    spaces, for every ``k``, decoded at once."""
    if not first.shape[0]:
        return []
    count = stop - first
    tok = np.repeat(first, count) + _within(count)
    width = b.tok_len[tok] + 1  # each token, then a space or (after a span's last) a newline
    after = np.cumsum(width)
    at = np.repeat(b.tok_start[tok] - (after - width), width) + np.arange(after[-1])
    out = np.frombuffer(b.buf, dtype=np.uint8)[at]
    out[after - 1] = ord(" ")
    out[after[np.cumsum(count) - 1] - 1] = ord("\n")
    data: bytes = out.tobytes()
    return data.decode("utf-8").split("\n")[:-1]


class _Keys(_Lazy[str]):
    """Document ids of a batch: ``"<gold file name>:<line>"``."""

    def __init__(self, block: ConllBlock, lo: int, hi: int) -> None:
        super().__init__(block.key, lo, hi)
        self.block = block

    def __iter__(self) -> Iterator[str]:
        name, lines = self.block.opts.name, self.block.sent_line[self.lo : self.hi]
        return (f"{name}:{x}" for x in lines.tolist())
