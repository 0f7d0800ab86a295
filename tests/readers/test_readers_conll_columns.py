"""The columnar CoNLL reader against the reference reader (``read_conll``), record for record.

Random files in every layout the reference accepts (tabs, runs of spaces, both, leading and
trailing whitespace, CRLF, a BOM, ``-DOCSTART-``, comments, ``#`` tokens, extra columns,
malformed lines, unknown tags, non-ASCII text and whitespace), every option, chunk sizes
down to a few bytes: the same records, or the same error. Then file pairs through
``conll_pair_batches`` against the reference route, and every CoNLL corpus under
``../shared/data``.
"""

from __future__ import annotations

import random
import re
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from spacy_span_eval import SpanEvaluator
from spacy_span_eval.errors import InvalidInputError
from spacy_span_eval.readers import conll_bytes
from spacy_span_eval.readers import conll_columns as cc
from spacy_span_eval.readers.align import SideInfo
from spacy_span_eval.readers.conll import read_conll
from spacy_span_eval.readers.conll_columns import conll_blocks, conll_pair_batches
from spacy_span_eval.readers.pairing import documents, pair_records
from spacy_span_eval.readers.schemes import SCHEMES, decode, encode

from conftest import data_path
from synthetic import perturb

OPTIONS = st.fixed_dictionaries(
    {
        "scheme": st.sampled_from(list(SCHEMES)),
        "repair": st.sampled_from(["conlleval", "conlleval", "discard", "error"]),
        "tag_column": st.sampled_from([-1, -1, -1, -2, 0, 1, 2]),
        "delimiter": st.sampled_from(["auto", "auto", "tab", "space"]),
        "comment": st.sampled_from(["#", "#", None, "//"]),
    }
)
TOKENS = [
    "EU",
    "rejects",
    "#",
    "-DOCSTART-",
    "New York",
    "Zoë",
    "日本",
    "a-b",
    "O",
    "B-X",
    "x\x0cy",
    "//",
]
LABELS = ["PER", "LOC", "DATE-TIME", "Ö"]
BAD_TAGS = ["X-PER", "B-", "PER", "Ö-X", "O-PER"]
SEPARATORS = ["\t", "\t", " ", "  ", " \t", "\t\t", "\x1c"]
BOUNDARIES = ["", "", "", "  ", "\t", "\x0c", "-DOCSTART- -X- O O", "-DOCSTART-", "\u3000"]
COMMENTS = ["# sent_id = 3", "#", "# O", "#\tB-PER", "// note"]
ODD = ["lonely", "a\xa0O", "\xa0", "#\tO", "# text", "-DOCSTART-\tO", "x O O O O O"]


@st.composite
def conll_texts(draw, options) -> str:
    """A file that is mostly valid for ``options``: sentences of token lines (the tag where
    the tag column is), boundaries between them, comments at their start, and now and then
    a line that is not what it should be."""
    prefixes = [*SCHEMES[options["scheme"]].prefixes, "O"]
    k = options["tag_column"]
    lines = []
    for _ in range(draw(st.integers(0, 5))):
        lines.append(draw(st.sampled_from(BOUNDARIES)))
        if draw(st.integers(0, 3)) == 0:
            mark = options["comment"] or "#"
            lines.append(draw(st.sampled_from([c for c in COMMENTS if c.startswith(mark)])))
        for _ in range(draw(st.integers(1, 5))):
            if draw(st.integers(0, 59)) == 0:
                lines.append(draw(st.sampled_from(ODD)))
                continue
            lines.append(draw(token_lines(options, prefixes, k)))
    newline = draw(st.sampled_from(["\n", "\n", "\r\n", "\r"]))
    text = newline.join(lines) + draw(st.sampled_from([newline, "", newline + newline]))
    return ("\ufeff" if draw(st.booleans()) else "") + text


