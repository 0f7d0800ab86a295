"""CoNLL reader: columns, sentence and document boundaries, comments, schemes and repairs."""

from __future__ import annotations

import pytest

from spacy_span_eval import InvalidInputError, Span
from spacy_span_eval.readers import base
from spacy_span_eval.readers.conll import column_need, read_conll, splitter


def write(tmp_path, text: str, name: str = "data.conll", newline: str = "\n"):
    path = tmp_path / name
    path.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return path


def sentences(path, **kwargs):
    return [(r.tokens, r.spans, r.repaired) for r in read_conll(path, **kwargs)]


def test_sentences_tokens_and_spans(tmp_path):
    path = write(tmp_path, "John\tB-PER\nSmith\tI-PER\nsaid\tO\n\nParis\tB-LOC\n")
    assert sentences(path) == [
        (("John", "Smith", "said"), (Span(0, 2, "PER"),), 0),
        (("Paris",), (Span(0, 1, "LOC"),), 0),
    ]


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("sep", ["\t", " ", "  "])
def test_space_tab_and_crlf_read_the_same(tmp_path, newline, sep):
    text = f"EU{sep}NNP{sep}B-ORG\nrejects{sep}VBZ{sep}O\n\n\n"
    path = write(tmp_path, text, newline=newline)
    assert sentences(path) == [(("EU", "rejects"), (Span(0, 1, "ORG"),), 0)]


def test_tag_column_is_configurable(tmp_path):
    path = write(tmp_path, "EU NNP B-ORG O\nrejects VBZ O B-MISC\n")
    assert sentences(path, tag_column=2)[0][1] == (Span(0, 1, "ORG"),)
    assert sentences(path)[0][1] == (Span(1, 2, "MISC"),)


def test_docstart_is_a_boundary_not_a_sentence(tmp_path):
    path = write(tmp_path, "-DOCSTART- -X- O O\n\nA NNP B-X\n-DOCSTART- -X- O O\nB NNP B-X\n")
    got = sentences(path)
    assert [s[0] for s in got] == [("A",), ("B",)]


@pytest.mark.parametrize(
    "line,options,tag",
    [
        ("-DOCSTART- -X- O O", {}, "O"),
        ("-DOCSTART- -X- -X- O", {"tag_column": -2}, "-X-"),
        ("-DOCSTART-\t-X-\t B-X ", {"tag_column": 2}, "B-X"),  # stripped, as a tag is
        ("-DOCSTART-", {}, None),  # no tag column: a token never tagged alike
        ("-DOCSTART- O", {"tag_column": 2}, None),
    ],
)
def test_docstart_lines_are_noted_with_their_tags_in_file_order(tmp_path, line, options, tag):
    """conlleval.pl counts a -DOCSTART- line as a token: the reader notes each one's tag."""
    path = write(tmp_path, f"{line}\nA NNP B-X O\n-DOCSTART- a O O\n\nB NNP B-X O\n{line}\n")
    docstarts: list[str | None] = []
    assert len(list(read_conll(path, **options, docstarts=docstarts))) == 2
    assert docstarts == [tag, "O", tag]


def test_comments_are_skipped_but_a_hash_token_is_kept(tmp_path):
    path = write(
        tmp_path, "# sent_id = 1\n# text = # is here\n#\tO\nis\tO\nhere\tB-LOC\n\n# O\nagain\tO\n"
    )
    got = sentences(path)
    assert got[0][0] == ("#", "is", "here") and got[0][1] == (Span(2, 3, "LOC"),)
    assert got[1][0] == ("#", "again")


def test_hash_tokens_inside_a_sentence_are_tokens(tmp_path):
    path = write(tmp_path, "a\tO\n#\tB-TAG\n# I-TAG\n")
    assert sentences(path)[0] == (("a", "#", "#"), (Span(1, 3, "TAG"),), 0)


def test_comments_can_be_turned_off(tmp_path):
    path = write(tmp_path, "# sent_id = 1\nx\tO\n")
    with pytest.raises(InvalidInputError, match="line 1"):
        sentences(path, comment=None)


