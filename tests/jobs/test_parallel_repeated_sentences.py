"""Pairs whose sentences repeat are still read in parts: every sentence ``w0 ... w19``, or a
token column of ``_`` (conlleval style), is cut by counting sentences (readers/ranges.py).
The parts score as one process does, and where the workers' ranges do not hold the same
sentences the pair is read in one process again, which one line on stderr says.
``--n-process`` is capped at the CPUs available and at the parts of the pair."""

from __future__ import annotations

import logging
import random

import pytest

from spacy_span_eval import SpanEvaluator
from spacy_span_eval.api import evaluate_files
from spacy_span_eval.errors import InvalidInputError
from spacy_span_eval.jobs import options, parallel_reading
from spacy_span_eval.jobs.parallel_reading import score_pair_in_processes
from spacy_span_eval.readers.columnar import ColumnPair

from conftest import Inline, file_pair

LABELS = ("PER", "ORG", "LOC")


def repeated(n: int, seed: int, token=lambda i: f"w{i}") -> tuple[str, str]:
    """``n`` sentences of the same 20 tokens; gold tags valid IOB2, predicted ones with a
    tenth of the tags replaced (some chunks repaired)."""
    rng = random.Random(seed)
    gold, pred = [], []
    for _ in range(n):
        tags, inside = [], None
        for _ in range(20):
            if rng.random() < 0.13:
                inside = rng.choice(LABELS)
                tags.append(f"B-{inside}")
            elif inside is not None and rng.random() < 0.3:
                tags.append(f"I-{inside}")
            else:
                inside = None
                tags.append("O")
        noisy = [
            rng.choice(["O", *(f"{p}-{x}" for x in LABELS for p in "BI")])
            if rng.random() < 0.1
            else t
            for t in tags
        ]
        gold.append("".join(f"{token(i)} {t}\n" for i, t in enumerate(tags)))
        pred.append("".join(f"{token(i)} {t}\n" for i, t in enumerate(noisy)))
    return "\n".join(gold), "\n".join(pred)


def write(tmp_path, gold: str, pred: str):
    g, p = tmp_path / "gold.conll", tmp_path / "pred.conll"
    g.write_text(gold, encoding="utf-8")
    p.write_text(pred, encoding="utf-8")
    return g, p


def column_pair(g, p) -> ColumnPair:
    return file_pair(g, p)


def sentences_before(data: bytes, at: int) -> int:
    return data[:at].replace(b"\n\n\n", b"\n\n").count(b"\n\n")


TOKENS = {"w0..w19": lambda i: f"w{i}", "underscores": lambda i: "_", "X": lambda i: "X"}


@pytest.mark.parametrize("token", TOKENS.values(), ids=TOKENS.keys())
def test_repeated_sentences_are_cut_at_the_same_sentence_on_both_sides(tmp_path, token):
    gold, pred = repeated(600, 1, token)
    g, p = write(tmp_path, gold, pred.replace("\n\n", "\n\n\n"))  # other layout: other bytes
    parts = list(column_pair(g, p).plan(4000, taper=2))
    assert len(parts) > 10
    g_data, p_data = g.read_bytes(), p.read_bytes()
    for part in parts[1:]:
        assert sentences_before(g_data, part.gold.start) == sentences_before(
            p_data, part.pred.start
        )
        assert part.gold.line == 1 + g_data[: part.gold.start].count(b"\n")
        assert part.pred.line == 1 + p_data[: part.pred.start].count(b"\n")


def test_a_pair_that_turns_repetitive_is_cut_in_both_halves(tmp_path):
    head_gold, head_pred = (
        "\n".join(f"u{i} B-PER\nv{i} O\n" for i in range(300)),
        "\n".join(f"u{i} O\nv{i} O\n" for i in range(300)),
    )
    gold, pred = repeated(300, 2)
    g, p = write(tmp_path, head_gold + "\n" + gold, head_pred + "\n" + pred)
    parts = list(file_pair(g, p).plan(part_bytes=1500))
    g_data, p_data = g.read_bytes(), p.read_bytes()
    assert parts[-1].gold.start > g_data.index(b"w0 ")  # cut in the repeated half too
    for part in parts[1:]:
        assert sentences_before(g_data, part.gold.start) == sentences_before(
            p_data, part.pred.start
        )


