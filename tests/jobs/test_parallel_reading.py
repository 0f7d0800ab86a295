"""Parallel reading: workers read their own byte ranges of a file pair, and the report is the
single-process one (ledgers, error records and their line-numbered ids, per-side counts) or
the run falls back to one process, which then fails with the single-process message.

First the plan (``readers/ranges.py``): read range by range, a file gives the records the
whole-file read gives. Then pairs of random files, in layouts that differ between the two
sides, with errors, cut into ranges of a few bytes, through ``score_pair_in_processes`` with
the parts run inline (their arguments and answers pickled, as a pool does). Then the
command: ``evaluate_files(..., n_process=2)`` with a real pool against one process.
"""

from __future__ import annotations

import json
import random
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_readers_conll_columns import (
    OPTIONS,
    WORDS,
    columnar,
    conll_texts,
    tagged_sentence,
    write_pair,
)

from spacy_span_eval import SpanEvaluator
from spacy_span_eval.api import evaluate_files
from spacy_span_eval.errors import InvalidInputError
from spacy_span_eval.jobs import parallel_reading
from spacy_span_eval.jobs.parallel_reading import pool_context, score_pair_in_processes
from spacy_span_eval.readers.columnar import ColumnPair
from spacy_span_eval.readers.conll_columns import conll_blocks
from spacy_span_eval.readers.options import ReadingOptions
from spacy_span_eval.readers.ranges import ByteRange, plan_ranges
from spacy_span_eval.render.report import render_report

from conftest import Inline, file_pair

pytestmark = pytest.mark.processes  # a pool of worker processes per case

SLOW = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


# -- the plan ---------------------------------------------------------------------------------


def by_ranges(path, part_bytes, **options):
    """The records of a file read range by range, as ``columnar`` gives them."""
    out, docstarts = [], []
    parts = list(plan_ranges(path, path, rule="paragraph", part_bytes=part_bytes))
    for pair in parts:
        assert pair.gold == pair.pred
        for block in conll_blocks(path, part=pair.gold, docstarts=docstarts, **options):
            for j in range(len(block)):
                r = block.record(j)
                out.append((r.where, r.key, r.tokens, r.spans, r.repaired))
            if block.error is not None:
                return None, parts
    return [*out, ("docstarts", docstarts)], parts


# (about two in three drawn files hold an error, on purpose: the generator serves the error
# tests too, and those are left out here, so a run of them must not fail the health check)
@settings(SLOW, suppress_health_check=[*SLOW.suppress_health_check, HealthCheck.filter_too_much])
@given(data=st.data(), options=OPTIONS, part_bytes=st.integers(1, 120))
def test_a_file_read_range_by_range_gives_the_whole_files_records(
    tmp_path, data, options, part_bytes
):
    text = data.draw(conll_texts(options))
    path = tmp_path / "data.conll"
    path.write_bytes(text.encode("utf-8"))
    want = columnar(path, **options)
    assume(not want or want[-1][0] != "error")
    got, parts = by_ranges(path, part_bytes, **options)
    assert got == want
    starts = [p.gold.start for p in parts]
    assert starts == sorted(set(starts)) and starts[0] == 0
    assert [p.gold.stop for p in parts] == [*starts[1:], None]


def test_cuts_fall_where_sentences_start_and_lines_are_counted(tmp_path):
    gold = tmp_path / "g.conll"
    gold.write_bytes("\ufeff-DOCSTART- -X- O\n\na\tO\nb\tB-X\n\n\n# c\nc\tO\r\n\r\nd\tO\n".encode())
    pred = tmp_path / "p.conll"
    pred.write_bytes(b"a\tO\nb\tO\n\nc\tB-X\n\n\n\nd\tO\n")  # no DOCSTART, no comment
    parts = list(plan_ranges(gold, pred, rule="paragraph", part_bytes=1))
    # The DOCSTART paragraph holds no sentence: gold's first range pairs with an empty one.
    assert [(p.gold, p.pred) for p in parts] == [
        (ByteRange(0, 21, 1), ByteRange(0, 0, 1)),
        (ByteRange(21, 33, 3), ByteRange(0, 9, 1)),
        (ByteRange(33, 44, 7), ByteRange(9, 18, 4)),
        (ByteRange(44, None, 10), ByteRange(18, None, 8)),
    ]
    # By lines: a cut at every non-empty line until the predictions run out of lines.
    assert [
        (p.gold.start, p.pred.start) for p in plan_ranges(gold, pred, rule="line", part_bytes=1)
    ] == [(0, 0), (3, 0), (21, 4), (25, 9), (33, 18)]