@st.composite
def token_lines(draw, options, prefixes, k) -> str:
    if draw(st.integers(0, 29)) == 0:
        tag = draw(st.sampled_from(BAD_TAGS))
    else:
        prefix = draw(st.sampled_from(prefixes))
        tag = "O" if prefix == "O" else f"{prefix}-{draw(st.sampled_from(LABELS))}"
    width = draw(st.integers(max(2, k + 1 if k >= 0 else -k), 4))
    cols = [draw(st.sampled_from(["NNP", "-", "x"])) for _ in range(width)]
    chaos = draw(st.integers(0, 24)) == 0  # anything goes; else what splits as meant
    if chaos:
        sep = draw(st.sampled_from(SEPARATORS))
        cols[0] = draw(st.sampled_from(TOKENS))
    else:
        sep = draw(
            st.sampled_from(
                SEPARATORS[:5]
                if options["delimiter"] == "auto"
                else ["\t"]
                if options["delimiter"] == "tab"
                else [" ", "  ", "\t", " \t"]
            )
        )
        cols[0] = draw(st.sampled_from(TOKENS[:3] + TOKENS[5:8]))
    cols[k] = tag
    lead = draw(st.sampled_from(["", "", "", " ", "\t"] if chaos or "\t" not in sep else [""]))
    trail = draw(st.sampled_from(["", "", "", " ", "\t", " \x0b"]))
    return lead + sep.join(cols) + trail


def reference(path, **options):
    """The records, then the tags of the ``-DOCSTART-`` lines (or the error)."""
    out, docstarts = [], []
    try:
        for r in read_conll(path, **options, docstarts=docstarts):
            out.append((r.where, r.key, r.tokens, r.spans, r.repaired))
    except InvalidInputError as exc:
        return [*out, ("error", type(exc).__name__, str(exc))]
    return [*out, ("docstarts", docstarts)]


def columnar(path, chunk_bytes=cc.CHUNK_BYTES, **options):
    out, docstarts = [], []
    try:
        for block in conll_blocks(path, chunk_bytes=chunk_bytes, docstarts=docstarts, **options):
            for j in range(len(block)):
                r = block.record(j)
                out.append((r.where, r.key, r.tokens, r.spans, r.repaired))
            if block.error is not None:
                raise block.error()
    except InvalidInputError as exc:
        return [*out, ("error", type(exc).__name__, str(exc))]
    return [*out, ("docstarts", docstarts)]


@st.composite
def uniform_texts(draw, options) -> str:
    """A file in the common layout the reader takes a short cut for: every token line with
    the same number of columns, split by single tabs (or single spaces), sentences apart by
    one blank line, ``-DOCSTART-`` lines now and then; the tag where the tag column is."""
    prefixes = [*SCHEMES[options["scheme"]].prefixes, "O"]
    k = options["tag_column"]
    width = draw(st.integers(max(2, k + 1 if k >= 0 else -k), 4))
    sep = draw(st.sampled_from(["\t"] if options["delimiter"] == "tab" else ["\t", " "]))
    words = st.sampled_from(["EU", "rejects", "x", "NNP", "O", "a-b", "-DOCSTART-"])
    lines = []
    for _ in range(draw(st.integers(1, 6))):
        if draw(st.integers(0, 4)) == 0:
            lines += [sep.join(["-DOCSTART-", *["O"] * (width - 1)]), ""]
        for _ in range(draw(st.integers(1, 5))):
            prefix = draw(st.sampled_from(prefixes))
            tag = "O" if prefix == "O" else f"{prefix}-{draw(st.sampled_from(LABELS[:2]))}"
            cols = [draw(words) for _ in range(width)]
            cols[k] = tag
            lines.append(sep.join(cols))
        lines.append("")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    "texts",
    [
        pytest.param(conll_texts, id="mostly valid files"),
        # (any tag column, 2 to 4 columns: the layout's short cut computes where each column
        # starts and ends from the separators of every line at once)
        pytest.param(uniform_texts, id="the common layout"),
    ],
)
@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data(), options=OPTIONS, chunk=st.sampled_from([8, 64, 1 << 20]))
def test_random_files_read_as_the_reference_reads_them(tmp_path, texts, data, options, chunk):
    text = data.draw(texts(options))
    path = tmp_path / "data.conll"
    path.write_bytes(text.encode("utf-8"))
    assert columnar(path, chunk_bytes=chunk, **options) == reference(path, **options)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.binary(max_size=300), options=OPTIONS)
