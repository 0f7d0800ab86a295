"""Per-side reading options and the column pair, value by value.

``ReadingOptions.side`` hands each file its own settings (the predictions their own tag
column); ``column_pair`` decides which file pairs the columnar readers take and with which
options per side; ``ColumnPair.read`` passes each side's options to its reader and fills in
the per-side information it is given; ``ColumnPair.plan`` picks how a pair is cut for parallel
reading. The fixtures are asymmetric (gold and predictions read different tag columns, the
files differ in size, only one side has ids) so a swapped side changes what a test reads.
"""

from __future__ import annotations

import json
import random

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spacy_span_eval.readers.options as options
import spacy_span_eval.readers.ranges as ranges_module
from spacy_span_eval import InvalidInputError, InvalidSpanError, SpanEvaluator
from spacy_span_eval.readers.align import SideInfo
from spacy_span_eval.readers.columnar import ColumnPair, column_pair
from spacy_span_eval.readers.formats import format_named
from spacy_span_eval.readers.options import ReadingOptions
from spacy_span_eval.readers.ranges import ByteRange

from conftest import file_pair

CONLL, JSONL, PRESIDIO, SPACY = (format_named(n) for n in ("conll", "jsonl", "presidio", "spacy"))

# -- ReadingOptions.side and the option checks ----------------------------------------------

EVERY_OPTION = {
    "scheme": "IOBES",
    "repair": "discard",
    "tag_column": 2,
    "delimiter": "tab",
    "model_version": "m1",
    "annotator": "ann",
    "session": "s1",
}


def test_each_side_gets_every_reading_option_and_its_own_tag_column():
    reading = ReadingOptions(**EVERY_OPTION, pred_tag_column=4)
    assert reading.for_side("gold") == ReadingOptions(
        **EVERY_OPTION, pred_tag_column=4, comment="#", side="gold"
    )
    assert reading.for_side() == ReadingOptions(**EVERY_OPTION, pred_tag_column=4, side="gold")
    assert reading.for_side("predicted") == ReadingOptions(
        **{**EVERY_OPTION, "tag_column": 4}, pred_tag_column=4, side="predicted"
    )


def test_without_a_pred_tag_column_both_sides_read_the_tag_column():
    reading = ReadingOptions(tag_column=3)
    assert reading.for_side("gold").tag_column == 3
    assert reading.for_side("predicted").tag_column == 3
    assert reading.for_side("predicted").side == "predicted"
    assert ReadingOptions(tag_column=3, pred_tag_column=0).for_side("predicted").tag_column == 0


@pytest.mark.parametrize(
    "make,message",
    [
        (
            lambda: ReadingOptions(align="tokens"),
            "unknown align 'tokens'; choose one of text, position, chars",
        ),
        (lambda: ReadingOptions(pairs="pred"), "unknown pairs 'pred'; choose one of both, gold"),
        (lambda: ReadingOptions(side="both"), "unknown side 'both'; choose one of gold, predicted"),
    ],
)
def test_an_unknown_choice_is_refused_with_the_choices(make, message):
    with pytest.raises(ValueError) as info:
        make()
    assert str(info.value) == message


def test_a_choice_checker_names_the_attribute_value_and_choices():
    # (the options' own checkers are built when the classes are defined; this one is built
    # here, so the check itself is what runs)
    check = options._one_of(("alpha", "beta", "gamma"))
    attribute = attrs.fields(ReadingOptions).side
    assert check(None, attribute, "beta") is None
    with pytest.raises(ValueError) as info:
        check(None, attribute, "delta")
    assert str(info.value) == "unknown side 'delta'; choose one of alpha, beta, gamma"


def test_every_known_choice_is_accepted():
    for align in ("text", "position", "chars"):
        assert ReadingOptions(align=align).align == align
    for pairs in ("both", "gold"):
        assert ReadingOptions(pairs=pairs).pairs == pairs
    assert ReadingOptions(side="predicted").side == "predicted"


# -- column_pair: which pairs, with what -----------------------------------------------------


