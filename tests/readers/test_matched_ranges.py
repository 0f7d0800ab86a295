"""The plan that cuts two CoNLL files where their sentences match (readers/matched_ranges.py):
the same cuts as counting every paragraph where sentences are told apart by their tokens,
cuts that still pair the right sentences when the layouts differ, and no cut at all where
it cannot be sure. (That reading the parts scores as one process does, whatever the layout
and whatever the edits, is tests/jobs/test_parallel_reading.py's hypothesis test.)"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spacy_span_eval import SpanEvaluator
from spacy_span_eval.readers import matched_ranges as mr
from spacy_span_eval.readers.columnar import ColumnPair
from spacy_span_eval.readers.options import ReadOptions
from spacy_span_eval.readers.ranges import ByteRange, plan_ranges

LOOSE = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def corpus(n: int, seed: int, *, vocabulary: int = 5000) -> tuple[str, str]:
    """Gold and predicted CoNLL text of ``n`` sentences: the same tokens, other tags."""
    rng = random.Random(seed)
    gold, pred = [], []
    for _ in range(n):
        tokens = [f"w{rng.randrange(vocabulary)}" for _ in range(rng.randint(1, 8))]
        gold.append("".join(f"{t}\t{rng.choice(['O', 'B-PER', 'B-LOC'])}\n" for t in tokens))
        pred.append("".join(f"{t}\t{rng.choice(['O', 'B-ORG'])}\n" for t in tokens))
    return "\n".join(gold), "\n".join(pred)


def write(tmp_path, gold: str, pred: str):
    g, p = tmp_path / "gold.conll", tmp_path / "pred.conll"
    g.write_bytes(gold.encode("utf-8"))
    p.write_bytes(pred.encode("utf-8"))
    return g, p


def check_cover(parts, g, p):
    """Consecutive ranges from the files' starts to their ends, line numbers as counted."""
    for side, path in (("gold", g), ("pred", p)):
        ranges = [getattr(part, side) for part in parts]
        assert ranges[0].start == 0 and ranges[0].line == 1 and ranges[-1].stop is None
        data = path.read_bytes()
        for a, b in zip(ranges, ranges[1:], strict=False):
            assert a.stop == b.start
            assert data[b.start - 2 : b.start] == b"\n\n"  # a paragraph starts there
            assert b.line == 1 + data[: b.start].count(b"\n")


@LOOSE
@given(
    n=st.integers(1, 300),
    seed=st.integers(0, 10**6),
    part_bytes=st.integers(1, 3000),
    docstart=st.booleans(),
)
def test_the_cuts_are_the_counting_plans_where_sentences_differ(
    tmp_path, n, seed, part_bytes, docstart
):
    gold, pred = corpus(n, seed)
    if docstart:
        gold = "-DOCSTART- -X- O\n\n" + gold
        pred = "-DOCSTART- -X- O\n\n" + pred
    g, p = write(tmp_path, gold, pred)
    matched = list(mr.matched_ranges(g, p, part_bytes=part_bytes))
    assert matched == list(plan_ranges(g, p, rule="paragraph", part_bytes=part_bytes))
    check_cover(matched, g, p)


def test_partners_are_found_when_the_predictions_are_laid_out_differently(tmp_path):
    gold, pred = corpus(2000, 7)
    pred = "-DOCSTART- -X- O\n\n" + pred.replace("\n\n", "\n\n\n")  # longer: the guess drifts
    g, p = write(tmp_path, gold, pred)
    parts = list(mr.matched_ranges(g, p, part_bytes=2000))
    assert len(parts) > 20
    check_cover(parts, g, p)
    gold_text, pred_text = g.read_bytes(), p.read_bytes()
    for part in parts[1:]:  # each cut starts the same sentence on both sides
        g_line = gold_text[part.gold.start :].split(b"\n", 1)[0].split(b"\t")[0]
        p_line = pred_text[part.pred.start :].split(b"\n", 1)[0].split(b"\t")[0]
        assert g_line == p_line


def test_the_parts_score_as_one_process_does(tmp_path):
    gold, pred = corpus(3000, 11)
    g, p = write(tmp_path, gold, pred.replace("\n\n", "\n\n\n"))
    pair = ColumnPair(
        "conll",
        str(g),
        str(p),
        "conll",
        "conll",
        "token",
        ReadOptions(),
        ReadOptions(side="predicted"),
    )
    ev = SpanEvaluator(strategy="exact", unit="token", max_errors=50, per_document=True)
    batches, _ = pair.read()
    whole = ev.tally_batches(batches)
    parts = list(pair.plan(4000, taper=2))
    assert len(parts) > 10
    total = None
    for part in parts:
        batches, _ = pair.read(part)
        tally = ev.tally_batches(batches)
        total = tally if total is None else total + tally
    assert total.result().to_dict() == whole.result().to_dict()


def test_where_sentences_repeat_it_does_not_guess(tmp_path):
    gold, pred = corpus(400, 3, vocabulary=1)  # w0, w0 w0, ...: many lookalikes
    g, p = write(tmp_path, gold, pred.replace("\n\n", "\n\n\n"))
    parts = list(mr.matched_ranges(g, p, part_bytes=200))
    check_cover(parts, g, p)
    gold_text, pred_text = g.read_bytes(), p.read_bytes()
    for part in parts[1:]:  # any cut it made is right: as many sentences before it
        assert gold_text[: part.gold.start].count(b"\n\n") == pred_text[: part.pred.start].replace(
            b"\n\n\n", b"\n\n"
        ).count(b"\n\n")


def test_a_carriage_return_is_left_to_the_counting_plan_or_stops_the_cutting(tmp_path):
    gold, pred = corpus(3000, 5)
    g, p = write(tmp_path, gold.replace("\n", "\r\n"), pred)
    assert mr.matched_ranges(g, p, part_bytes=1000) is None  # in the head: counted instead
    lines = gold.split("\n")
    at = len(lines) // 2
    lines[at] = lines[at] + "\r"  # one further on: no cut from there on
    g, p = write(tmp_path, "\n".join(lines), pred)
    parts = list(mr.matched_ranges(g, p, part_bytes=1000))
    cr = g.read_bytes().index(b"\r")
    assert len(parts) > 2
    assert all(part.gold.start <= cr for part in parts)
    check_cover(parts, g, p)


@pytest.mark.parametrize("taper", [2, 4])
def test_taper_shortens_the_last_parts(tmp_path, taper):
    gold, pred = corpus(4000, 9)
    g, p = write(tmp_path, gold, pred)
    parts = list(mr.matched_ranges(g, p, part_bytes=8000, taper=taper))
    sizes = [part.gold.stop - part.gold.start for part in parts[:-1]]
    assert max(sizes[:3]) >= 7990 and min(sizes[-3:]) < 2000
    assert min(sizes) >= 8000 // 16
    check_cover(parts, g, p)
    assert parts[0].gold == ByteRange(0, parts[1].gold.start, 1)


def test_a_corpus_of_repeated_blocks_is_still_cut(tmp_path):
    """Every sentence pair recurs once a block; the partner is looked for near where it
    should be first, where it is the only one."""
    gold, pred = corpus(300, 13)
    g, p = write(tmp_path, gold * 20, pred * 20)
    parts = list(mr.matched_ranges(g, p, part_bytes=len(gold) // 3))
    assert len(parts) > 30
    check_cover(parts, g, p)
    for part in parts[1:]:
        assert part.gold.line == part.pred.line  # same layout: the same sentence, the same line