def test_bad_bytes_fail_as_the_reference_fails(tmp_path, data, options):
    path = tmp_path / "bytes.conll"
    path.write_bytes(data)
    # Default chunks: the reference decodes 8 KB blocks and reports an invalid byte before
    # the lines of its block (a chunk of a few bytes would read those lines first).
    assert_same(columnar(path, **options), reference(path, **options))


def assert_same(got, want):
    """Same records and error; in "not UTF-8" the byte offset is the file's here, the decoder
    block's in the reference, so it is left out."""

    def offsetless(out):
        return [
            (*x[:2], re.sub(r" at byte \d+\)", ")", x[2])) if x[0] == "error" else x for x in out
        ]

    assert offsetless(got) == offsetless(want)


@pytest.mark.parametrize(
    "data",
    [
        b"a B-X\nb X-Y\n\xc2",  # the open sentence is never decoded: the end of file fails first
        b"a B-X\n\nb X-Y\n\xe2\x82",  # the first sentence is complete; the second is not
        b"a B-X\nlonely\n\xc2",  # a malformed line is met before the end of the file
        b"a\xa0B-X\nb X-Y\n\xc2",  # the same with a non-ASCII space
        b"a B-X\nb O\r\xc2",  # a final \r may yet be \r\n: that line is not complete either
        b"\xef\xbb",  # a file cut inside a BOM is empty text
    ],
)
def test_a_file_cut_inside_a_character_fails_where_text_mode_fails(tmp_path, data):
    path = tmp_path / "cut.conll"
    path.write_bytes(data)
    assert_same(columnar(path, repair="error"), reference(path, repair="error"))


def test_unicode_space_list_is_pythons():
    assert {c for c in map(chr, range(0x80, sys.maxunicode + 1)) if c.isspace()} == set(
        conll_bytes.UNICODE_SPACE
    )


@pytest.mark.parametrize(
    "char", sorted(c for c in map(chr, range(0x80, sys.maxunicode + 1)) if c.isspace())
)
def test_every_non_ascii_space_reads_as_ascii_spaces(char):
    width = len(char.encode())
    spaced = conll_bytes.ascii_spaces(f"a{char}é\n".encode() + conll_bytes.PAD)
    assert spaced.tobytes() == b"a" + b" " * width + "é\n".encode() + conll_bytes.PAD
    other = "Zoë – “日本” \u200b\u2030\n".encode() + conll_bytes.PAD
    assert conll_bytes.ascii_spaces(other).tobytes() == other


@given(
    labels=st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=40, unique=True),
    picks=st.lists(st.integers(0, 10**6), min_size=1, max_size=300),
    strays=st.lists(st.integers(0, 2**64 - 1), max_size=5),
)
def test_label_ids_are_the_ranks_of_the_distinct_keys(labels, picks, strays):
    # Keys not in the first 4,096 (strays, placed last) are found afterwards. Either way:
    # sorted distinct keys, and each key's index among them.
    import numpy as np

    key = np.array([labels[i % len(labels)] for i in picks] * 15 + strays, dtype=np.uint64)
    uniq, ids = conll_bytes.unique_ids(key)
    assert uniq.tolist() == sorted(set(key.tolist()))
    assert (uniq[ids] == key).all()