def test_a_conll_pair_keeps_paths_formats_unit_align_and_options_per_side(tmp_path):
    gold, pred = tmp_path / "g.conll", tmp_path / "p.conll"
    reading = ReadingOptions(tag_column=1, pred_tag_column=2, repair="discard")
    pair = column_pair(
        gold, pred, gold_format=CONLL, pred_format=CONLL, unit="token", reading=reading
    )
    assert pair == ColumnPair(
        "conll",
        str(gold),
        str(pred),
        "conll",
        "conll",
        "token",
        ReadingOptions(repair="discard", tag_column=1, pred_tag_column=2, side="gold"),
        ReadingOptions(repair="discard", tag_column=2, pred_tag_column=2, side="predicted"),
        "text",
    )
    assert isinstance(pair.gold, str) and isinstance(pair.pred, str)


def test_a_json_pair_of_two_formats_is_one_char_family(tmp_path):
    gold, pred = tmp_path / "g.jsonl", tmp_path / "p.json"
    pair = column_pair(
        gold, pred, gold_format=JSONL, pred_format=PRESIDIO, unit="char", reading=ReadingOptions()
    )
    assert pair == ColumnPair(
        "chars",
        str(gold),
        str(pred),
        "jsonl",
        "presidio",
        "char",
        ReadingOptions(side="gold"),
        ReadingOptions(side="predicted"),
        "text",
    )


@pytest.mark.parametrize(
    "gold_format,pred_format,unit,align,family",
    [
        (CONLL, CONLL, "token", "text", "conll"),
        (CONLL, CONLL, "char", "text", "conll"),
        (CONLL, CONLL, "token", "position", "conll"),
        (CONLL, CONLL, "token", "chars", None),  # characters: the generic road aligns
        (CONLL, CONLL, "span", "text", None),  # a unit the family does not build
        (CONLL, JSONL, "char", "text", None),  # families differ
        (JSONL, CONLL, "char", "text", None),
        (JSONL, JSONL, "char", "text", "chars"),
        (PRESIDIO, JSONL, "char", "text", "chars"),
        (JSONL, JSONL, "token", "text", None),  # JSON records have no tokens
        (JSONL, JSONL, "char", "position", None),  # tokens by position: CoNLL only
        (JSONL, JSONL, "char", "chars", None),
        (SPACY, SPACY, "char", "text", None),  # no column family at all
        (SPACY, CONLL, "token", "text", None),
    ],
)
def test_which_pairs_the_columnar_readers_take(
    tmp_path, gold_format, pred_format, unit, align, family
):
    pair = column_pair(
        tmp_path / "g",
        tmp_path / "p",
        gold_format=gold_format,
        pred_format=pred_format,
        unit=unit,
        reading=ReadingOptions(align=align),
    )
    assert (None if pair is None else (pair.family, pair.unit, pair.align)) == (
        None if family is None else (family, unit, align)
    )


# -- ColumnPair.read: CoNLL ------------------------------------------------------------------

# Tab-separated: token, tags A, tags B. Line 1 is a comment; sentences start on lines 2 and 7.
#   A: John Smith = PER (tokens 0-2), Rome = LOC (3-4); "Ann" I-PER (IOB2: repaired to PER 0-1)
#   B: visits Rome = LOC (2-4); Ann = PER (0-1)
# Characters of "John Smith visits Rome": John 0-4, Smith 5-10, visits 11-17, Rome 18-22.
TAGGED = (
    "# a comment\n"
    "John\tB-PER\tO\n"
    "Smith\tI-PER\tO\n"
    "visits\tO\tB-LOC\n"
    "Rome\tB-LOC\tI-LOC\n"
    "\n"
    "Ann\tI-PER\tB-PER\n"
    "left\tO\tO\n"
)


def rows(batches):
    """Per document: (id, gold spans, predicted spans) with label names."""
    out = []
    for batch in batches:
        for k, doc in enumerate(batch.doc_ids):
            sides = []
            for cols in (batch.gold, batch.pred):
                sides.append(
                    [
                        (int(cols.start[j]), int(cols.end[j]), batch.labels[cols.label[j]])
                        for j in range(len(cols))
                        if cols.doc[j] == k
                    ]
                )
            out.append((doc, *sides))
    return out


