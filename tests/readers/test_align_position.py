"""``--align position``: CoNLL files whose token strings differ (a system normalized some
tokens) but whose sentences have the same number of tokens are scored by position, as
conlleval does; the differing tokens are counted and the first few named with file and line;
different token counts stay an error naming the sentence. The default still refuses them."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from spacy_span_eval import Span
from spacy_span_eval.api import evaluate_files
from spacy_span_eval.cli import app
from spacy_span_eval.errors import DocumentMismatchError, InvalidInputError
from spacy_span_eval.readers.align import (
    SideInfo,
    TokenDifferences,
    align_by_position,
    difference_example,
    differences_for,
    text_pairing,
)
from spacy_span_eval.readers.base import Record
from spacy_span_eval.readers.char_align import (
    CharDifferences,
)
from spacy_span_eval.readers.conll import read_conll
from spacy_span_eval.readers.options import ReadingOptions
from spacy_span_eval.readers.pairing import documents, pair_records

runner = CliRunner()

# Sentence 1 (lines 1-4): "gt" normalized to "get", the PER found.
# Sentence 2 (lines 6-9): the URL replaced, ORG found, LOC missed.
GOLD = "Ann B-PER\ngt O\nthe O\nbook O\n\nAcme B-ORG\nat O\nhttp://x.co/a O\nParis B-LOC\n"
PRED = "Ann B-PER\nget O\nthe O\nbook O\n\nAcme B-ORG\nat O\n<URL> O\nParis O\n"


@pytest.fixture
def files(tmp_path):
    gold, pred = tmp_path / "gold.conll", tmp_path / "pred.conll"
    gold.write_text(GOLD)
    pred.write_text(PRED)
    return gold, pred


def test_the_default_refuses_different_tokens(files):
    result = runner.invoke(app, ["evaluate", *map(str, files)])
    assert result.exit_code == 2
    assert "document 'gold.conll:1': gold and" in " ".join(result.output.split())


def test_position_scores_as_conlleval_and_names_the_differences(files):
    gold, pred = files
    result = runner.invoke(
        app,
        [
            "evaluate",
            str(gold),
            str(pred),
            "--align",
            "position",
            "--strategy",
            "exact",
            "-f",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    micro = report["result"]["levels"]["labels"][0]["micro"]
    # conlleval: found 2, correct 2, gold 3.
    assert (micro["num_annotated"], micro["num_predicted"], micro["tp"]) == (3, 2, 2)
    alignment = report["inputs"]["predicted"]["alignment"]
    assert alignment == {
        "align": "position",
        "differing_tokens": 2,
        "sentences": 2,
        "examples": [
            f"{gold} line 2: 'gt' vs {pred} line 2: 'get'",
            f"{gold} line 8: 'http://x.co/a' vs {pred} line 8: '<URL>'",
        ],
    }
    assert "alignment" not in report["inputs"]["gold"]
    text = runner.invoke(app, ["evaluate", str(gold), str(pred), "--align", "position"])
    assert text.exit_code == 0
    assert "Tokens paired by position: 2 predicted tokens in 2 sentences differ" in text.stdout
    assert f"{pred} line 2: 'get'" in text.stdout


def test_different_token_counts_stay_an_error_naming_the_sentence(files, tmp_path):
    gold, _ = files
    pred = tmp_path / "short.conll"
    pred.write_text(PRED.replace("at O\n", ""))
    result = runner.invoke(app, ["evaluate", str(gold), str(pred), "--align", "position"])
    assert result.exit_code == 2
    message = " ".join(result.output.split())
    assert "sentence 2: gold has 4 tokens, the predictions 3" in message
    assert f"{gold} line 6" in message and f"{pred} line 6" in message


def test_json_input_is_refused_with_position(tmp_path):
    gold, pred = tmp_path / "g.jsonl", tmp_path / "p.jsonl"
    for f in (gold, pred):
        f.write_text('{"text": "Ann smiled", "spans": [{"start": 0, "end": 3, "label": "PER"}]}\n')
    result = runner.invoke(app, ["evaluate", str(gold), str(pred), "--align", "position"])
    assert result.exit_code == 2 and "needs token input" in " ".join(result.output.split())


def test_identical_tokens_report_no_difference(files):
    gold, _ = files
    report = evaluate_files(gold, gold, strategy="exact")
    assert "alignment" not in report.inputs["predicted"] and report.result.micro.tp == 3
    aligned = evaluate_files(gold, gold, reading=ReadingOptions(align="position"))
    assert aligned.inputs["predicted"]["alignment"]["differing_tokens"] == 0
    assert aligned.result.micro.tp == 3


def test_only_the_first_examples_are_kept():
    diffs = TokenDifferences(limit=3)
    gold = Record(where="g.conll line 10", key="g:10", id=None, tokens=tuple("abcdef"))
    pred = Record(where="p.conll line 12", key="p:12", id=None, tokens=tuple("ABCDEf"))
    out = align_by_position(gold, pred, index=1, differences=diffs)
    assert out.tokens == gold.tokens
    assert (diffs.tokens, diffs.sentences) == (5, 1)
    assert diffs.examples == [
        "g.conll line 10: 'a' vs p.conll line 12: 'A'",
        "g.conll line 11: 'b' vs p.conll line 13: 'B'",
        "g.conll line 12: 'c' vs p.conll line 14: 'C'",
    ]


# -------------------------------------------------------------------------------------------------
# The values of the two alignments, pinned on tiny hand-worked cases.
#
# ``--align position`` (:mod:`spacy_span_eval.readers.align`): the counts of differing tokens
# add up over sentences and over parts read apart, the examples stop at the limit, and the
# messages name the side and the token.
# -------------------------------------------------------------------------------------------------

# -- --align position ----------------------------------------------------------------------


def _sentence(where: str, *tokens: str) -> Record:
    return Record(where=where, key=where, id=None, tokens=tokens)


def test_a_token_without_a_line_is_named_by_its_number_from_one():
    # token 0 is "token 1", token 2 "token 3"; a record at "FILE line N" names line N + i
    assert (
        difference_example("doc 'a'", "doc 'b'", 0, "gt", "get")
        == "doc 'a', token 1: 'gt' vs doc 'b', token 1: 'get'"
    )
    assert (
        difference_example("g.conll line 10", "doc 'b'", 2, "x", "y")
        == "g.conll line 12: 'x' vs doc 'b', token 3: 'y'"
    )


@pytest.mark.parametrize("text_side", ["gold", "predicted"])
def test_a_text_record_is_refused_naming_its_own_side(text_side):
    tokens = _sentence("t.conll line 4", "Ann", "left")
    text = Record(where="x.jsonl line 7", key="x", id=None, text="Ann left")
    gold, pred = (text, tokens) if text_side == "gold" else (tokens, text)
    with pytest.raises(InvalidInputError) as info:
        align_by_position(gold, pred, index=1, differences=TokenDifferences())
    assert str(info.value) == (
        "x.jsonl line 7: --align position pairs tokens by position and needs token input "
        "on both sides (CoNLL); this record has only a text: align character texts "
        "with --align chars"
    )


def test_different_token_counts_name_the_sentence_and_both_places():
    gold = _sentence("g.conll line 10", "a", "b", "c")
    pred = _sentence("p.conll line 12", "a", "b")
    with pytest.raises(DocumentMismatchError) as info:
        align_by_position(gold, pred, index=4, differences=TokenDifferences())
    assert str(info.value) == (
        "sentence 4: gold has 3 tokens, the predictions 2; --align position pairs tokens by "
        "position and needs the same number in each sentence (gold g.conll line 10, "
        "predicted p.conll line 12)"
    )


def test_counts_add_up_over_sentences_and_examples_stop_at_the_limit():
    diffs = TokenDifferences(limit=3)
    # sentence 1: 2 tokens differ (2 examples, room for 1 more)
    s1 = _sentence("g line 1", "a", "b", "c"), _sentence("p line 1", "A", "B", "c")
    # sentence 2: 3 differ, only the first fills the last place
    s2 = _sentence("g line 5", "d", "e", "f"), _sentence("p line 5", "D", "E", "F")
    # sentence 3: 1 differs, no room left
    s3 = _sentence("g line 9", "g", "h"), _sentence("p line 9", "g", "H")
    same = _sentence("g line 12", "i"), _sentence("p line 12", "i")
    out = [
        align_by_position(g, p, index=k, differences=diffs)
        for k, (g, p) in enumerate((s1, same, s2, s3), 1)
    ]
    assert [r.tokens for r in out] == [("a", "b", "c"), ("i",), ("d", "e", "f"), ("g", "h")]
    assert out[1] is same[1]  # identical tokens: the predicted record as it is
    assert (diffs.tokens, diffs.sentences) == (2 + 3 + 1, 3)
    assert diffs.examples == [
        "g line 1: 'a' vs p line 1: 'A'",
        "g line 2: 'b' vs p line 2: 'B'",
        "g line 5: 'd' vs p line 5: 'D'",
    ]
    assert diffs.to_dict() == {
        "align": "position",
        "differing_tokens": 6,
        "sentences": 3,
        "examples": diffs.examples,
    }


def test_parts_read_apart_add_their_counts_and_keep_the_first_examples():
    first = TokenDifferences(tokens=2, sentences=1, examples=["a1", "a2"], limit=3)
    later = TokenDifferences(tokens=5, sentences=2, examples=["b1", "b2", "b3"])
    first.add(later)
    assert (first.tokens, first.sentences, first.examples) == (7, 3, ["a1", "a2", "b1"])
    assert later.examples == ["b1", "b2", "b3"]
    first.add(TokenDifferences(tokens=1, sentences=1, examples=["c1"]))
    assert (first.tokens, first.sentences, first.examples) == (8, 4, ["a1", "a2", "b1"])


# Sentence 1 (lines 1-3): "gt" -> "get"; sentence 2 (lines 5-6): equal; sentence 3 (lines
# 8-10): "Rome" -> "ROME" and "." -> "!".
GOLD_ROME = "I O\ngt O\nAnn B-PER\n\nok O\nBob B-PER\n\nin O\nRome B-LOC\n. O\n"
PRED_ROME = "I O\nget O\nAnn B-PER\n\nok O\nBob O\n\nin O\nROME B-LOC\n! O\n"


def test_the_record_stream_counts_every_sentence_pair(tmp_path):
    gold, pred = tmp_path / "g.conll", tmp_path / "p.conll"
    gold.write_text(GOLD_ROME)
    pred.write_text(PRED_ROME)
    info = SideInfo(str(pred), "conll")
    pairs = pair_records(read_conll(gold), read_conll(pred), gold_name="g", pred_name="p")
    docs = list(documents(pairs, unit="token", pred_info=info, align="position"))
    assert [list(d.pred) for d in docs] == [[Span(2, 3, "PER")], [], [Span(1, 2, "LOC")]]
    assert info.to_dict()["alignment"] == {
        "align": "position",
        "differing_tokens": 3,
        "sentences": 2,
        "examples": [
            f"{gold} line 2: 'gt' vs {pred} line 2: 'get'",
            f"{gold} line 9: 'Rome' vs {pred} line 9: 'ROME'",
            f"{gold} line 10: '.' vs {pred} line 10: '!'",
        ],
    }


def test_only_position_counts_tokens_and_an_unknown_mode_is_named():
    info = SideInfo("p", "conll")
    for mode in ("text", "chars"):
        assert differences_for(mode, info) is None
    assert info.alignment is None
    counted = differences_for("position", info)
    assert isinstance(counted, TokenDifferences) and info.alignment is counted
    assert isinstance(differences_for("position", None), TokenDifferences)
    with pytest.raises(ValueError) as error:
        differences_for("fuzzy", info)
    assert str(error.value) == "unknown alignment 'fuzzy'; choose one of text, position, chars"


def test_chars_in_token_unit_is_refused_and_other_modes_pass():
    with pytest.raises(InvalidInputError) as info:
        text_pairing("chars", "token")
    assert str(info.value) == (
        "--align chars aligns character texts and places character offsets, but this pair is "
        "scored in token unit: add --unit char (token files are then read as their tokens "
        "joined by spaces), or pair CoNLL tokens with --align position"
    )
    for mode in ("text", "position"):
        plain = text_pairing(mode, "token")
        assert (plain.align, plain.notes, plain.differences) == (mode, None, None)


def test_chars_in_char_unit_reports_on_the_predicted_side():
    info = SideInfo("p", "jsonl")
    pairing = text_pairing("chars", "char", info)
    assert pairing.align == "chars"
    assert isinstance(pairing.differences, CharDifferences)
    assert info.char_alignment is pairing.differences and pairing.notes is info.notes
    text = SideInfo("p", "jsonl")
    plain = text_pairing("text", "char", text)
    assert (plain.align, plain.differences, text.char_alignment) == ("text", None, None)
    assert plain.notes is text.notes
    alone = text_pairing("chars", "char")
    assert alone.notes is None and isinstance(alone.differences, CharDifferences)