def test_a_lone_carriage_return_ends_the_cutting(tmp_path):
    path = tmp_path / "cr.conll"
    path.write_bytes(b"a\tO\n\nb\tO\rc\tO\n\nd\tO\n\ne\tO\n")
    parts = list(plan_ranges(path, path, rule="paragraph", part_bytes=1))
    assert [p.gold for p in parts] == [ByteRange(0, 5, 1), ByteRange(5, None, 3)]
    got, _ = by_ranges(path, 1)
    assert got == columnar(path)


# -- pairs of files, parts run inline -----------------------------------------------------------


def relayout(text: str, how: str) -> str:
    """The same sentences in another layout (what the plan must cope with)."""
    if how == "blank lines":
        return text.replace("\n\n", "\n\n\n")
    if how == "docstart":
        return "-DOCSTART- -X- O\n\n" + text.replace("\n\n", "\n\n-DOCSTART- -X- O\n\n", 2)
    if how == "comments":
        return "# first\n" + text.replace("\n\n", "\n\n# sentence\n")
    if how == "crlf":
        return text.replace("\n", "\r\n")
    if how == "bom":
        return "\ufeff" + text
    return text


def pair_tally(*args, **kwargs):
    """The tally of :func:`score_pair_in_processes` (``None`` where it reads nothing)."""
    part = score_pair_in_processes(*args, **kwargs)
    return None if part is None else part.tally


def serial(pair: ColumnPair, ev: SpanEvaluator):
    try:
        batches, info = pair.read()
        result = ev.tally_batches(batches).result().to_dict()
    except InvalidInputError as exc:
        return type(exc).__name__, str(exc)
    return result, {side: i.to_dict(info["gold"]) for side, i in info.items()}


def in_parts(pair: ColumnPair, ev: SpanEvaluator, part_bytes: int):
    pool = Inline()
    _, info = pair.read()  # fresh counters
    tally = pair_tally(pair, ev, n_process=2, info=info, part_bytes=part_bytes, pool=pool)
    if tally is None:
        assert all(i.documents == 0 for i in info.values())  # untouched
        return None, pool.calls
    try:
        result = tally.result().to_dict()
    except InvalidInputError as exc:  # nothing to score: raised here, as by one process
        return (type(exc).__name__, str(exc)), pool.calls
    return (result, {side: i.to_dict(info["gold"]) for side, i in info.items()}), pool.calls


def conll_pair(tmp_path, n, seed):
    rng = random.Random(seed)
    sentences = [tagged_sentence(rng, rng.randint(1, 6), 0.35) for _ in range(n)]
    return write_pair(tmp_path, sentences, rng, "IOB2"), rng


def edit(path, how, rng):
    lines = path.read_text(encoding="utf-8").split("\n")
    i = rng.choice([i for i, line in enumerate(lines) if "\t" in line])  # a token line
    token, tag = lines[i].split("\t")
    if how == "token":
        lines[i] = f"{token}X\t{tag}"
    elif how == "bad tag":
        lines[i] = f"{token}\tZ-PER"
    elif how == "malformed":
        lines[i] = token
    elif how == "extra sentence":
        lines += ["extra\tO", ""]
    elif how == "dropped line":
        lines = lines[:i] + lines[i + 1 :]
    path.write_text("\n".join(lines), encoding="utf-8")