def conll_pair(tmp_path, unit="token", text=TAGGED, pred_text=None, **options):
    gold = tmp_path / "g.conll"
    gold.write_text(text, encoding="utf-8")
    pred = gold
    if pred_text is not None:
        pred = tmp_path / "p.conll"
        pred.write_text(pred_text, encoding="utf-8")
    pair = column_pair(
        gold,
        pred,
        gold_format=CONLL,
        pred_format=CONLL,
        unit=unit,
        reading=ReadingOptions(**options),
    )
    assert pair is not None
    return pair


def test_conll_sides_read_their_own_tag_columns(tmp_path):
    pair = conll_pair(tmp_path, tag_column=1, pred_tag_column=2)
    batches, info = pair.read()
    assert rows(batches) == [
        ("g.conll:2", [(0, 2, "PER"), (3, 4, "LOC")], [(2, 4, "LOC")]),
        ("g.conll:7", [(0, 1, "PER")], [(0, 1, "PER")]),
    ]
    path = str(tmp_path / "g.conll")
    assert info["gold"].to_dict() == {
        "path": path,
        "format": "conll",
        "documents": 2,
        "spans": 3,
        "repaired": 1,
        "tokens": 6,
    }
    # tags equal on "left" alone: Rome (B-LOC / I-LOC) and Ann (I-PER / B-PER) differ as tags
    # though Ann is one PER chunk on both sides
    assert info["predicted"].to_dict() == {
        "path": path,
        "format": "conll",
        "documents": 2,
        "spans": 2,
        "repaired": 0,
        "tokens": 6,
        "correct_tags": 1,
        "token_accuracy": 1 / 6,
    }


def test_conll_tag_columns_swapped_swap_the_sides(tmp_path):
    pair = conll_pair(tmp_path, tag_column=2, pred_tag_column=1)
    batches, _ = pair.read()
    assert rows(batches) == [
        ("g.conll:2", [(2, 4, "LOC")], [(0, 2, "PER"), (3, 4, "LOC")]),
        ("g.conll:7", [(0, 1, "PER")], [(0, 1, "PER")]),
    ]


def test_conll_in_characters_with_the_discard_repair(tmp_path):
    pair = conll_pair(tmp_path, unit="char", tag_column=1, pred_tag_column=2, repair="discard")
    batches, info = pair.read()
    # "Ann" I-PER is dropped, not repaired into a span
    assert rows(batches) == [
        ("g.conll:2", [(0, 10, "PER"), (18, 22, "LOC")], [(11, 22, "LOC")]),
        ("g.conll:7", [], [(0, 3, "PER")]),
    ]
    assert (info["gold"].spans, info["gold"].repaired) == (2, 1)


def test_conll_scheme_iob1_counts_its_own_repairs(tmp_path):
    # IOB1: a leading I- is valid, a B- that follows no span of its type is repaired.
    #   A: John B-PER (repaired), Rome B-LOC after O (repaired), Ann I-PER (valid) -> 2
    #   B: visits B-LOC after O (repaired), Ann B-PER (repaired)                   -> 2
    # (IOB2 counts 1 and 0: see test_conll_sides_read_their_own_tag_columns)
    pair = conll_pair(tmp_path, scheme="IOB1", tag_column=1, pred_tag_column=2)
    batches, info = pair.read()
    assert rows(batches)[1] == ("g.conll:7", [(0, 1, "PER")], [(0, 1, "PER")])
    assert (info["gold"].repaired, info["predicted"].repaired) == (2, 2)


