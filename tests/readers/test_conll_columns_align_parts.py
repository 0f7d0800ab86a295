"""``align="position"`` read in parts: parallel reading (``score_pair_in_processes``, the parts
run inline with their arguments and answers pickled, as a pool does) gives the one-process
tally and per-side counts for CoNLL pairs whose token strings differ. Such pairs are cut by
counting sentences (``plan_ranges``): matching sentences by their tokens would find few
partners where the tokens were changed."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_conll_columns_align import rename_tokens
from test_readers_conll_columns import tagged_sentence, write_pair

from spacy_span_eval import SpanEvaluator
from spacy_span_eval.errors import InvalidInputError
from spacy_span_eval.jobs.parallel_reading import score_pair_in_processes
from spacy_span_eval.readers.columnar import ColumnPair

from conftest import Inline, file_pair


def position_pair(tmp_path, n, seed, rate, unit):
    rng = random.Random(seed)
    sentences = [tagged_sentence(rng, rng.randint(1, 6), 0.35) for _ in range(n)]
    gold, pred = write_pair(tmp_path, sentences, rng, "IOB2")
    rename_tokens(pred, rate, rng)
    return file_pair(gold, pred, unit=unit, align="position")


def one_process(pair: ColumnPair, ev: SpanEvaluator):
    batches, info = pair.read()
    return ev.tally_batches(batches).result().to_dict(), {s: i.to_dict() for s, i in info.items()}


def in_parts(pair: ColumnPair, ev: SpanEvaluator, part_bytes: int):
    pool = Inline()
    _, info = pair.read()  # fresh counters
    part = score_pair_in_processes(
        pair, ev, n_process=2, info=info, part_bytes=part_bytes, pool=pool
    )
    if part is None:
        return None, pool.calls
    return (part.tally.result().to_dict(), {s: i.to_dict() for s, i in info.items()}), pool.calls


def counts(sides: dict) -> dict:
    return {s: {k: v for k, v in i.items() if k != "alignment"} for s, i in sides.items()}


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    seed=st.integers(0, 10**6),
    n=st.integers(2, 40),
    rate=st.sampled_from([0.05, 0.3, 1.0]),
    unit=st.sampled_from(["token", "char"]),
    strategy=st.sampled_from(["exact", "two_sided"]),
    part_bytes=st.integers(1, 200),
)
def test_parts_give_the_one_process_tally(tmp_path, seed, n, rate, unit, strategy, part_bytes):
    pair = position_pair(tmp_path, n, seed, rate, unit)
    ev = SpanEvaluator(strategy=strategy, unit=unit, max_errors=5, per_document=True)
    try:
        want = one_process(pair, ev)
    except InvalidInputError:
        assume(False)  # no spans at all
    got, calls = in_parts(pair, ev, part_bytes)
    if got is None:
        assert calls == 0  # one part: too small to cut
    else:
        assert got[0] == want[0]
        assert counts(got[1]) == counts(want[1])


def test_a_pair_with_every_token_changed_is_cut_and_read_in_parts(tmp_path):
    pair = position_pair(tmp_path, 60, 7, 1.0, "token")
    assert len(list(pair.plan(100))) > 5
    ev = SpanEvaluator(strategy="exact", unit="token", max_errors=10**6)
    want = one_process(pair, ev)
    got, calls = in_parts(pair, ev, 100)
    assert calls > 5 and got is not None
    assert got[0] == want[0] and counts(got[1]) == counts(want[1])
    assert want[1]["predicted"]["alignment"]["sentences"] == 60


def test_parts_give_the_one_process_alignment_report(tmp_path):
    pair = position_pair(tmp_path, 60, 7, 0.3, "token")
    ev = SpanEvaluator(strategy="exact", unit="token")
    want = one_process(pair, ev)
    got, _ = in_parts(pair, ev, 100)
    assert got is not None and got[1] == want[1]
