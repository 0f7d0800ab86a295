"""Prodigy's multi-annotator exports and binary answers.

A ``db-out`` of a dataset two annotators worked on holds each input once per annotator
(``_annotator_id``, ``_session_id``): ``--annotator``/``--session`` read one's answers and
count the others; without a choice, an input answered twice is refused naming the annotators
and the flags. Binary ``ner`` answers (``_view_id: "ner"``) are read and counted as partial
gold. The files are hand-written in Prodigy's documented ``db-out`` shape.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from spacy_span_eval.errors import InvalidInputError
from spacy_span_eval.readers import prodigy
from spacy_span_eval.readers.options import ReadingOptions
from spacy_span_eval.readers.source import read_records

from conftest import cli

TEXT = "Alice met Bob in Paris."
TOKENS = [
    {"text": t, "start": s, "end": s + len(t), "id": i}
    for i, (t, s) in enumerate([("Alice", 0), ("met", 6), ("Bob", 10), ("in", 14), ("Paris", 17)])
]


def answer(annotator, spans, **fields):
    return {
        "text": TEXT,
        "_input_hash": 101,
        "_task_hash": 202,
        "tokens": TOKENS,
        "spans": [{"start": s, "end": e, "label": lab} for s, e, lab in spans],
        "answer": "accept",
        "_view_id": "ner_manual",
        "_annotator_id": f"news-{annotator}",
        "_session_id": f"news-{annotator}",
        **fields,
    }


ALICE_SAYS = [(0, 5, "PER"), (10, 13, "PER"), (17, 22, "LOC")]
BOB_SAYS = [(0, 5, "PER")]
TWO = [answer("alice", ALICE_SAYS), answer("bob", BOB_SAYS)]


@pytest.fixture
def two_annotators(tmp_path):
    path = tmp_path / "db_out.jsonl"
    rows = [answer("alice", ALICE_SAYS), answer("bob", BOB_SAYS)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    return path


def test_an_input_answered_twice_is_refused_naming_annotators_and_flags(two_annotators):
    code, out = cli("evaluate", two_annotators, two_annotators)
    assert code == 2
    assert "db_out.jsonl line 2" in out
    assert "annotators: news-alice, news-bob" in out
    assert "--annotator NAME or --session NAME" in out


@pytest.mark.parametrize(
    ("flag", "name", "spans"),
    [("--annotator", "news-alice", "3 spans"), ("--session", "news-bob", "1 span")],
)
def test_one_annotator_or_session_is_read_and_the_others_counted(two_annotators, flag, name, spans):
    code, out = cli("evaluate", two_annotators, two_annotators, flag, name)
    assert code == 0, out
    assert f"(prodigy, {spans})" in out
    who = "annotators" if flag == "--annotator" else "sessions"
    assert f"answers of other {who} not read 1" in out


def test_a_name_with_no_answers_is_refused_listing_the_names_found(two_annotators):
    code, out = cli("evaluate", two_annotators, two_annotators, "--annotator", "carol")
    assert code == 2
    assert "no accepted answers of annotator 'carol'" in out
    assert "annotators found: news-alice, news-bob" in out


def test_convert_takes_the_annotator_too(two_annotators, tmp_path):
    code, out = cli("convert", two_annotators, tmp_path / "a.spacy", "--annotator", "news-alice")
    assert code == 0, out
    assert "3 spans" in out


def test_binary_ner_accepts_are_read_and_flagged_as_partial_gold(tmp_path):
    rows = [
        {
            "text": TEXT,
            "_input_hash": 1,
            "spans": [{"start": 0, "end": 5, "label": "PER"}],
            "answer": "accept",
            "_view_id": "ner",
        },
        {
            "text": "Bob ran.",
            "_input_hash": 2,
            "spans": [{"start": 0, "end": 3, "label": "PER"}],
            "answer": "accept",
            "_view_id": "ner",
        },
    ]
    path = tmp_path / "binary.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    code, out = cli("evaluate", path, path)
    assert code == 0, out
    assert "(prodigy, 2 spans" in out
    assert "binary 'ner' answers read as partial gold" in out and "whole text) 2" in out


@pytest.mark.parametrize(
    ("flags", "gold", "pred"),
    [
        (["--gold-annotator", "news-alice", "--pred-annotator", "news-bob"], 3, 1),
        (["--annotator", "news-bob", "--gold-annotator", "news-alice"], 3, 1),
        (["--gold-session", "news-bob", "--pred-session", "news-alice"], 1, 3),
        (["--session", "news-alice", "--pred-session", "news-bob"], 3, 1),
    ],
)
def test_each_side_chooses_its_own_annotator_or_session(two_annotators, flags, gold, pred):
    """Agreement between two annotators of one export: one as gold, the other as predictions;
    the plain flag is both sides' and a side's own flag overrides it."""
    code, out = cli("evaluate", two_annotators, two_annotators, "-f", "json", *flags)
    assert code == 0, out
    sides = json.JSONDecoder().raw_decode(out)[0]["inputs"]  # (a hint may follow on stderr)
    assert (sides["gold"]["spans"], sides["predicted"]["spans"]) == (gold, pred)


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--annotator", "x"], "--annotator"),
        (["--pred-session", "x"], "--pred-session"),
        (["--model-version", "v1"], "--model-version"),
    ],
)
def test_a_choice_the_files_cannot_make_is_refused_naming_the_flag(tmp_path, flags, named):
    conll = tmp_path / "a.conll"
    conll.write_text("Alice B-PER\nmet O\n", "utf-8")
    code, out = cli("evaluate", conll, conll, *flags)
    assert code == 2, out
    assert named in out and "a.conll is CoNLL" in out


def refusal(path, **options):
    with pytest.raises(InvalidInputError) as exc:
        list(read_records(path, "prodigy", ReadingOptions(**options), Counter()))
    return str(exc.value)


def test_an_input_answered_twice_is_refused_word_for_word(two_annotators):
    assert refusal(two_annotators) == (
        f"{two_annotators} line 2: document '101' appears twice: the file holds the answers of "
        "several annotators or sessions (annotators: news-alice, news-bob; sessions: "
        "news-alice, news-bob); choose one with --annotator NAME or --session NAME"
    )


def test_an_input_answered_twice_in_one_session_is_left_to_pairing(tmp_path):
    """One annotator and session: no flag can choose, so pairing names the repeated id."""
    path = tmp_path / "twice.jsonl"
    path.write_text(2 * (json.dumps(answer("alice", ALICE_SAYS)) + "\n"), "utf-8")
    code, out = cli("evaluate", path, path)
    assert code == 2
    assert "appears twice" in out and "several annotators" not in out


def test_the_annotators_of_an_export_are_its_annotator_ids_sorted(tmp_path):
    """An answer naming no annotator, where the others do, would be in no one's reading."""
    rows = [answer("bob", BOB_SAYS), answer("alice", ALICE_SAYS), {"text": TEXT}]
    path = tmp_path / "db_out.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows[:2]), "utf-8")
    assert prodigy.annotators(path) == ["news-alice", "news-bob"]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    with pytest.raises(InvalidInputError, match="line 3: the answer names no annotator"):
        prodigy.annotators(path)