def test_conll_space_delimiter_splits_a_tabbed_line_on_spaces_too(tmp_path):
    # "New York<TAB>B-LOC" split on spaces is three columns: the token is "New"
    text = "New York\tB-LOC\nis\tO\n"
    auto = conll_pair(tmp_path, unit="char", text=text)
    assert rows(auto.read()[0]) == [("g.conll:1", [(0, 8, "LOC")], [(0, 8, "LOC")])]
    spaced = conll_pair(tmp_path, unit="char", text=text, delimiter="space")
    batch = list(spaced.read()[0])
    assert rows(batch) == [("g.conll:1", [(0, 3, "LOC")], [(0, 3, "LOC")])]


def test_conll_by_position_counts_the_tokens_that_differ(tmp_path):
    pred = TAGGED.replace("John", "Jon").replace("left", "went")
    pair = conll_pair(tmp_path, pred_text=pred, align="position", tag_column=1, pred_tag_column=2)
    batches, info = pair.read()
    assert [doc for doc, *_ in rows(batches)] == ["g.conll:2", "g.conll:7"]
    alignment = info["predicted"].alignment
    assert (alignment.tokens, alignment.sentences) == (2, 2)


def test_conll_texts_that_differ_are_an_error_by_text(tmp_path):
    pair = conll_pair(tmp_path, pred_text=TAGGED.replace("John", "Jon"))
    with pytest.raises(InvalidInputError):
        list(pair.read()[0])


def test_a_hand_built_pair_passes_its_comment_marker_on(tmp_path):
    # column_pair always gives "#"; a ColumnPair built by hand may name another marker
    gold = tmp_path / "h.conll"
    gold.write_text("% note here\nJohn\tB-PER\n", encoding="utf-8")
    pair = file_pair(
        gold,
        gold,
        gold_options=ReadingOptions(comment="%"),
        pred_options=ReadingOptions(comment="%", side="predicted"),
    )
    assert rows(pair.read()[0]) == [("h.conll:2", [(0, 1, "PER")], [(0, 1, "PER")])]


def test_read_fills_the_information_it_is_given(tmp_path):
    pair = conll_pair(tmp_path, tag_column=1, pred_tag_column=2)
    mine = {"gold": SideInfo("G", "conll"), "predicted": SideInfo("P", "conll")}
    batches, info = pair.read(info=mine)
    list(batches)
    assert info is mine
    assert (mine["gold"].documents, mine["gold"].spans) == (2, 3)
    assert (mine["predicted"].documents, mine["predicted"].spans) == (2, 2)


def test_sides_name_each_file_and_its_format(tmp_path):
    pair = ColumnPair(
        "chars",
        "gold.jsonl",
        "pred.json",
        "jsonl",
        "presidio",
        "char",
        ReadingOptions(),
        ReadingOptions(),
    )
    assert pair.sides() == {
        "gold": SideInfo("gold.jsonl", "jsonl"),
        "predicted": SideInfo("pred.json", "presidio"),
    }
    assert pair.sides()["gold"] is not pair.sides()["gold"]  # fresh each time


def test_missing_files_raise_before_reading_gold_first(tmp_path):
    gold, pred = tmp_path / "g.conll", tmp_path / "p.conll"
    pair = column_pair(
        gold, pred, gold_format=CONLL, pred_format=CONLL, unit="token", reading=ReadingOptions()
    )
    with pytest.raises(FileNotFoundError) as info:
        pair.read()
    assert str(info.value) == f"{gold}: no such file"
    gold.write_text(TAGGED)
    with pytest.raises(FileNotFoundError) as info:
        pair.read()
    assert str(info.value) == f"{pred}: no such file"


def test_size_is_the_gold_files_bytes(tmp_path):
    pair = conll_pair(tmp_path, pred_text=TAGGED + "more\tO\tO\n")
    assert pair.size() == len(TAGGED.encode())


# -- ColumnPair.read: character-offset records -----------------------------------------------


def _jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def chars_pair(tmp_path, gold_records, pred_records):
    gold = _jsonl(tmp_path / "g.jsonl", gold_records)
    pred = tmp_path / "p.json"
    pred.write_text(json.dumps(pred_records), encoding="utf-8")
    pair = column_pair(
        gold, pred, gold_format=JSONL, pred_format=PRESIDIO, unit="char", reading=ReadingOptions()
    )
    assert pair is not None
    return pair


