"""Local parallel scoring gives exactly the single-process tally, with bounded memory."""

from __future__ import annotations

import json
import os
from functools import partial
from itertools import count

import numpy as np
import pytest

from spacy_span_eval import (
    Document,
    Hierarchy,
    InvalidInputError,
    InvalidSpanError,
    Span,
    SpanEvaluator,
)
from spacy_span_eval.engine.rows import document_from_row
from spacy_span_eval.engine.tally import Tally
from spacy_span_eval.jobs import options
from spacy_span_eval.jobs.chunks import chunk_documents, merge_in_order, score_chunk
from spacy_span_eval.jobs.scoring import score_documents
from spacy_span_eval.readers.demo_corpus import gold_documents, recognizer

from conftest import DEMO_BRANCH

pytestmark = pytest.mark.processes  # a pool of worker processes per case

BRANCH = Hierarchy(DEMO_BRANCH)


def corpus(n: int) -> list[Document]:
    """Demo sentences; every 17th also has a prediction that could not be aligned (counted
    as a false positive, with a record of its own)."""
    docs = []
    for i, s in enumerate(gold_documents(n, seed=5)):
        unaligned = [(Span(0, 1, "PERSON"), "token projection failed")] if i % 17 == 3 else []
        docs.append(
            Document.create(
                id=s.id, text=s.text, gold=s.spans, pred=recognizer(s), unaligned_pred=unaligned
            )
        )
    return docs


DOCS = corpus(1200)

EVALUATORS = {
    "two_sided": lambda: SpanEvaluator(
        thresholds=(0.3, 0.5, 0.75, 0.9), hierarchy=BRANCH, max_errors=25, batch_size=64
    ),
    "exact": lambda: SpanEvaluator(
        strategy="exact", label_map={"ORG": "ORGANIZATION"}, max_errors=None, batch_size=64
    ),
    # a side table (the four schemas) beside the ledger, on a hierarchy level too
    "semeval": lambda: SpanEvaluator(
        strategy="semeval", hierarchy=BRANCH, max_errors=40, batch_size=64
    ),
}


@pytest.mark.parametrize(
    ("strategy", "partition_size"),
    [("two_sided", 1), ("two_sided", 100), ("exact", None), ("semeval", 100)],
)
def test_two_processes_give_the_single_process_tally(strategy, partition_size):
    ev = EVALUATORS[strategy]()
    want = ev.tally(DOCS)
    # The cap must bite, or the order of the kept records would go untested.
    assert ev.settings.max_errors is None or want.result().micro.fn > ev.settings.max_errors
    got = score_documents(iter(DOCS), ev, n_process=2, partition_size=partition_size)
    assert got.n_documents == len(DOCS)
    assert got.result().to_dict() == want.result().to_dict()
    assert got.notes == want.notes and (got.agnostic == want.agnostic).all()


def parse_json_line(line: str) -> Document:
    """What a worker runs when given raw JSON lines (module level, so it pickles)."""
    return document_from_row(json.loads(line), unit="char")


def test_workers_can_parse_raw_items():
    lines = [
        json.dumps(
            {
                "id": d.id,
                "text": d.text,
                "gold": [list(x) for x in _triples(d.gold)],
                "pred": [list(x) for x in _triples(d.pred)],
            }
        )
        for d in DOCS[:700]
    ]
    ev = SpanEvaluator(thresholds=(0.5, 0.9), max_errors=40, batch_size=50)
    want = ev.evaluate([*(parse_json_line(x) for x in lines)]).to_dict()
    assert score_documents(lines, ev, parse=parse_json_line).result().to_dict() == want
    got = score_documents(iter(lines), ev, n_process=2, partition_size=120, parse=parse_json_line)
    assert got.result().to_dict() == want


def _triples(spans):
    return [(s.start, s.end, s.label) for s in spans]


def test_rows_become_documents():
    row = {
        "id": 3,
        "length": np.int64(6),
        "gold": [{"start": np.int64(0), "end": 2, "label": "X"}],
        "pred": np.array([]),
    }
    doc = document_from_row(row, unit="token")
    assert (doc.id, doc.length, doc.gold[0].end, doc.pred) == ("3", 6, 2, ())
    as_doc = partial(document_from_row, unit="char")
    with pytest.raises(InvalidInputError, match="'pred' is missing"):
        as_doc({"id": "a", "length": 3, "gold": [], "pred": None})
    with pytest.raises(InvalidInputError, match="offsets must be integers"):
        as_doc({"id": "a", "text": "abc", "gold": [(0.0, 2.5, "X")], "pred": []})
    with pytest.raises(InvalidInputError, match="without an id"):
        as_doc({"gold": [], "pred": [], "length": 1})
    with pytest.raises(InvalidInputError, match="is a string"):
        as_doc({"id": "a", "text": "abc", "gold": "[(0, 1, 'X')]", "pred": []})


