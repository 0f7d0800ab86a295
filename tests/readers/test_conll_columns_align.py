"""``align="position"`` on the columnar CoNLL reader against the reference route, and the
``--delimiter`` choices read alike by both.

The reference route is ``read_conll`` records -> ``pair_records`` -> ``documents(...,
align="position")`` (each sentence pair through ``align.align_by_position``); the columnar
route is ``conll_pair_batches(..., align="position")``. They must give the same result
(``EvaluationResult.to_dict()``), the same per-side information (``SideInfo.to_dict()``, the
predicted side's ``alignment`` report included) and the same errors: on hand-made pairs whose
token strings differ, on random pairs with tokens changed, dropped and added, in both units,
with batches and chunks small enough to cut the differences apart; and read in byte ranges,
as worker processes read a pair, the merged tally and report are the one-process ones.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_readers_conll_columns import (
    columnar_result,
    reference_result,
    tagged_sentence,
    write_pair,
)

from spacy_span_eval import SpanEvaluator
from spacy_span_eval.jobs.parallel_reading import _add_read
from spacy_span_eval.readers import conll_columns as cc
from spacy_span_eval.readers.align import SideInfo, TokenDifferences
from spacy_span_eval.readers.conll_columns import conll_pair_batches
from spacy_span_eval.readers.ranges import plan_ranges


def reference(gold, pred, *, unit="token", strategy="exact", errors=5, align="position", **options):
    """``(result, gold info, predicted info)`` by the reference route, or the error."""
    return reference_result(
        gold, pred, unit=unit, strategy=strategy, errors=errors, align=align, **options
    )


def columnar(
    gold,
    pred,
    *,
    unit="token",
    strategy="exact",
    errors=5,
    align="position",
    chunk_bytes=cc.CHUNK_BYTES,
    batch_sentences=cc.BATCH_SENTENCES,
    tag_column=-1,
    **options,
):
    """The same by ``conll_pair_batches``."""
    return columnar_result(
        gold,
        pred,
        unit=unit,
        strategy=strategy,
        errors=errors,
        chunk_bytes=chunk_bytes,
        batch_sentences=batch_sentences,
        align=align,
        gold_tag_column=tag_column,
        pred_tag_column=tag_column,
        **options,
    )


# Gold and predictions whose token strings differ in sentences 1, 2 and 4 (normalized
# tokens, a replaced URL, a changed case), with four labels: two PER and an ORG found, two
# LOC missed (one cut short), a MISC and an ORG predicted where gold has none.
GOLD = (
    "Ann B-PER\ngt O\nthe O\nbook O\n\n"
    "Acme B-ORG\nCorp I-ORG\nat O\nhttp://x.co/a O\nParis B-LOC\n\n"
    "# sent_id = 3\nNothing O\nhere O\n\n"
    "Zoë B-PER\nSmith I-PER\nvisited O\nNew B-LOC\nYork I-LOC\n"
)
PRED = (
    "Ann B-PER\nget O\nthe B-MISC\nbook I-MISC\n\n"
    "Acme B-ORG\nCorp I-ORG\nat O\n<URL> O\nParis O\n\n"
    "Nothing O\nhere B-ORG\n\n"
    "zoë B-PER\nsmith I-PER\nvisited O\nnew B-LOC\nyork O\n"
)


@pytest.fixture
def files(tmp_path):
    gold, pred = tmp_path / "gold.conll", tmp_path / "pred.conll"
    gold.write_text(GOLD, encoding="utf-8")
    pred.write_text(PRED, encoding="utf-8")
    return gold, pred


@pytest.mark.parametrize("unit", ["token", "char"])
@pytest.mark.parametrize("strategy", ["exact", "two_sided", "overlap"])
@pytest.mark.parametrize(
    "chunk_bytes,batch_sentences", [(cc.CHUNK_BYTES, cc.BATCH_SENTENCES), (16, 1), (40, 2)]
)
def test_differing_tokens_score_and_are_reported_as_the_reference(
    files, unit, strategy, chunk_bytes, batch_sentences
):
    gold, pred = files
    want = reference(gold, pred, unit=unit, strategy=strategy)
    got = columnar(
        gold,
        pred,
        unit=unit,
        strategy=strategy,
        chunk_bytes=chunk_bytes,
        batch_sentences=batch_sentences,
    )
    assert got == want
    result, gold_info, pred_info = got
    micro = result["levels"]["labels"][0]["micro"]
    if strategy == "exact":  # R = 3/5, P = 3/6
        assert (micro["num_annotated"], micro["num_predicted"], micro["tp"]) == (5, 6, 3)
    assert "alignment" not in gold_info
    assert pred_info["alignment"] == {
        "align": "position",
        "differing_tokens": 6,
        "sentences": 3,
        "examples": [
            f"{gold} line 2: 'gt' vs {pred} line 2: 'get'",
            f"{gold} line 9: 'http://x.co/a' vs {pred} line 9: '<URL>'",
            f"{gold} line 16: 'Zoë' vs {pred} line 15: 'zoë'",
            f"{gold} line 17: 'Smith' vs {pred} line 16: 'smith'",
            f"{gold} line 19: 'New' vs {pred} line 18: 'new'",
        ],
    }


def test_the_examples_stop_at_the_limit_across_batches(tmp_path):
    sentences = [(["a", "b", "c"], ["B-PER", "O", "B-LOC"]) for _ in range(6)]
    gold, pred = write_pair(tmp_path, sentences, random.Random(3), "IOB2")
    pred.write_text(pred.read_text().replace("b\t", "B\t"))
    for batch in (1, 4, cc.BATCH_SENTENCES):
        got = columnar(gold, pred, batch_sentences=batch, chunk_bytes=24)
        assert got == reference(gold, pred)
        alignment = got[2]["alignment"]
        assert (alignment["differing_tokens"], alignment["sentences"]) == (6, 6)
        assert len(alignment["examples"]) == TokenDifferences().limit


def test_identical_tokens_report_no_difference(files):
    gold, _ = files
    got = columnar(gold, gold)
    assert got == reference(gold, gold)
    assert got[2]["alignment"] == {
        "align": "position",
        "differing_tokens": 0,
        "sentences": 0,
        "examples": [],
    }
    assert "alignment" not in columnar(gold, gold, align="text")[2]


@pytest.mark.parametrize("unit", ["token", "char"])
def test_sentences_of_different_lengths_fail_as_the_reference(files, tmp_path, unit):
    gold, _ = files
    pred = tmp_path / "short.conll"
    pred.write_text(PRED.replace("at O\n", ""), encoding="utf-8")
    want = reference(gold, pred, unit=unit)
    assert want[0] == "DocumentMismatchError"
    assert "sentence 2: gold has 5 tokens, the predictions 4" in want[1]
    for chunk in (16, cc.CHUNK_BYTES):
        assert columnar(gold, pred, unit=unit, chunk_bytes=chunk) == want


def test_char_unit_measures_the_predicted_spans_on_the_gold_tokens(tmp_path):
    # Longer and shorter predicted tokens: the spans sit where the gold tokens are.
    gold, pred = tmp_path / "g.conll", tmp_path / "p.conll"
    gold.write_text("a\tO\nNew\tB-LOC\nYork\tI-LOC\n")
    pred.write_text("aaaa\tO\nN\tB-LOC\nYork\tI-LOC\n")
    got = columnar(gold, pred, unit="char")
    assert got == reference(gold, pred, unit="char")
    assert got[0]["levels"]["labels"][0]["micro"]["tp"] == 1


def test_an_unknown_alignment_is_refused(files):
    with pytest.raises(ValueError, match="unknown alignment 'sideways'"):
        list(conll_pair_batches(*files, align="sideways"))


# -- random pairs -------------------------------------------------------------------------------

EDITS = ["token", "drop", "add", "bad-tag", "malformed", "extra"]


@st.composite
def position_cases(draw):
    """Sentences, the share of predicted tokens whose strings change, and up to two edits
    (half the cases have none: they score)."""
    rng = random.Random(draw(st.integers(0, 10**6)))
    n = draw(st.integers(1, 14))
    sentences = [tagged_sentence(rng, draw(st.integers(1, 8)), 0.35) for _ in range(n)]
    renamed = draw(st.sampled_from([0.0, 0.05, 0.2, 0.6, 1.0]))
    edits = draw(st.lists(st.sampled_from(EDITS), max_size=2)) if draw(st.booleans()) else []
    return rng, sentences, renamed, edits


def rename_tokens(path, rate, rng):
    """Change the strings of about ``rate`` of the tokens (their tags kept)."""
    lines = path.read_text(encoding="utf-8").split("\n")
    for k, line in enumerate(lines):
        if "\t" in line and rng.random() < rate:
            token, tag = line.split("\t")
            lines[k] = f"{rng.choice([token.upper(), token + 'x', 'ü', '<URL>', 'Q'])}\t{tag}"
    path.write_text("\n".join(lines), encoding="utf-8")


def edit_pair(gold, pred, edit, rng):
    """One change: a token's string, a token line dropped or added, a bad tag or a
    malformed line in gold, an extra sentence."""
    path = gold if edit in ("bad-tag", "malformed") else pred
    lines = path.read_text(encoding="utf-8").split("\n")
    filled = [i for i, line in enumerate(lines) if "\t" in line]
    if not filled:
        return
    i = rng.choice(filled)
    token, tag = lines[i].split("\t")
    if edit == "token":
        lines[i] = f"{token}x\t{tag}"
    elif edit == "drop":
        del lines[i]
    elif edit == "add":
        lines.insert(i, f"new\t{tag}")
    elif edit == "bad-tag":
        lines[i] = f"{token}\tZ-PER"
    elif edit == "malformed":
        lines[i] = token
    else:
        lines += ["extra\tO", ""]
    path.write_text("\n".join(lines), encoding="utf-8")


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    case=position_cases(),
    unit=st.sampled_from(["token", "char"]),
    strategy=st.sampled_from(["exact", "two_sided"]),
    chunk=st.sampled_from([16, 1 << 20]),
    batch=st.sampled_from([1, 3, 1 << 16]),
)
def test_random_pairs_score_and_fail_as_the_reference_route(
    tmp_path, case, unit, strategy, chunk, batch
):
    rng, sentences, renamed, edits = case
    gold, pred = write_pair(tmp_path, sentences, rng, "IOB2")
    rename_tokens(pred, renamed, rng)
    for edit in edits:
        edit_pair(gold, pred, edit, rng)
    want = reference(gold, pred, unit=unit, strategy=strategy, errors=7)
    if want[0] == "EmptyEvaluationError":
        assume(False)  # no spans at all: both raise, after reading everything
    got = columnar(
        gold, pred, unit=unit, strategy=strategy, errors=7, chunk_bytes=chunk, batch_sentences=batch
    )
    assert got == want


# -- read in byte ranges, as worker processes read a pair ------------------------------------


def in_ranges(gold, pred, part_bytes, *, unit="token", strategy="exact", errors=5):
    """The pair read range by range (the counting planner's ranges), the tallies and the
    per-side counts merged in order, as parallel reading merges its parts."""
    ev = SpanEvaluator(strategy=strategy, unit=unit, max_errors=errors)
    total = None
    sides = {"gold": SideInfo(str(gold), "conll"), "predicted": SideInfo(str(pred), "conll")}
    sides["predicted"].alignment = TokenDifferences()
    parts = list(plan_ranges(gold, pred, rule="paragraph", part_bytes=part_bytes))
    for part in parts:
        gi, pi = SideInfo(str(gold), "conll"), SideInfo(str(pred), "conll")
        tally = ev.tally_batches(
            conll_pair_batches(
                gold, pred, unit=unit, gold_info=gi, pred_info=pi, parts=part, align="position"
            )
        )
        total = tally if total is None else total + tally
        _add_read(sides["gold"], gi)
        _add_read(sides["predicted"], pi)
    return (total.result().to_dict(), sides["gold"].to_dict(), sides["predicted"].to_dict()), len(
        parts
    )


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    seed=st.integers(0, 10**6),
    n=st.integers(2, 30),
    unit=st.sampled_from(["token", "char"]),
    part_bytes=st.integers(1, 120),
)
def test_ranges_read_apart_merge_to_the_one_process_report(tmp_path, seed, n, unit, part_bytes):
    rng = random.Random(seed)
    sentences = [tagged_sentence(rng, rng.randint(1, 6), 0.35) for _ in range(n)]
    gold, pred = write_pair(tmp_path, sentences, rng, "IOB2")
    rename_tokens(pred, 0.3, rng)
    want = columnar(gold, pred, unit=unit)
    assume(not isinstance(want[0], str))
    got, n_parts = in_ranges(gold, pred, part_bytes, unit=unit)
    assert got == want == reference(gold, pred, unit=unit)


def test_token_differences_add_keeps_the_first_examples_in_order():
    first = TokenDifferences(tokens=3, sentences=2, examples=["a", "b", "c"])
    first.add(TokenDifferences(tokens=4, sentences=1, examples=["d", "e", "f", "g"]))
    assert (first.tokens, first.sentences, first.examples) == (7, 3, ["a", "b", "c", "d", "e"])


# -- --delimiter -------------------------------------------------------------------------------

SPACED = "EU B-ORG\nrejects O\nGerman B-MISC\n\nPeter B-PER\nBlackburn I-PER\n"


@pytest.mark.parametrize("align", ["text", "position"])
@pytest.mark.parametrize(
    "text,delimiter",
    [
        (SPACED, "tab"),  # no tab on any line: one column each, a malformed line
        ("EU  B-ORG\n", "tab"),
        ("EU\tB-ORG\nrejects O\n", "tab"),  # the second line has none
        ("-DOCSTART- -X- O O\n\nEU B-ORG\n", "tab"),  # not a -DOCSTART- line when split on tabs
        (SPACED, "space"),
        (SPACED.replace(" ", "\t"), "space"),
        (SPACED, "auto"),
        ("New York\tB-LOC\nis\tO\n", "tab"),
        ("New York\tB-LOC\nis\tO\n", "space"),
    ],
)
def test_both_routes_read_a_delimiter_alike(tmp_path, text, delimiter, align):
    gold, pred = tmp_path / "gold.conll", tmp_path / "pred.conll"
    gold.write_text(text)
    pred.write_text(text)
    want = reference(gold, pred, delimiter=delimiter, align=align)
    for chunk in (8, cc.CHUNK_BYTES):
        assert columnar(gold, pred, delimiter=delimiter, align=align, chunk_bytes=chunk) == want


def test_a_tab_delimiter_on_a_space_separated_file_names_the_file_and_line(tmp_path):
    gold, pred = tmp_path / "gold.conll", tmp_path / "pred.conll"
    gold.write_text(SPACED.replace(" ", "\t"))
    pred.write_text(SPACED)
    message = (
        "InvalidInputError",
        f"{pred} line 1: malformed line: expected at least 2 "
        "columns (token ... tag, tag column -1), found 1: 'EU B-ORG'",
    )
    assert reference(gold, pred, delimiter="tab") == message
    assert columnar(gold, pred, delimiter="tab") == message