@SLOW
@given(
    seed=st.integers(0, 10**6),
    n=st.integers(1, 40),
    layout=st.sampled_from(["same", "blank lines", "docstart", "comments", "crlf", "bom"]),
    edits=st.lists(
        st.sampled_from(["token", "bad tag", "malformed", "extra sentence", "dropped line"]),
        max_size=1,
    ),
    unit=st.sampled_from(["token", "char"]),
    repair=st.sampled_from(["conlleval", "error"]),
    strategy=st.sampled_from(["exact", "two_sided"]),
    part_bytes=st.integers(1, 200),
)
def test_conll_pairs_in_parts_score_or_fail_as_one_process(
    tmp_path, seed, n, layout, edits, unit, repair, strategy, part_bytes
):
    (gold, pred), rng = conll_pair(tmp_path, n, seed)
    pred.write_bytes(relayout(pred.read_text(encoding="utf-8"), layout).encode("utf-8"))
    for how in edits:
        edit(gold if how in ("bad tag", "malformed") else pred, how, rng)
    options = ReadingOptions(repair=repair)
    pair = file_pair(
        gold,
        pred,
        unit=unit,
        gold_options=options,
        pred_options=ReadingOptions(repair=repair, side="predicted"),
    )
    ev = SpanEvaluator(strategy=strategy, unit=unit, max_errors=5, per_document=True)
    want = serial(pair, ev)
    got, calls = in_parts(pair, ev, part_bytes)
    if isinstance(want[0], str) and want[0] != "EmptyEvaluationError":
        assert got is None  # one process reads it again, and fails as it does
    elif got is None:
        # Too small to cut (one part), or an edit that keeps the files valid but moves a
        # sentence from one part to the next.
        assert calls == 0 or edits
    else:
        assert got == want


def jsonl_pair(tmp_path, n, seed, ids):
    rng = random.Random(seed)
    gold, pred = [], []
    for i in range(n):
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 5)))
        spans = []
        for _ in range(rng.randint(0, 3)):
            s = rng.randrange(len(text))
            spans.append(
                {
                    "start": s,
                    "end": rng.randint(s + 1, len(text)),
                    "label": rng.choice(["PER", "LOC"]),
                }
            )
        row = {"text": text, "spans": spans}
        guess = {"text": text, "spans": [x for x in spans if rng.random() < 0.7]}
        if ids:
            row["id"], guess["id"] = f"d{i}", f"d{i}"
        gold.append(row)
        pred.append(guess)
    paths = tmp_path / "gold.jsonl", tmp_path / "pred.jsonl"
    for path, rows in zip(paths, (gold, pred), strict=True):
        path.write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
        )
    return paths, rng


JSON_EDITS = [
    "none",
    "none",
    "bad span",
    "text",
    "extra",
    "blank",
    "broken",
    "swap",
    "repeated id",
    "no id",
]


def edit_json_lines(path, how, n, rng):
    lines = path.read_text(encoding="utf-8").split("\n")
    i = rng.randrange(n)
    record = json.loads(lines[i])
    if how == "bad span":
        record["spans"] = [{"start": 1, "end": len(record["text"]) + 3, "label": "X"}]
    elif how == "text":
        record["text"] = "x" + record["text"]
    elif how == "extra":
        lines.insert(i, json.dumps({**record, "id": "extra"} if "id" in record else record))
    elif how == "blank":
        lines.insert(i, "")
    elif how == "broken":
        lines[i] = lines[i][:-1]
    elif how == "swap":  # by id: another order, the same pairs; by position: other pairs
        j = rng.randrange(n)
        lines[i], lines[j] = lines[j], lines[i]
    elif how == "repeated id" and "id" in record:
        record["id"] = json.loads(lines[rng.randrange(n)])["id"]
    elif how == "no id":
        record.pop("id", None)
    if how in ("bad span", "text", "repeated id", "no id"):
        lines[i] = json.dumps(record, ensure_ascii=False)
    path.write_text("\n".join(lines), encoding="utf-8")