@pytest.mark.parametrize("token", TOKENS.values(), ids=TOKENS.keys())
def test_the_parts_score_as_one_process_does(tmp_path, token):
    gold, pred = repeated(400, 3, token)
    g, p = write(tmp_path, gold, pred)
    pair = column_pair(g, p)
    ev = SpanEvaluator(strategy="exact", unit="token", max_errors=20)
    batches, one_info = pair.read()
    one = ev.tally_batches(batches).result().to_dict()
    _, info = pair.read()  # fresh counters
    pool = Inline()
    part = score_pair_in_processes(pair, ev, n_process=2, info=info, part_bytes=3000, pool=pool)
    assert part is not None and pool.calls > 5  # read in parts
    assert part.tally.result().to_dict() == one
    assert {s: i.to_dict() for s, i in info.items()} == {
        s: i.to_dict() for s, i in one_info.items()
    }


@pytest.fixture
def small_parts(monkeypatch):
    monkeypatch.setattr(parallel_reading, "PART_BYTES", 2048)
    monkeypatch.setattr(parallel_reading, "MIN_PART_BYTES", 2048)
    monkeypatch.setattr(options, "available_cpus", lambda: 2)
    options.notice.cache_clear()  # (each test's notices said anew, and after it too)
    yield
    options.notice.cache_clear()


def test_a_repeated_pair_under_two_processes_reports_as_one(tmp_path, small_parts, caplog):
    g, p = write(tmp_path, *repeated(300, 4))
    one = evaluate_files(g, p, strategy="exact", errors=50).to_dict()
    with caplog.at_level(logging.WARNING, logger="spacy_span_eval"):
        two = evaluate_files(g, p, strategy="exact", errors=50, n_process=2).to_dict()
    assert two == one
    assert caplog.messages == []  # cut: nothing to say


def test_a_pair_that_cannot_be_cut_says_so_in_one_line(tmp_path, small_parts, caplog):
    gold, pred = repeated(300, 5)
    # One sentence fewer in the predictions: the counted parts never hold the same
    # sentences, the workers say so, and one process reads the pair (and names the problem).
    g, p = write(tmp_path, gold, pred.split("\n\n", 1)[1])
    with (
        caplog.at_level(logging.WARNING, logger="spacy_span_eval"),
        pytest.raises(InvalidInputError),
    ):
        evaluate_files(g, p, strategy="exact", n_process=2)
    assert caplog.messages == []  # the error is the message
    # A lone carriage return in the first sentence: no cut is found.
    g, p = write(tmp_path, gold.replace("\n", "\r", 1), pred.replace("\n", "\r", 1))
    one = evaluate_files(g, p, strategy="exact").to_dict()
    with caplog.at_level(logging.WARNING, logger="spacy_span_eval"):
        two = evaluate_files(g, p, strategy="exact", n_process=2).to_dict()
    assert two == one
    assert caplog.messages == [
        "--n-process 2: the pair was read in one process: no place was found where both "
        "files start the same sentence (a lone carriage return, or fewer sentences in one file)"
    ]


def test_n_process_is_capped_at_the_cpus_and_said_once(tmp_path, small_parts, caplog):
    g, p = write(tmp_path, *repeated(300, 6))
    one = evaluate_files(g, p, strategy="exact").to_dict()
    with caplog.at_level(logging.WARNING, logger="spacy_span_eval"):
        for _ in range(2):
            assert evaluate_files(g, p, strategy="exact", n_process=1000).to_dict() == one
    assert caplog.messages == ["--n-process 1000: 2 worker processes (2 CPUs available)"]


def test_n_process_is_capped_at_the_parts_of_the_pair(tmp_path, small_parts, monkeypatch, caplog):
    monkeypatch.setattr(options, "available_cpus", lambda: 64)
    g, p = write(tmp_path, *repeated(60, 7))  # about 3 parts of 2 KB
    parts = -(-g.stat().st_size // 2048)
    assert 2 <= parts < 8
    with caplog.at_level(logging.WARNING, logger="spacy_span_eval"):
        evaluate_files(g, p, strategy="exact", n_process=8)
    assert caplog.messages == [
        f"--n-process 8: {parts} worker processes (the pair is cut into about {parts} parts)"
    ]