def test_chunks_are_whole_batches_read_lazily():
    ev = SpanEvaluator(batch_size=10)
    pulled = count()

    def stream():
        for doc in DOCS[:95]:
            next(pulled)
            yield doc

    chunks = chunk_documents(stream(), ev, partition_size=25)  # rounds up to 3 batches
    first = next(chunks)
    assert [len(b) for b in first] == [10, 10, 10]
    assert next(pulled) == 30  # nothing read beyond the first chunk
    rest = list(chunks)
    assert [[len(b) for b in c] for c in rest] == [[10, 10, 10], [10, 10, 10], [5]]
    with pytest.raises(ValueError, match="partition_size"):
        next(chunk_documents(iter(DOCS), ev, partition_size=0))


class _Slow:
    """A future whose result is asked for in a recorded order."""

    def __init__(self, tally: Tally, log: list, index: int) -> None:
        self.tally, self.log, self.index = tally, log, index
        self.cancelled = False

    def result(self) -> Tally:
        self.log.append(("merge", self.index))
        return self.tally

    def cancel(self) -> bool:
        self.cancelled = True
        return True


def test_merge_is_bounded_and_in_submission_order():
    ev = SpanEvaluator(batch_size=50, max_errors=7)
    chunks = list(chunk_documents(DOCS[:600], ev, partition_size=50))
    log: list = []
    numbers = count()
    shipped: list[int] = []

    def submit(chunk):
        i = next(numbers)
        log.append(("submit", i))
        part = score_chunk(ev, chunk).tally
        shipped.append(len(part.views["labels"].errors[0]))
        return _Slow(part, log, i)

    got = merge_in_order(submit, chunks, settings=ev.settings, max_in_flight=3)
    assert got.result().to_dict() == ev.tally(DOCS[:600]).result().to_dict()
    # The kept records are a sample of the whole corpus: every chunk ships its own sample
    # (at most max_errors records), whatever the merged total holds already.
    assert shipped[0] == 7
    assert all(n <= 7 for n in shipped) and shipped[-1] > 0
    outstanding, worst = 0, 0
    for event, _ in log:
        outstanding += 1 if event == "submit" else -1
        worst = max(worst, outstanding)
    assert worst == 3
    assert [i for event, i in log if event == "merge"] == list(range(len(chunks)))


def test_a_chunk_builds_records_only_for_its_sample(built_records):
    ev = SpanEvaluator(batch_size=50, max_errors=9, thresholds=(0.5, 0.9))
    (chunk,) = chunk_documents(DOCS[:200], ev, partition_size=200)
    scores = SpanEvaluator(thresholds=(0.5, 0.9), max_errors=0).evaluate(DOCS[:200])
    errors = sum(r.micro.fn + r.micro.fp for r in scores.levels["labels"])
    built_records.clear()
    whole = score_chunk(ev, chunk).tally.views["labels"].errors
    assert [len(kept) for kept in whole] == [9, 9]
    # Per batch, only the 9 lowest-priority errors of each kind and label are built: at
    # most one per error of each threshold.
    assert 18 <= len(built_records) <= errors
    # Every part keeps its whole sample: a later part may hold what the sample keeps.
    part = score_chunk(ev, chunk).tally.views["labels"].errors
    assert part == whole


def test_a_failing_chunk_cancels_the_rest():
    ev = SpanEvaluator()
    futures: list[_Slow] = []

    class Failing(_Slow):
        def result(self) -> Tally:
            raise InvalidSpanError("document 'x': boom")

    def submit(chunk):
        futures.append((Failing if not futures else _Slow)(Tally.empty(ev.settings), [], 0))
        return futures[-1]

    with pytest.raises(InvalidSpanError, match="boom"):
        merge_in_order(submit, [[]] * 5, settings=ev.settings, max_in_flight=3)
    assert [f.cancelled for f in futures] == [False, True, True]


def test_invalid_span_found_in_a_worker_is_raised_here():
    # Built without validation, as a careless adapter might; the engine's column check
    # runs in the worker and must surface with its type and the document's name.
    bad = Document(id="broken-7", length=5, gold=(Span(0, 9, "PERSON"),), pred=())
    docs = [*DOCS[:130], bad, *DOCS[130:200]]
    with pytest.raises(InvalidSpanError, match="broken-7"):
        score_documents(iter(docs), SpanEvaluator(batch_size=32), n_process=2)


def test_empty_stream_and_single_process():
    ev = SpanEvaluator()
    assert score_documents(iter(()), ev, n_process=2).n_documents == 0
    one = score_documents(DOCS[:50], ev)
    assert one.result().to_dict() == ev.evaluate(DOCS[:50]).to_dict()


@pytest.mark.parametrize("bad", [0, -2, 1.5, True])
def test_n_process_must_be_a_count(bad):
    with pytest.raises(ValueError, match="n_process"):
        score_documents(DOCS, SpanEvaluator(), n_process=bad)


def test_n_process_minus_one_means_every_cpu(monkeypatch):
    monkeypatch.setattr(options, "available_cpus", lambda: 1 << 16)
    assert options.worker_count(-1) == (os.cpu_count() or 1)


def test_local_processes_and_a_cluster_are_exclusive():
    with pytest.raises(ValueError, match="not both"):
        score_documents(DOCS, SpanEvaluator(), n_process=2, dask_scheduler="tcp://127.0.0.1:1")