def test_clean_and_general_layouts_give_the_same_columns(tmp_path):
    clean = "EU\tB-ORG\nrejects\tO\n\nParis\tB-LOC\n"
    messy = "EU\t\tB-ORG\t\nrejects\t O\n \nParis\t B-LOC \n"
    for text in (clean, messy):
        path = tmp_path / "f.conll"
        path.write_text(text)
        blocks = list(conll_blocks(path))
        assert [b.tokens(j) for b in blocks for j in range(len(b))] == [
            ("EU", "rejects"),
            ("Paris",),
        ]
        assert [int(line) for b in blocks for line in b.sent_line] == [1, 4]
        assert [b.labels[int(k)] for b in blocks for k in b.span_label] == ["ORG", "LOC"]


# -- pairs ------------------------------------------------------------------------------------


def write_pair(tmp_path, sentences, rng, scheme, *, newline="\n", sep="\t"):
    labels = ["PER", "LOC", "ORG"]
    gold_lines, pred_lines = [], []
    for tokens, tags in sentences:
        spans = decode(tags, scheme=scheme).spans
        pred = encode(perturb(spans, len(tokens), labels, rng), len(tokens), scheme=scheme)
        gold_lines += [f"{t}{sep}{g}" for t, g in zip(tokens, tags, strict=True)] + [""]
        pred_lines += [f"{t}{sep}{p}" for t, p in zip(tokens, pred, strict=True)] + [""]
    gold, pred = tmp_path / "gold.conll", tmp_path / "pred.conll"
    gold.write_bytes(newline.join(gold_lines).encode())
    pred.write_bytes(newline.join(pred_lines).encode())
    return gold, pred


def reference_result(gold, pred, *, unit, strategy, errors, align="text", **options):
    """``(result, gold info, predicted info)`` by the reference route, or the error."""
    gi, pi = SideInfo(str(gold), "conll"), SideInfo(str(pred), "conll")
    try:
        docs = documents(
            pair_records(
                read_conll(gold, **options),
                read_conll(pred, **options),
                gold_name=str(gold),
                pred_name=str(pred),
            ),
            unit=unit,
            gold_info=gi,
            pred_info=pi,
            align=align,
        )
        ev = SpanEvaluator(strategy=strategy, unit=unit, max_errors=errors)
        return ev.evaluate(docs).to_dict(), gi.to_dict(), pi.to_dict()
    except InvalidInputError as exc:
        return type(exc).__name__, str(exc)


def columnar_result(
    gold,
    pred,
    *,
    unit,
    strategy,
    errors,
    chunk_bytes=cc.CHUNK_BYTES,
    batch_sentences=cc.BATCH_SENTENCES,
    **options,
):
    gi, pi = SideInfo(str(gold), "conll"), SideInfo(str(pred), "conll")
    try:
        batches = conll_pair_batches(
            gold,
            pred,
            unit=unit,
            gold_info=gi,
            pred_info=pi,
            chunk_bytes=chunk_bytes,
            batch_sentences=batch_sentences,
            **options,
        )
        ev = SpanEvaluator(strategy=strategy, unit=unit, max_errors=errors)
        return sum(map(ev.tally_batch, batches)).result().to_dict(), gi.to_dict(), pi.to_dict()
    except InvalidInputError as exc:
        return type(exc).__name__, str(exc)


WORDS = ["the", "Zoë", "New", "York", "a", "said", "日本", "#"]


def tagged_sentence(rng, size: int, rate: float) -> tuple[list[str], list[str]]:
    """``size`` tokens from :data:`WORDS`, each tagged ``B-``/``I-`` of a label at ``rate``
    (so also ``I-`` tags that start no entity: what the repair policies are for)."""
    tokens = [rng.choice(WORDS) for _ in range(size)]
    tags = ["O"] * size
    for i in range(size):
        if rng.random() < rate:
            tags[i] = rng.choice(["B-", "I-"]) + rng.choice(["PER", "LOC", "ORG"])
    return tokens, tags


@st.composite
def pair_cases(draw):
    rng = random.Random(draw(st.integers(0, 10**6)))
    n = draw(st.integers(1, 12))
    sentences = [tagged_sentence(rng, draw(st.integers(1, 8)), 0.3) for _ in range(n)]
    edits = draw(
        st.lists(
            st.sampled_from(["token", "drop", "bad-tag", "malformed", "extra", "pred-bad-tag"]),
            max_size=2,
        )
    )
    return rng, sentences, edits