@pytest.mark.parametrize("key", ["annotator", "session"])
def test_a_numeric_id_is_chosen_by_the_name_it_is_listed_as(tmp_path, key):
    rows = [answer("x", ALICE_SAYS, _annotator_id=7, _session_id=7), answer("bob", BOB_SAYS)]
    path = tmp_path / "db_out.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    assert prodigy.annotators(path) == ["7", "news-bob"]
    records = list(read_records(path, "prodigy", ReadingOptions(**{key: "7"}), Counter()))
    assert [len(r.spans) for r in records] == [3]


@pytest.mark.parametrize(
    ("rows", "options", "message"),
    [
        (
            TWO,
            {"annotator": "carol", "session": "news-alice"},
            "no accepted answers of annotator 'carol' and session 'news-alice' (annotators "
            "found: news-alice, news-bob; sessions found: news-alice, news-bob)",
        ),
        (
            [{"text": TEXT, "_annotator_id": True, "_session_id": None}],
            {"session": "s1"},
            "no accepted answers of session 's1' (annotators found: none; sessions found: none)",
        ),
        (
            [{**row, "answer": a} for row, a in zip(TWO, ["reject", "ignore"], strict=True)],
            {},
            "no accepted examples found (empty input); nothing to score",
        ),
    ],
)
def test_no_accepted_answer_is_refused_naming_the_choice_and_whose_answers_exist(
    tmp_path, rows, options, message
):
    path = tmp_path / "db_out.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    assert refusal(path, **options) == f"{path}: {message}"