def _presidio(text, *spans):
    return {
        "full_text": text,
        "spans": [{"start_position": s, "end_position": e, "entity_type": t} for s, e, t in spans],
    }


def test_jsonl_gold_and_presidio_predictions_read_with_their_own_keys(tmp_path):
    pair = chars_pair(
        tmp_path,
        [
            {"text": "Ana in Porto", "spans": [{"start": 0, "end": 3, "label": "PER"}]},
            {"text": "Bo", "spans": []},
        ],
        [_presidio("Ana in Porto", (7, 12, "LOC")), _presidio("Bo", (0, 2, "PER"))],
    )
    batches, info = pair.read()
    assert rows(batches) == [
        ("g.jsonl:1", [(0, 3, "PER")], [(7, 12, "LOC")]),
        ("g.jsonl:2", [], [(0, 2, "PER")]),
    ]
    assert info["gold"].to_dict() == {
        "path": str(tmp_path / "g.jsonl"),
        "format": "jsonl",
        "documents": 2,
        "spans": 1,
        "repaired": 0,
    }
    assert info["predicted"].to_dict() == {
        "path": str(tmp_path / "p.json"),
        "format": "presidio",
        "documents": 2,
        "spans": 2,
        "repaired": 0,
    }


def test_presidio_gold_and_jsonl_predictions_read_with_their_own_keys(tmp_path):
    gold = tmp_path / "g.json"
    gold.write_text(json.dumps([_presidio("Ana in Porto", (0, 3, "PER"))]), encoding="utf-8")
    pred = _jsonl(
        tmp_path / "p.jsonl",
        [{"text": "Ana in Porto", "spans": [{"start": 7, "end": 12, "label": "LOC"}]}],
    )
    pair = column_pair(
        gold, pred, gold_format=PRESIDIO, pred_format=JSONL, unit="char", reading=ReadingOptions()
    )
    assert rows(pair.read()[0]) == [("g.json:1", [(0, 3, "PER")], [(7, 12, "LOC")])]


def test_a_bad_predicted_span_is_worded_for_the_predicted_side(tmp_path):
    pair = chars_pair(tmp_path, [{"text": "Bo"}], [_presidio("Bo", (0, 5, "PER"))])
    with pytest.raises(InvalidSpanError) as info:
        list(pair.read()[0])
    assert str(info.value) == (
        f"{tmp_path / 'p.json'} line 1: document 'p.json:1', predicted span #0 (0, 5, 'PER'): "
        "end is past the end of the document (2)"
    )


def test_a_bad_gold_span_is_worded_for_the_gold_side(tmp_path):
    pair = chars_pair(
        tmp_path,
        [{"text": "Bo", "spans": [{"start": 1, "end": 1, "label": "X"}]}],
        [_presidio("Bo")],
    )
    with pytest.raises(InvalidSpanError) as info:
        list(pair.read()[0])
    assert str(info.value) == (
        f"{tmp_path / 'g.jsonl'} line 1: document 'g.jsonl:1', gold span #0 (1, 1, 'X'): "
        "span is empty (end == start)"
    )


def test_the_chars_read_fills_the_information_it_is_given(tmp_path):
    pair = chars_pair(tmp_path, [{"text": "Bo"}], [_presidio("Bo", (0, 2, "PER"))])
    mine = pair.sides()
    batches, info = pair.read(info=mine)
    list(batches)
    assert info is mine
    assert (mine["gold"].documents, mine["predicted"].documents, mine["predicted"].spans) == (
        1,
        1,
        1,
    )


# -- ColumnPair.plan and reading by parts ----------------------------------------------------


def _json_pair(tmp_path, gold_records, pred_records, array=None):
    gold = _jsonl(tmp_path / "g.jsonl", gold_records)
    pred = _jsonl(tmp_path / "p.jsonl", pred_records)
    if array == "gold":
        gold.write_text(json.dumps(gold_records))
    if array == "pred":
        pred.write_text(json.dumps(pred_records))
    pair = column_pair(
        gold, pred, gold_format=JSONL, pred_format=JSONL, unit="char", reading=ReadingOptions()
    )
    assert pair is not None
    return pair