def test_bom_and_missing_final_newline(tmp_path):
    path = tmp_path / "bom.conll"
    path.write_bytes("\ufeffA\tB-X\nb\tO".encode())
    assert sentences(path) == [(("A", "b"), (Span(0, 1, "X"),), 0)]


@pytest.mark.parametrize(
    "scheme,tags,spans",
    [
        ("IOB1", ["I-X", "I-X", "B-X", "O"], [(0, 2, "X"), (2, 3, "X")]),
        ("IOB2", ["B-X", "I-X", "B-X", "O"], [(0, 2, "X"), (2, 3, "X")]),
        ("IOE1", ["I-X", "E-X", "I-X", "O"], [(0, 2, "X"), (2, 3, "X")]),
        ("IOE2", ["I-X", "E-X", "E-X", "O"], [(0, 2, "X"), (2, 3, "X")]),
        ("IOBES", ["B-X", "E-X", "S-X", "O"], [(0, 2, "X"), (2, 3, "X")]),
        ("BIOES", ["B-X", "E-X", "S-X", "O"], [(0, 2, "X"), (2, 3, "X")]),
        ("BILOU", ["B-X", "L-X", "U-X", "O"], [(0, 2, "X"), (2, 3, "X")]),
        ("IO", ["I-X", "I-X", "O", "I-Y"], [(0, 2, "X"), (3, 4, "Y")]),
    ],
)
def test_every_scheme(tmp_path, scheme, tags, spans):
    path = write(tmp_path, "".join(f"t{i} {tag}\n" for i, tag in enumerate(tags)))
    assert sentences(path, scheme=scheme)[0][1] == tuple(Span(*s) for s in spans)


@pytest.mark.parametrize(
    "repair,spans",
    [
        ("conlleval", (Span(0, 1, "X"), Span(2, 3, "Y"))),
        ("discard", ()),
    ],
)
def test_repairs_are_counted_per_sentence(tmp_path, repair, spans):
    path = write(tmp_path, "a I-X\nb O\nc I-Y\n\nd B-X\n")
    got = sentences(path, repair=repair)
    assert got[0][1] == spans and got[0][2] == 2
    assert got[1][2] == 0


def test_repair_error_names_file_and_line(tmp_path):
    path = write(tmp_path, "a B-X\nb O\nc I-Y\n")
    with pytest.raises(InvalidInputError, match=r"data\.conll line 3"):
        sentences(path, repair="error")


def test_malformed_line_names_file_and_line(tmp_path):
    path = write(tmp_path, "a B-X\nb O\n\nlonely\n")
    with pytest.raises(InvalidInputError, match="data.conll line 4") as info:
        sentences(path)
    assert "data.conll line 4" in str(info.value) and "malformed line" in str(info.value)
    assert "'lonely'" in str(info.value)


def test_unknown_tag_prefix_names_file_line_and_tag(tmp_path):
    path = write(tmp_path, "a B-X\nb O\nc X-LOC\n")
    with pytest.raises(InvalidInputError, match="data.conll line 3") as info:
        sentences(path)
    message = str(info.value)
    assert "data.conll line 3" in message and "'X-LOC'" in message and "prefix" in message


@pytest.mark.parametrize("text", ["", "\n\n", "-DOCSTART- -X- O O\n\n", "# just a comment\n"])
def test_empty_input_is_an_error(tmp_path, text):
    path = write(tmp_path, text)
    with pytest.raises(InvalidInputError, match=r"data\.conll: no sentences found"):
        sentences(path)


def test_not_utf8_names_the_file(tmp_path):
    path = tmp_path / "latin1.conll"
    path.write_bytes("caf\xe9 O\n".encode("latin-1"))
    with pytest.raises(InvalidInputError, match=r"latin1\.conll: not UTF-8"):
        sentences(path)


def test_records_name_file_and_first_line(tmp_path):
    path = write(tmp_path, "# c\na O\n\n\nb O\n")
    records = list(read_conll(path))
    assert [r.key for r in records] == ["data.conll:2", "data.conll:5"]
    assert records[1].where.endswith("data.conll line 5") and records[1].id is None