def apply_edit(path, edit, rng):
    lines = path.read_text(encoding="utf-8").split("\n")
    filled = [i for i, line in enumerate(lines) if line]
    if not filled and edit != "extra":
        return  # an earlier drop took the only line: nothing left to edit
    i = rng.choice(filled) if filled else None
    if edit in ("token", "bad-tag", "pred-bad-tag"):
        if "\t" not in lines[i]:
            return  # made malformed by an earlier edit
        token, tag = lines[i].split("\t")
        lines[i] = f"{token}X\t{tag}" if edit == "token" else f"{token}\tZ-PER"
    elif edit == "drop":
        lines = lines[:i] + lines[i + 1 :]
    elif edit == "malformed":
        lines[i] = lines[i].split("\t")[0]
    else:
        lines += ["extra\tO", ""]
    path.write_text("\n".join(lines), encoding="utf-8")


def test_edits_after_the_only_line_is_dropped_leave_the_file_as_it_is(tmp_path):
    # a one-token sentence: ``drop`` takes its line, then ``token`` has no line to change
    path = tmp_path / "pred.conll"
    path.write_text("the\tB-PER\n", encoding="utf-8")
    rng = random.Random(0)
    apply_edit(path, "drop", rng)
    assert path.read_text(encoding="utf-8") == ""
    for edit in ("token", "drop", "bad-tag", "malformed", "pred-bad-tag"):
        apply_edit(path, edit, rng)
        assert path.read_text(encoding="utf-8") == ""
    apply_edit(path, "extra", rng)
    assert path.read_text(encoding="utf-8") == "\nextra\tO\n"


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    case=pair_cases(),
    unit=st.sampled_from(["token", "char"]),
    strategy=st.sampled_from(["exact", "two_sided"]),
    chunk=st.sampled_from([16, 1 << 20]),
    batch=st.sampled_from([1, 3, 1 << 16]),
)
@example(
    case=(random.Random(0), [(["the"], ["B-PER"])], ["drop", "token"]),
    unit="token",
    strategy="exact",
    chunk=16,
    batch=1,
)
def test_pairs_score_and_fail_as_the_reference_route(tmp_path, case, unit, strategy, chunk, batch):
    rng, sentences, edits = case
    gold, pred = write_pair(tmp_path, sentences, rng, "IOB2")
    for edit in edits:
        apply_edit(gold if edit in ("bad-tag", "malformed") else pred, edit, rng)
    want = reference_result(gold, pred, unit=unit, strategy=strategy, errors=7)
    got = columnar_result(
        gold, pred, unit=unit, strategy=strategy, errors=7, chunk_bytes=chunk, batch_sentences=batch
    )
    if want[0] == "EmptyEvaluationError":
        assume(False)  # no spans at all: both raise, after reading everything
    assert got == want


def test_token_mismatch_deep_in_a_file_names_both_lines(tmp_path):
    rng = random.Random(4)
    sentences = [
        ([rng.choice(WORDS) for _ in range(5)], ["O"] * 4 + ["B-PER"]) for _ in range(3000)
    ]
    gold, pred = write_pair(tmp_path, sentences, rng, "IOB2")
    lines = pred.read_text(encoding="utf-8").split("\n")
    lines[6 * 2500 + 2] = "changed\tO"  # sentence 2501, token 3 (line 15003)
    pred.write_text("\n".join(lines), encoding="utf-8")
    got = columnar_result(gold, pred, unit="token", strategy="exact", errors=0, chunk_bytes=4096)
    assert got == reference_result(gold, pred, unit="token", strategy="exact", errors=0)
    assert got[0] == "DocumentMismatchError"
    assert got[1].startswith("document 'gold.conll:15001': gold and predicted")
    assert "at position 2" in got[1] and "!= 'changed'" in got[1]
    assert "gold.conll line 15001" in got[1] and "pred.conll line 15001" in got[1]


