"""CoNLL reader: columns, sentence and document boundaries, comments, schemes and repairs."""

from __future__ import annotations

import pytest

from spacy_span_eval import InvalidInputError, Span
from spacy_span_eval.readers.conll import read_conll


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