def _docs(n, ids=False, label="X", size=24):
    out = []
    for i in range(n):
        record = {
            "text": f"document number {i:04d}".ljust(size),
            "spans": [{"start": 0, "end": 8, "label": label}],
        }
        if ids:
            record["id"] = f"d{i}"
        out.append(record)
    return out


def test_a_jsonl_pair_is_planned_by_lines_and_reads_the_same_by_parts(tmp_path):
    pair = _json_pair(tmp_path, _docs(20), _docs(20, label="Y"))
    parts = list(pair.plan(part_bytes=200))
    assert len(parts) > 2
    assert not any(part.same_ids for part in parts)
    assert parts[0].gold.start == 0 and parts[-1].gold.stop is None
    whole = rows(pair.read()[0])
    info = pair.sides()
    by_parts = [row for part in parts for row in rows(pair.read(part, info)[0])]
    assert by_parts == whole
    assert 0 < len(rows(pair.read(parts[0])[0])) < 20  # a part holds some of the records
    assert (info["gold"].documents, info["predicted"].spans) == (20, 20)


def test_records_with_ids_on_both_sides_are_planned_with_same_ids(tmp_path):
    pair = _json_pair(tmp_path, _docs(12, ids=True), _docs(12, ids=True))
    parts = list(pair.plan(part_bytes=150))
    assert len(parts) > 1 and all(part.same_ids for part in parts)
    by_parts = [row for part in parts for row in rows(pair.read(part)[0])]
    assert [doc for doc, *_ in by_parts] == [f"d{i}" for i in range(12)]


@pytest.mark.parametrize("side", ["gold", "pred"])
def test_ids_on_one_side_only_are_planned_by_position(tmp_path, side):
    pair = _json_pair(tmp_path, _docs(12, ids=side == "gold"), _docs(12, ids=side == "pred"))
    parts = list(pair.plan(part_bytes=150))
    assert len(parts) > 1 and not any(part.same_ids for part in parts)


def test_presidio_ids_are_looked_up_under_presidio_keys(tmp_path):
    gold = _jsonl(tmp_path / "g.jsonl", _docs(6, ids=True))
    pred = _jsonl(
        tmp_path / "p.jsonl",
        [{**_presidio(r["text"], (0, 8, "X")), "id": r["id"]} for r in _docs(6, ids=True)],
    )
    pair = column_pair(
        gold, pred, gold_format=JSONL, pred_format=PRESIDIO, unit="char", reading=ReadingOptions()
    )
    parts = list(pair.plan(part_bytes=100))
    assert len(parts) > 1 and all(part.same_ids for part in parts)


@pytest.mark.parametrize("array", ["gold", "pred"])
def test_a_json_array_on_either_side_is_read_in_one_piece(tmp_path, array):
    pair = _json_pair(tmp_path, _docs(6), _docs(6), array=array)
    assert pair.plan(part_bytes=50) is None


@pytest.mark.parametrize("side", ["gold", "pred"])
def test_a_first_line_that_is_no_record_is_read_in_one_piece(tmp_path, side):
    pair = _json_pair(tmp_path, _docs(6), _docs(6))
    path = tmp_path / ("g.jsonl" if side == "gold" else "p.jsonl")
    path.write_text('"just a string"\n' + path.read_text())
    assert pair.plan(part_bytes=50) is None


@pytest.mark.parametrize("side", ["gold", "pred"])
def test_a_missing_file_is_read_in_one_piece(tmp_path, side):
    pair = _json_pair(tmp_path, _docs(6), _docs(6))
    (tmp_path / ("g.jsonl" if side == "gold" else "p.jsonl")).unlink()
    assert pair.plan(part_bytes=50) is None


