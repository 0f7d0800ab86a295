"""CoNLL file pairs read straight into columns: the fast path behind ``evaluate``.

:func:`.conll.read_conll` (the reference) makes a Python string per token and a
:class:`~.base.Record` per sentence; on a 100k-sentence file that is most of the run time.
Here a file is read in chunks of whole sentences (cut at blank lines), and each chunk is
parsed as one byte array with numpy:

* the positions of whitespace bytes give the lines, the whitespace-separated words and the tab
  positions, so the token column, the tag column and the column count of every line come from
  a few gathers (``delimiter`` ``auto``/``tab``/``space`` split exactly as the reference's
  ``str.split`` does);
* blank lines, ``-DOCSTART-`` lines and comment lines (only at the start of a sentence, and
  only when the line does not read as a token line) are classified by vectorized rules, and
  sentences are runs of consecutive token lines;
* tags become a prefix code and a label id (labels read as 8-byte words and interned), and
  :func:`.schemes_columns.decode_columns` decodes every sentence at once;
* the two files' tokens are compared as words of bytes, all at once (with
  ``align="position"``, those that differ are counted and the first few named, as
  :func:`.align.align_by_position` does, and the predicted spans sit on the gold tokens).

No Python object is made per token or per span. Anything that would raise in the reference
(a malformed line, an unknown tag, an ill-formed chunk under ``repair="error"``, tokens that
differ between the files) is located by the arrays, and that one sentence is then replayed
through the reference code, so messages are the reference's own and name the file and line.
Errors are raised in the order the reference would meet them (gold sentence ``k``, predicted
sentence ``k``, then the pair ``k``). Non-ASCII whitespace characters (which ``str.split``
splits on) separate columns as ASCII spaces do.

The road, a module a step: :mod:`.conll_chunks` cuts a file into chunks, :mod:`.conll_parse`
makes each a :class:`~.conll_block.ConllBlock` (the token lines found by :mod:`.conll_uniform`
in the common layout, else by :mod:`.conll_general`; the byte kernels in :mod:`.conll_bytes`),
and :mod:`.conll_batch` pairs two blocks' sentences into a batch.

Entry point: :func:`conll_pair_batches` yields :class:`~spacy_span_eval.engine.batching.SpanBatch`
columns that :meth:`SpanEvaluator.tally_batch` scores directly.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from ..engine.batching import SpanBatch
from .align import SideInfo, differences_for
from .aligned import Side, aligned
from .base import empty_input
from .conll import check_repair, splitter
from .conll_batch import equal_tags, pair_batch
from .conll_block import ConllBlock, ConllOptions
from .conll_chunks import LongLine, chunks
from .conll_parse import parse_chunk
from .schemes import Scheme, get_scheme

if TYPE_CHECKING:  # (byte ranges are a parallel run's: its planner loads them)
    from .ranges import ByteRange, RangePair

__all__ = ["CHUNK_BYTES", "ConllBlock", "conll_blocks", "conll_pair_batches"]

#: Bytes read per chunk (a chunk always ends at a blank line, so it can be larger): fewer
#: batches mean less of the engine's fixed work per batch, while the arrays of a chunk still
#: mostly fit the CPU caches.
CHUNK_BYTES = 2 << 20
#: Sentences per batch handed to the engine.
BATCH_SENTENCES = 1 << 16


def conll_blocks(
    path: Path | str,
    *,
    scheme: str | Scheme = "IOB2",
    repair: str = "conlleval",
    tag_column: int = -1,
    delimiter: str = "auto",
    comment: str | None = "#",
    chunk_bytes: int = CHUNK_BYTES,
    part: ByteRange | None = None,
    docstarts: list[str | None] | None = None,
) -> Iterator[ConllBlock]:
    """One side of a CoNLL file as blocks of columns (same options as :func:`read_conll`).

    Every block's sentences are valid; a block with ``error`` set is the last one.
    ``part``: only that range of the file (it starts a sentence, and its first line is
    ``part.line``; see :mod:`.ranges`), and no error when it holds no sentence.
    ``docstarts``: as for :func:`read_conll`.
    """
    check_repair(repair)
    splitter(delimiter)  # (raises for an unknown delimiter)
    opts = ConllOptions(path, get_scheme(scheme), repair, tag_column, delimiter, comment)
    line = 1 if part is None else part.line
    total = 0
    for chunk, offset, tail in chunks(path, chunk_bytes, part):
        if isinstance(tail, LongLine):
            tail = tail.error(path, line + chunk.count(b"\n"))
        if not chunk:
            yield ConllBlock.empty(opts, tail)
            return
        block, n_lines = parse_chunk(chunk, offset, line, opts, tail is not None)
        if docstarts is not None:
            docstarts += block.docstarts
        line += n_lines
        total += len(block)
        yield block
        if block.error is not None:
            return
        if tail is not None:
            yield ConllBlock.empty(opts, tail)
            return
    if not total and part is None:
        yield ConllBlock.empty(opts, lambda: empty_input(path, "sentences"))


def conll_pair_batches(
    gold: Path | str,
    pred: Path | str,
    *,
    scheme: str | Scheme = "IOB2",
    repair: str = "conlleval",
    gold_tag_column: int = -1,
    pred_tag_column: int = -1,
    delimiter: str = "auto",
    comment: str | None = "#",
    unit: str = "token",
    gold_info: SideInfo | None = None,
    pred_info: SideInfo | None = None,
    batch_sentences: int = BATCH_SENTENCES,
    chunk_bytes: int = CHUNK_BYTES,
    parts: RangePair | None = None,
    align: str = "text",
) -> Iterator[SpanBatch]:
    """Columnar batches of a gold and a predicted CoNLL file, paired by position.

    Same documents, spans, counts and errors as ``documents(pair_records(read_conll(gold),
    read_conll(pred)), unit=unit, align=align)``; ``gold_info``/``pred_info`` are filled in
    the same way. ``align="position"``: the tokens of each sentence pair by position, their
    strings may differ (counted in ``pred_info.alignment``, see :mod:`.align`).

    ``parts``: read only those ranges of the two files (:func:`.ranges.plan_ranges`), their
    sentences paired with each other: a worker's share. Messages that number sentences then
    count from the ranges' starts, and an empty range is no error.
    """
    differences = differences_for(align, pred_info)
    # (one thread reads both files: a chunk's numpy calls are too short to overlap under
    # the GIL)
    blocks = partial(
        conll_blocks,
        scheme=scheme,
        repair=repair,
        delimiter=delimiter,
        comment=comment,
        chunk_bytes=chunk_bytes,
    )
    gd, pd = (None if i is None else i.notes.docstarts for i in (gold_info, pred_info))
    g = Side(
        blocks(gold, tag_column=gold_tag_column, part=parts.gold if parts else None, docstarts=gd)
    )
    p = Side(
        blocks(pred, tag_column=pred_tag_column, part=parts.pred if parts else None, docstarts=pd)
    )
    done = 0
    for gb, glo, ghi, pb, plo, phi in aligned(
        g, p, gold_name=str(gold), pred_name=str(pred), where=ConllBlock.where, most=batch_sentences
    ):
        batch = pair_batch(gb, glo, ghi, pb, plo, phi, unit, done, differences)
        _count(gold_info, gb, glo, ghi, len(batch.gold))
        _count(pred_info, pb, plo, phi, len(batch.pred))
        if pred_info is not None:
            pred_info.correct_tags = (pred_info.correct_tags or 0) + equal_tags(
                gb, glo, ghi, pb, plo, phi
            )
        done += ghi - glo
        yield batch


def _count(info: SideInfo | None, block: ConllBlock, lo: int, hi: int, spans: int) -> None:
    """What one side of a batch read, in its :class:`SideInfo`."""
    if info is not None:
        info.documents += hi - lo
        info.spans += spans
        info.repaired += int(block.repaired[lo:hi].sum())
        info.tokens = (info.tokens or 0) + int(block.tok_off[hi] - block.tok_off[lo])