@SLOW
@given(
    seed=st.integers(0, 10**6),
    n=st.integers(1, 30),
    ids=st.booleans(),
    edit_how=st.sampled_from(JSON_EDITS),
    side=st.sampled_from(["gold", "pred"]),
    part_bytes=st.integers(1, 300),
)
def test_jsonl_pairs_in_parts_score_or_fail_as_one_process(
    tmp_path, seed, n, ids, edit_how, side, part_bytes
):
    (gold, pred), rng = jsonl_pair(tmp_path, n, seed, ids=ids)
    edit_json_lines(gold if side == "gold" else pred, edit_how, n, rng)
    pair = file_pair(gold, pred, "jsonl")
    ev = SpanEvaluator(strategy="two_sided", unit="char", max_errors=4, thresholds=(0.5, 1.0))
    want = serial(pair, ev)
    got, calls = in_parts(pair, ev, part_bytes)
    if isinstance(want[0], str) and want[0] != "EmptyEvaluationError":
        assert got is None  # one process reads it again, and fails as it does
    elif got is not None:
        assert got == want
    else:  # too small to cut, or valid files whose parts do not line up (read in one piece)
        assert calls <= 1 or edit_how in ("blank", "swap", "no id")


def test_records_that_pair_by_id_are_cut_and_checked_json_arrays_are_not(tmp_path):
    (gold, pred), _ = jsonl_pair(tmp_path, 50, 1, ids=True)
    pair = file_pair(gold, pred, "jsonl")
    parts = list(pair.plan(100))
    assert len(parts) > 5 and all(p.same_ids for p in parts)
    ev = SpanEvaluator(strategy="exact", unit="char")
    got, calls = in_parts(pair, ev, 100)
    assert got == serial(pair, ev) and calls == len(parts)
    array = tmp_path / "pred.json"
    array.write_text(json.dumps([json.loads(x) for x in pred.read_text().splitlines()]))
    assert file_pair(gold, array, "jsonl").plan(10) is None


# -- the command, with a real pool --------------------------------------------------------------


@pytest.fixture
def small_parts(monkeypatch):
    """Parts of 2 KB, and a record of whether the parts route gave the tally."""
    monkeypatch.setattr(parallel_reading, "PART_BYTES", 2048)
    monkeypatch.setattr(parallel_reading, "MIN_PART_BYTES", 2048)
    used = []
    real = parallel_reading.score_pair_in_processes

    def spy(*args, **kwargs):
        tally = real(*args, **kwargs)
        used.append(tally is not None)
        return tally

    monkeypatch.setattr(parallel_reading, "score_pair_in_processes", spy)  # (imported on use)
    return used


def report(gold, pred, **options):
    """The JSON report with every error record (their ids carry line numbers from every part),
    and the text report."""
    try:
        r = evaluate_files(gold, pred, errors=10**6, **options)
    except InvalidInputError as exc:
        return type(exc).__name__, str(exc)
    return json.dumps(r.to_dict(), sort_keys=True), render_report(r, "text", errors=30)


@pytest.mark.parametrize(
    "options",
    [
        {"strategy": "exact"},
        {"thresholds": (0.5, 0.9), "unit": "char"},
        {"strategy": "semeval", "scheme": "IOB1", "repair": "discard"},
    ],
)
def test_evaluate_with_two_processes_prints_the_one_process_report(tmp_path, small_parts, options):
    (gold, pred), _ = conll_pair(tmp_path, 3000, seed=7)
    one = report(gold, pred, **options)
    assert report(gold, pred, n_process=2, **options) == one
    assert small_parts == [True]
    inputs = json.loads(one[0])["inputs"]
    assert inputs["gold"]["documents"] == 3000 and inputs["predicted"]["spans"] > 0
    assert inputs["gold"]["repaired"] > 0 or options.get("repair") == "discard"
    records = json.loads(one[0])["result"]["levels"]["labels"][0]["errors"]
    assert int(records[-1]["document"].split(":")[1]) > 10000  # from a late part


def test_a_part_builds_records_only_for_its_sample(tmp_path, built_records):
    (gold, pred), _ = conll_pair(tmp_path, 400, seed=11)
    pair = file_pair(gold, pred)
    ev = SpanEvaluator(strategy="exact", thresholds=(0.5, 0.9), max_errors=6, unit="token")
    _, info = pair.read()
    built_records.clear()
    pool = Inline()
    tally = pair_tally(pair, ev, n_process=2, info=info, part_bytes=300, pool=pool)
    assert pool.calls > 5 and tally is not None
    assert tally.result().to_dict() == serial(pair, ev)[0]
    # Each part builds records only for its own sample (at most 6 per kind and label per
    # threshold per batch), not one per error.
    errors = sum(ledger.fn + ledger.fp for ledger in tally.result().per_label.values())
    assert 12 <= len(built_records) < 2 * errors