def _spy(monkeypatch, module, name, result):
    calls = []

    def spy(*args, **kwargs):
        calls.append((args, kwargs))
        return result

    monkeypatch.setattr(module, name, spy)
    return calls


@pytest.mark.parametrize("align", ["text", "position"])
def test_a_conll_pair_is_cut_by_counting_sentences(tmp_path, monkeypatch, align):
    pair = conll_pair(tmp_path, pred_text=TAGGED + "more\tO\tO\n", align=align)
    counted = _spy(monkeypatch, ranges_module, "plan_ranges", "counted")
    assert pair.plan(part_bytes=77, taper=3) == "counted"
    assert counted == [
        ((pair.gold, pair.pred), {"rule": "paragraph", "part_bytes": 77, "taper": 3})
    ]
    pair.plan(part_bytes=50)  # no taper unless asked
    assert counted[1] == (
        (pair.gold, pair.pred),
        {"rule": "paragraph", "part_bytes": 50, "taper": 0},
    )


def test_a_jsonl_pair_is_cut_by_lines(tmp_path, monkeypatch):
    pair = _json_pair(tmp_path, _docs(3), _docs(4))
    counted = _spy(monkeypatch, ranges_module, "plan_ranges", "counted")
    assert pair.plan(part_bytes=55, taper=3) == "counted"
    assert counted == [((pair.gold, pair.pred), {"rule": "line", "part_bytes": 55})]


def test_a_conll_pair_read_by_matched_parts_gives_the_whole(tmp_path):
    text = "".join(f"w{i}\tB-PER\tO\nx{i}\tO\tB-LOC\n\n" for i in range(30))
    pair = conll_pair(tmp_path, text=text, tag_column=1, pred_tag_column=2)
    parts = list(pair.plan(part_bytes=100, taper=2))
    assert len(parts) > 2
    info = pair.sides()
    by_parts = [row for part in parts for row in rows(pair.read(part, info)[0])]
    assert by_parts == [
        (f"g.conll:{3 * i + 1}", [(0, 1, "PER")], [(1, 2, "LOC")]) for i in range(30)
    ]
    assert (info["gold"].documents, info["predicted"].spans) == (30, 30)


# -- ColumnPair.plan on CoNLL pairs: cuts at the same sentence ---------------------------------

LOOSE = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def plan_corpus(n: int, seed: int, *, vocabulary: int = 5000) -> tuple[str, str]:
    """Gold and predicted CoNLL text of ``n`` sentences: the same tokens, other tags."""
    rng = random.Random(seed)
    gold, pred = [], []
    for _ in range(n):
        tokens = [f"w{rng.randrange(vocabulary)}" for _ in range(rng.randint(1, 8))]
        gold.append("".join(f"{t}\t{rng.choice(['O', 'B-PER', 'B-LOC'])}\n" for t in tokens))
        pred.append("".join(f"{t}\t{rng.choice(['O', 'B-ORG'])}\n" for t in tokens))
    return "\n".join(gold), "\n".join(pred)


def write_plan_pair(tmp_path, gold: str, pred: str):
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
def test_a_conll_pair_is_cut_at_the_same_sentence_on_both_sides(
    tmp_path, n, seed, part_bytes, docstart
):
    gold, pred = plan_corpus(n, seed)
    if docstart:
        gold = "-DOCSTART- -X- O\n\n" + gold
        pred = "-DOCSTART- -X- O\n\n" + pred
    g, p = write_plan_pair(tmp_path, gold, pred)
    parts = list(file_pair(g, p).plan(part_bytes))
    assert parts == list(ranges_module.plan_ranges(g, p, rule="paragraph", part_bytes=part_bytes))
    check_cover(parts, g, p)