def test_reading_is_lazy(tmp_path):
    path = write(tmp_path, "a O\n\nb O\n\nc X-BAD\n")
    records = read_conll(path)
    assert next(records).tokens == ("a",)  # the bad line further down is not read yet


# -------------------------------------------------------------------------------------------------
# The reference CoNLL reader (:func:`spacy_span_eval.readers.read_conll`) pinned on tiny files:
# how each delimiter splits a line (a token with a space inside tells them apart), how many
# columns a tag column needs, which lines are comments, and its messages written out in full.
# -------------------------------------------------------------------------------------------------


def read(path, **kwargs):
    return [(r.tokens, r.spans) for r in read_conll(path, **kwargs)]


@pytest.mark.parametrize(
    "delimiter,columns",
    [
        ("tab", ["New York", "NNP", "", "B-LOC"]),  # every tab, empty columns kept
        ("space", ["New", "York", "NNP", "B-LOC"]),  # runs of any whitespace
        ("auto", ["New York", "NNP", "", "B-LOC"]),  # a tab in the line: tabs
    ],
)
def test_each_delimiter_splits_a_line_with_a_tab(delimiter, columns):
    assert splitter(delimiter)("New York\tNNP\t\tB-LOC") == columns


def test_auto_splits_a_line_without_a_tab_on_runs_of_spaces():
    assert splitter("auto")("New  York B-LOC") == ["New", "York", "B-LOC"]


def test_an_unknown_delimiter_is_named_with_the_choices():
    with pytest.raises(ValueError) as info:
        splitter("comma")
    assert str(info.value) == "unknown delimiter 'comma'; choose one of auto, tab, space"


# "New York" is one token with tabs between the columns, two with spaces.
SPACED = "New York\tB-LOC\nis\tO\nbig\tO\n"


@pytest.mark.parametrize("delimiter", ["tab", "auto"])
def test_a_token_with_a_space_stays_one_token_between_tabs(tmp_path, delimiter):
    path = write(tmp_path, SPACED)
    assert read(path, delimiter=delimiter) == [(("New York", "is", "big"), (Span(0, 1, "LOC"),))]


def test_the_space_delimiter_splits_inside_the_token(tmp_path):
    # "New York\tB-LOC" -> New | York | B-LOC: the token is "New", the tag the last column
    path = write(tmp_path, SPACED)
    assert read(path, delimiter="space") == [(("New", "is", "big"), (Span(0, 1, "LOC"),))]


@pytest.mark.parametrize(
    "tag_column,need", [(-1, 2), (0, 2), (1, 2), (2, 3), (4, 5), (-2, 2), (-3, 3), (-5, 5)]
)
def test_a_tag_column_needs_enough_columns_for_itself_and_the_token(tag_column, need):
    assert column_need(tag_column) == need


@pytest.mark.parametrize("tag_column", [2, -3])
def test_a_line_too_short_for_the_tag_column_is_malformed(tmp_path, tag_column):
    path = write(tmp_path, "a O\n")
    with pytest.raises(InvalidInputError) as info:
        read(path, tag_column=tag_column)
    assert str(info.value) == (
        f"{path} line 1: malformed line: expected at least 3 columns (token ... tag, tag "
        f"column {tag_column}), found 2: 'a O'"
    )


def test_tag_column_one_reads_two_column_lines(tmp_path):
    path = write(tmp_path, "Ann B-PER\nleft O\n")
    assert read(path, tag_column=1) == [(("Ann", "left"), (Span(0, 1, "PER"),))]


def test_the_malformed_line_message_in_full(tmp_path):
    path = write(tmp_path, "a B-X\nb O\n\nlonely\n")
    with pytest.raises(InvalidInputError) as info:
        read(path)
    assert str(info.value) == (
        f"{path} line 4: malformed line: expected at least 2 columns (token ... tag, tag "
        "column -1), found 1: 'lonely'"
    )