def test_char_unit_accepts_other_tokens_with_the_same_text(tmp_path):
    gold, pred = tmp_path / "g.conll", tmp_path / "p.conll"
    gold.write_text("New York\tB-LOC\nis\tO\n")
    pred.write_text("New\tB-LOC\nYork\tI-LOC\nis\tO\n")
    for unit in ("char", "token"):
        want = reference_result(gold, pred, unit=unit, strategy="exact", errors=3)
        assert columnar_result(gold, pred, unit=unit, strategy="exact", errors=3) == want
    assert (
        reference_result(gold, pred, unit="char", strategy="exact", errors=0)[0]["levels"][
            "labels"
        ][0]["micro"]["tp"]
        == 1
    )


def test_batches_hold_lazy_ids_and_tokens(tmp_path):
    gold, pred = write_pair(
        tmp_path, [(["a", "b"], ["B-PER", "O"]), (["c"], ["O"])], random.Random(1), "IOB2"
    )
    (batch,) = conll_pair_batches(gold, pred)
    assert list(batch.doc_ids) == ["gold.conll:1", "gold.conll:4"] == batch.doc_ids[0:2]
    assert batch.tokens[1] == ("c",) and batch.tokens[-2] == ("a", "b") and len(batch) == 2
    with pytest.raises(IndexError):
        batch.tokens[2]
    (chars,) = conll_pair_batches(gold, pred, unit="char")
    assert chars.texts[0] == "a b" and chars.lengths.tolist() == [3, 1]


@pytest.mark.parametrize("unit", ["token", "char"])
def test_spans_read_at_once_are_cut_from_their_documents(tmp_path, unit):
    # every span of every sentence, also char spans that start or end on a space
    sentences = [
        (["Zoë", "New", "日本"], ["B-PER", "O", "O"]),
        (["a"], ["O"]),
        (["é", "b"], ["O"] * 2),
    ]
    gold, pred = write_pair(tmp_path, sentences, random.Random(1), "IOB2")
    (batch,) = conll_pair_batches(gold, pred, unit=unit)
    docs = batch.texts if unit == "char" else batch.tokens
    spans = [
        (d, s, e)
        for d, n in enumerate(batch.lengths.tolist())
        for s in range(n)
        for e in range(s + 1, n + 1)
    ]
    want = [docs[d][s:e] if unit == "char" else " ".join(docs[d][s:e]) for d, s, e in spans]
    assert docs.span_texts(*(np.array(column) for column in zip(*spans, strict=True))) == want


# -- the shared corpora -------------------------------------------------------------------------

CORPORA = [
    ("btc", "btc.test", "IOB2"),
    ("btc", "btc.dev", "IOB2"),
    ("btc", "btc.train", "IOB2"),
    *(("btc", f"sections/{s}.conll", "IOB2") for s in "abefgh"),
    ("wikigold", "wikigold.conll.txt", "IOB1"),
    ("sec_filings", "FIN3.test.txt", "IOB1"),
    ("sec_filings", "FIN5.train.txt", "IOB1"),
    ("re3d", "conll_split_juand-r/re3d-test.conll", "IOB2"),
    ("re3d", "conll_split_juand-r/re3d-train.conll", "IOB2"),
]


@pytest.mark.slow  # every shared corpus: the random-file tests cover the local loop
@pytest.mark.parametrize("corpus,name,scheme", CORPORA)
def test_every_corpus_reads_as_the_reference_reads_it(corpus, name, scheme):
    path = data_path(corpus, *name.split("/"))
    for options in (
        {"scheme": scheme},
        {"scheme": "IOBES", "repair": "discard"},
        {"scheme": scheme, "repair": "error"},
    ):
        want = reference(path, **options)
        assert columnar(path, chunk_bytes=4096, **options) == want
        assert columnar(path, **options) == want