def test_cuts_pair_the_same_sentence_when_the_predictions_are_laid_out_differently(tmp_path):
    gold, pred = plan_corpus(2000, 7)
    pred = "-DOCSTART- -X- O\n\n" + pred.replace("\n\n", "\n\n\n")  # longer: the guess drifts
    g, p = write_plan_pair(tmp_path, gold, pred)
    parts = list(file_pair(g, p).plan(2000))
    assert len(parts) > 20
    check_cover(parts, g, p)
    gold_text, pred_text = g.read_bytes(), p.read_bytes()
    for part in parts[1:]:  # each cut starts the same sentence on both sides
        g_line = gold_text[part.gold.start :].split(b"\n", 1)[0].split(b"\t")[0]
        p_line = pred_text[part.pred.start :].split(b"\n", 1)[0].split(b"\t")[0]
        assert g_line == p_line


def test_the_conll_parts_score_as_one_process_does(tmp_path):
    gold, pred = plan_corpus(3000, 11)
    g, p = write_plan_pair(tmp_path, gold, pred.replace("\n\n", "\n\n\n"))
    pair = file_pair(g, p)
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


def test_where_sentences_repeat_the_cuts_still_count_right(tmp_path):
    gold, pred = plan_corpus(400, 3, vocabulary=1)  # w0, w0 w0, ...: many lookalikes
    g, p = write_plan_pair(tmp_path, gold, pred.replace("\n\n", "\n\n\n"))
    parts = list(file_pair(g, p).plan(200))
    check_cover(parts, g, p)
    gold_text, pred_text = g.read_bytes(), p.read_bytes()
    for part in parts[1:]:  # any cut it made is right: as many sentences before it
        assert gold_text[: part.gold.start].count(b"\n\n") == pred_text[: part.pred.start].replace(
            b"\n\n\n", b"\n\n"
        ).count(b"\n\n")


def test_a_crlf_file_is_cut_at_paragraphs_and_its_lines_numbered(tmp_path):
    gold, pred = plan_corpus(3000, 5)
    g, p = write_plan_pair(tmp_path, gold.replace("\n", "\r\n"), pred)
    parts = list(file_pair(g, p).plan(1000))
    g_data, p_data = g.read_bytes(), p.read_bytes()
    assert len(parts) > 2
    for part in parts[1:]:  # a CRLF paragraph on one side, an LF one on the other
        assert g_data[part.gold.start - 4 : part.gold.start] == b"\r\n\r\n"
        assert p_data[part.pred.start - 2 : part.pred.start] == b"\n\n"
        assert g_data[: part.gold.start].count(b"\r\n\r\n") == p_data[: part.pred.start].count(
            b"\n\n"
        )
    lines = gold.split("\n")
    at = len(lines) // 2
    lines[at] = lines[at] + "\r"  # a CRLF line end further on
    g, p = write_plan_pair(tmp_path, "\n".join(lines), pred)
    parts = list(file_pair(g, p).plan(1000))
    cr = g.read_bytes().index(b"\r")
    assert len(parts) > 2
    assert any(part.gold.start > cr for part in parts)  # a CRLF line end: counted past it
    check_cover(parts, g, p)


@pytest.mark.parametrize("taper", [2, 4])
def test_taper_shortens_the_last_parts(tmp_path, taper):
    gold, pred = plan_corpus(4000, 9)
    g, p = write_plan_pair(tmp_path, gold, pred)
    parts = list(file_pair(g, p).plan(8000, taper=taper))
    sizes = [part.gold.stop - part.gold.start for part in parts[:-1]]
    assert max(sizes[:3]) >= 7990 and min(sizes[-3:]) < 2000
    assert min(sizes) >= 8000 // 16
    check_cover(parts, g, p)
    assert parts[0].gold == ByteRange(0, parts[1].gold.start, 1)


def test_a_corpus_of_repeated_blocks_is_still_cut(tmp_path):
    """Every sentence pair recurs once a block; the partner is looked for near where it
    should be first, where it is the only one."""
    gold, pred = plan_corpus(300, 13)
    g, p = write_plan_pair(tmp_path, gold * 20, pred * 20)
    parts = list(file_pair(g, p).plan(len(gold) // 3))
    assert len(parts) > 30
    check_cover(parts, g, p)
    for part in parts[1:]:
        assert part.gold.line == part.pred.line  # same layout: the same sentence, the same line