def test_one_word_comments_before_a_sentence_are_skipped(tmp_path):
    path = write(tmp_path, "#note\n#\nAnn B-PER\n\n#again\nleft O\n")
    records = list(read_conll(path))
    assert [(r.tokens, r.key) for r in records] == [
        (("Ann",), "data.conll:3"),
        (("left",), "data.conll:6"),
    ]


def test_an_unknown_repair_policy_is_named_with_the_choices(tmp_path):
    path = write(tmp_path, "a O\n")
    with pytest.raises(ValueError) as info:
        read(path, repair="fix")
    assert str(info.value) == (
        "unknown repair policy 'fix'; choose one of conlleval, discard, error"
    )


def test_a_line_too_long_names_the_file(tmp_path, monkeypatch):
    monkeypatch.setattr(base, "MAX_LINE_CHARS", 20)
    path = write(tmp_path, "a O\n" + "x" * 30 + " O\n")
    with pytest.raises(InvalidInputError) as info:
        read(path)
    assert str(info.value) == (
        f"{path} line 2: the line is longer than 20 characters; is this a text file of the "
        "right format?"
    )


def test_comments_with_several_words_are_skipped_but_a_hash_token_line_is_kept(tmp_path):
    # "# O" has the two columns a token line needs and an O tag: the token "#"; so has
    # "# text = B-X", whose last column is a tag of the scheme: a token "#" tagged B-X
    path = write(tmp_path, "# sent_id = 1\n# O\nis O\n\n# text = B-X\n#\tB-X\n")
    assert read(path) == [
        (("#", "is"), ()),
        (("#", "#"), (Span(0, 1, "X"), Span(1, 2, "X"))),
    ]


def test_a_docstart_line_ends_the_sentence_before_it(tmp_path):
    path = write(tmp_path, "-DOCSTART- -X- O\na O\n-DOCSTART- -X- O\nb B-X\nc O\n\nd O\n")
    records = list(read_conll(path))
    assert [(r.tokens, r.key) for r in records] == [
        (("a",), "data.conll:2"),
        (("b", "c"), "data.conll:4"),
        (("d",), "data.conll:7"),
    ]
    assert records[1].where == f"{path} line 4"


def test_a_bad_tag_is_named_by_its_own_line(tmp_path):
    # sentence 2 starts on line 5 (after its comment): "e" is its token 2, on line 7
    path = write(tmp_path, "a O\nb O\n\n# sent_id = 2\nc O\nd B-X\ne I-Y\n")
    with pytest.raises(InvalidInputError) as info:
        read(path, repair="error")
    assert f"{path} line 7 (token 2)" in str(info.value)


def test_the_scheme_and_the_repair_policy_reach_the_decoder(tmp_path):
    path = write(tmp_path, "a S-X\nb O\nc I-Y\nd E-Y\n")
    # IOBES: "S-X" is a span of one; "I-Y E-Y" without its B- is repaired (conlleval) or
    # dropped (discard), one repair either way
    got = [(r.spans, r.repaired) for r in read_conll(path, scheme="IOBES", repair="discard")]
    assert got == [((Span(0, 1, "X"),), 1)]
    got = [(r.spans, r.repaired) for r in read_conll(path, scheme="IOBES")]
    assert got == [((Span(0, 1, "X"), Span(2, 4, "Y")), 1)]


@pytest.mark.parametrize("text", ["", "-DOCSTART- -X- O\n\n", "# only a comment\n"])
def test_a_file_without_sentences_is_named(tmp_path, text):
    path = write(tmp_path, text)
    with pytest.raises(InvalidInputError) as info:
        read(path)
    assert str(info.value) == f"{path}: no sentences found (empty input); nothing to score"


def test_a_file_that_is_not_utf8_is_named_with_the_byte(tmp_path):
    path = tmp_path / "latin1.conll"
    path.write_bytes("ok O\ncaf\xe9 O\n".encode("latin-1"))
    with pytest.raises(InvalidInputError) as info:
        read(path)
    # "ok O\n" is 5 bytes, "caf" 3 more: the Latin-1 é is byte 8
    assert str(info.value) == f"{path}: not UTF-8 text (invalid continuation byte at byte 8)"