def test_parts_that_finish_out_of_order_are_merged_in_order(tmp_path, monkeypatch):
    (gold, pred), _ = conll_pair(tmp_path, 600, seed=12)
    pair = file_pair(gold, pred)
    ev = SpanEvaluator(strategy="exact", max_errors=25, unit="token")
    finished = []
    real = parallel_reading.tally_part

    def slow_at_even_parts(evaluator, pair, parts, views=False):
        time.sleep(0.03 if parts.gold.start // 500 % 2 == 0 else 0)
        done = real(evaluator, pair, parts, views)
        finished.append(parts.gold.start)
        return done

    monkeypatch.setattr(parallel_reading, "tally_part", slow_at_even_parts)
    _, info = pair.read()
    with ThreadPoolExecutor(4) as pool:
        tally = pair_tally(pair, ev, n_process=2, info=info, part_bytes=500, pool=pool)
    assert finished != sorted(finished)  # (the test's premise)
    assert tally is not None
    assert (
        tally.result().to_dict(),
        {side: i.to_dict(info["gold"]) for side, i in info.items()},
    ) == serial(pair, ev)


@pytest.mark.parametrize("how", ["token", "bad tag", "malformed", "extra sentence"])
def test_errors_with_two_processes_are_the_one_process_errors(tmp_path, small_parts, how):
    (gold, pred), rng = conll_pair(tmp_path, 3000, seed=3)
    edit(gold if how in ("bad tag", "malformed") else pred, how, random.Random(5))
    one = report(gold, pred, repair="error")
    assert one[0] == "DocumentMismatchError" or one[0] == "InvalidInputError"
    assert report(gold, pred, repair="error", n_process=2) == one
    assert small_parts == [False]  # a worker met it; one process read the pair again


def test_jsonl_with_two_processes_prints_the_one_process_report(tmp_path, small_parts):
    (gold, pred), _ = jsonl_pair(tmp_path, 2000, seed=4, ids=False)
    one = report(gold, pred, strategy="exact")
    assert report(gold, pred, strategy="exact", n_process=2) == one
    assert small_parts == [True]


def test_with_another_thread_running_workers_are_spawned(tmp_path, small_parts):
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert pool_context().get_start_method() == "spawn"
        (gold, pred), _ = conll_pair(tmp_path, 1500, seed=9)
        assert report(gold, pred, n_process=2) == report(gold, pred)
    finally:
        stop.set()
        other.join()
    assert small_parts == [True]
    assert pool_context().get_start_method() in ("fork", "spawn")


@pytest.mark.skipif(sys.platform != "linux", reason="workers fork on Linux alone")
def test_a_run_right_after_another_still_forks_its_workers(tmp_path, monkeypatch):
    (gold, pred), _ = conll_pair(tmp_path, 1500, seed=10)
    pair = file_pair(gold, pred)
    ev = SpanEvaluator(strategy="exact", unit="token")
    methods = []
    real = parallel_reading.pool_context

    def spy():
        context = real()
        methods.append(context.get_start_method())
        return context

    monkeypatch.setattr(parallel_reading, "pool_context", spy)
    alone = threading.active_count() == 1
    runs = []
    for _ in range(2):  # back to back
        _, info = pair.read()
        tally = pair_tally(pair, ev, n_process=2, info=info, part_bytes=2048)
        assert tally is not None
        runs.append(tally.result().to_dict())
    # The first pool's threads were gone when the second looked for other threads: it chose
    # as the first did (fork, unless another test left threads running in this process).
    assert methods[1] == methods[0]
    if alone:
        assert methods == ["fork", "fork"]
    assert runs[0] == runs[1] == serial(pair, ev)[0]
