"""brat folders at their edges, through the CLI: texts without annotations, linked folders,
line ends inside and around ``.ann`` lines, and ``T`` lines whose text is not the ``.txt``'s;
and the README's own brat-against-Prodigy example."""

from __future__ import annotations

import json
import os
import shlex
from collections import Counter
from pathlib import Path

import pytest

from spacy_span_eval.engine.spans import Span
from spacy_span_eval.errors import InvalidInputError
from spacy_span_eval.readers.brat import brat_fields
from spacy_span_eval.readers.options import ReadingOptions
from spacy_span_eval.readers.source import read_records

from conftest import cli

ROOT = Path(__file__).resolve().parents[2]


def _report(out: str) -> dict:
    return json.JSONDecoder().raw_decode(out[out.index("{") :])[0]


def _doc(folder: Path, name: str, text: str, ann: str | None, newline: str = "") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"{name}.txt", "w", encoding="utf-8", newline=newline) as fh:
        fh.write(text)
    if ann is not None:
        with open(folder / f"{name}.ann", "w", encoding="utf-8", newline="") as fh:
            fh.write(ann)


def _evaluate(gold: Path, pred: Path, *args) -> tuple[int, str]:
    return cli("evaluate", gold, pred, "-s", "exact", "--format", "json", *args)


def test_a_text_without_annotations_is_a_document_without_spans(tmp_path):
    gold, pred = tmp_path / "gold", tmp_path / "pred"
    for folder in (gold, pred):
        _doc(folder, "a", "Bob met Ann.", "T1\tPER 0 3\tBob\n")
    _doc(gold, "b", "Nothing here.", "")
    _doc(pred, "b", "Nothing here.", None)  # the system wrote no .ann for it
    _doc(pred, "c", "Only a text.", None)
    _doc(gold, "c", "Only a text.", "T1\tX 0 4\tOnly\n")
    code, out = _evaluate(gold, pred)
    assert code == 0, out
    report = _report(out)
    assert report["result"]["documents"] == 3
    predicted = report["inputs"]["predicted"]
    assert predicted["notes"] == {"texts without an .ann file (read without spans)": 2}
    per_label = report["result"]["levels"]["labels"][0]["per_label"]
    assert per_label["X"]["fn"] == 1 and per_label["PER"]["tp"] == 1


def test_an_ann_without_its_text_is_refused(tmp_path):
    gold = tmp_path / "gold"
    _doc(gold, "a", "Bob met Ann.", "T1\tPER 0 3\tBob\n")
    (gold / "b.ann").write_text("T1\tPER 0 3\tBob\n", encoding="utf-8")
    code, out = _evaluate(gold, gold)
    assert code == 2 and "b.ann" in out and "b.txt" in out


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")
def test_linked_folders_are_followed_once(tmp_path):
    outside = tmp_path / "outside"
    _doc(outside, "x", "Ann saw Bob.", "T1\tPER 0 3\tAnn\nT2\tPER 8 11\tBob\n")
    gold = tmp_path / "gold"
    _doc(gold, "a", "Bob met Ann.", "T1\tPER 0 3\tBob\n")
    (gold / "linked").symlink_to(outside, target_is_directory=True)
    (gold / "again").symlink_to(outside, target_is_directory=True)
    code, out = _evaluate(gold, gold)
    assert code == 0, out
    report = _report(out)
    assert report["result"]["documents"] == 2  # a, and the outside folder once
    assert report["inputs"]["gold"]["spans"] == 3
    assert report["inputs"]["gold"]["notes"] == {
        "folders reached twice through links (read once)": 1
    }


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")
def test_a_link_loop_is_refused(tmp_path):
    gold = tmp_path / "gold"
    _doc(gold / "sub", "a", "Bob met Ann.", "T1\tPER 0 3\tBob\n")
    (gold / "sub" / "up").symlink_to(gold, target_is_directory=True)
    code, out = _evaluate(gold, gold)
    assert code == 2
    assert "loop" in out and "up" in out


@pytest.mark.parametrize("odd", ["\u0085", "\u2028", "\u2029", "\x0b", "\x1c"])
def test_annotation_text_may_hold_any_character_but_a_line_end(tmp_path, odd):
    text = f"Ann{odd}Lee met Bob."
    gold = tmp_path / "gold"
    _doc(gold, "a", text, f"T1\tPER 0 7\t{text[:7]}\nT2\tPER 12 15\tBob\n")
    code, out = _evaluate(gold, gold)
    assert code == 0, out
    assert _report(out)["inputs"]["gold"]["spans"] == 2


def test_ann_lines_may_end_in_crlf(tmp_path):
    gold = tmp_path / "gold"
    _doc(gold, "a", "Bob met Ann.", "T1\tPER 0 3\tBob\r\nT2\tPER 8 11\tAnn\r\n")
    code, out = _evaluate(gold, gold)
    assert code == 0, out
    assert _report(out)["inputs"]["gold"]["spans"] == 2


def test_a_t_line_whose_text_is_not_the_txts_is_refused_naming_the_line(tmp_path):
    gold = tmp_path / "gold"
    _doc(gold, "a", "Bob met Ann.", "T1\tPER 0 3\tBob\nT2\tPER 7 10\tAnn\n")
    code, out = _evaluate(gold, gold)
    assert code == 2
    assert "a.ann line 2" in out and "'Ann'" in out and "' An'" in out
    assert "CRLF" not in out


@pytest.mark.parametrize(
    ("offsets", "written", "found"),
    [
        ("0 3", "Ben", "'Bob'"),  # from the text's first character
        ("8 12", "Ann", "'Ann.'"),  # to its last
        ("4 4", "met", "''"),  # an empty piece is checked too (not left to the empty-span error)
        ("0 3;4 4", "Bob met", "'Bob '"),
    ],
)
def test_a_t_line_at_the_texts_edges_is_checked_against_the_txt(tmp_path, offsets, written, found):
    gold = tmp_path / "gold"
    _doc(gold, "a", "Bob met Ann.", f"T1\tPER {offsets}\t{written}\n")
    code, out = _evaluate(gold, gold)
    assert code == 2
    assert (
        f"a.ann line 1: the annotation's text {written!r} is not the .txt's characters at "
        f"{offsets} ({found})"
    ) in out


def test_crlf_shifted_offsets_are_named_as_such(tmp_path):
    """Offsets counted on LF line ends, against a .txt written with CRLF."""
    text = "Line one.\nBob met Ann.\n"
    bob = text.index("Bob")
    gold = tmp_path / "gold"
    _doc(gold, "a", text, f"T1\tPER {bob} {bob + 3}\tBob\n", newline="\r\n")
    code, out = _evaluate(gold, gold)
    assert code == 2
    assert "a.ann line 1" in out and "CRLF-shifted" in out


def test_a_span_over_a_line_end_is_written_with_a_space(tmp_path):
    text = "New\nYork is big."
    gold = tmp_path / "gold"
    _doc(gold, "a", text, "T1\tLOC 0 8\tNew York\n")
    code, out = _evaluate(gold, gold)
    assert code == 0, out


def test_the_readme_brat_against_prodigy_example_runs(monkeypatch):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    line = next(
        x for x in readme.splitlines() if x.startswith("spacy-span-eval evaluate") and "brat" in x
    )
    args = shlex.split(line, comments=True)[1:]
    assert all((ROOT / a).exists() for a in args[1:]), args
    monkeypatch.chdir(ROOT)
    code, out = cli(*args)
    assert code == 0, out
    assert "texts differing from gold only in trailing whitespace 2" in out
    assert "LOC" in out and "PER" in out


# -- the reader itself: what it reads, counts and refuses, word for word ----------------------


def _read(folder: Path) -> tuple[list, dict]:
    notes: Counter = Counter()
    got = [(r.id, r.spans) for r in read_records(folder, "brat", ReadingOptions(), notes)]
    return got, dict(notes)


def test_a_t_line_may_leave_out_its_text_and_its_text_may_hold_tabs(tmp_path):
    # a blank line between annotations; relations, events and their triggers counted (the
    # trigger's id holding a colon); an E line without arguments is an event too
    _doc(
        tmp_path,
        "a",
        "Bob\tmet Ann.",
        "T1\tPER 0 3\nT2\tPER 0 7\tBob\tmet\n\nT:3\tMEET 4 7\tmet\nR1\tKnows A:T1 B:T2\n"
        "R2\tKnows A:T2 B:T1\nE1\tMEET:T:3 A:T1\nE2\tMEET:T:3\nE3\n"
        "T4\tMEET 4 7\tmet\nE4\tMEET:T4\n",
    )
    assert _read(tmp_path) == (
        [("a", (Span(0, 3, "PER"), Span(0, 7, "PER")))],
        {"relations ignored": 2, "events ignored": 4, "event triggers ignored": 2},
    )


def test_brat_fields_give_each_documents_folder_and_none_for_any_other_field(tmp_path):
    _doc(tmp_path / "sub", "a", "Bob", "T1\tPER 0 3\tBob\n")
    _doc(tmp_path, "b", "Ann", None)
    options = ReadingOptions()
    assert list(brat_fields(tmp_path, "folder", options)) == [("b", "."), ("sub/a", "sub")]
    assert list(brat_fields(tmp_path, "genre", options)) == [("b", None), ("sub/a", None)]


LONG = "x" * 70


@pytest.mark.parametrize(
    ("ann", "message"),
    [
        (f"X{LONG}\n", f"line 1: not a brat annotation line: {('X' + LONG)[:60]!r}"),
        (
            f"T1\tPER 0 3\tBob\nT2 {LONG}\n",
            "line 2: a T line needs an id, a label with offsets and the text, tab-separated: "
            f"{('T2 ' + LONG)[:60]!r}",
        ),
        ("T1\tPER 0\tBob\n", "line 1: offsets must be 'START END' pairs separated by ';', not '0'"),
        (
            "T1\tPER 0 3\tBen\n",
            "line 1: the annotation's text 'Ben' is not the .txt's characters at 0 3 ('Bob')",
        ),
    ],
)
def test_a_bad_ann_line_is_refused_word_for_word(tmp_path, ann, message):
    _doc(tmp_path, "a", "Bob met Ann.", ann)
    with pytest.raises(InvalidInputError) as exc:
        _read(tmp_path)
    assert str(exc.value) == f"{tmp_path / 'a.ann'} {message}"


@pytest.mark.parametrize(
    ("newline", "counted_on", "why"),
    [
        (
            "\r\n",
            "Line one.\nBob met Ann.\n",
            "; the offsets fit the text with its CRLF line ends counted as one character: "
            "they look CRLF-shifted (brat counts every character of the .txt as it is on "
            "disk: convert the .txt to LF line ends, or recount the offsets)",
        ),
        (
            "\n",
            "Line one.\r\nBob met Ann.\r\n",
            "; the offsets fit the text with CRLF line ends: they look CRLF-shifted (counted "
            "on a copy with CRLF line ends, while this .txt has LF)",
        ),
    ],
)
def test_offsets_counted_with_the_other_line_ends_are_refused_saying_so(
    tmp_path, newline, counted_on, why
):
    at = counted_on.index("Bob")
    _doc(tmp_path, "a", "Line one.\nBob met Ann.\n", f"T1\tPER {at} {at + 3}\tBob\n", newline)
    on_disk = (tmp_path / "a.txt").read_bytes().decode()
    with pytest.raises(InvalidInputError) as exc:
        _read(tmp_path)
    assert str(exc.value) == (
        f"{tmp_path / 'a.ann'} line 1: the annotation's text 'Bob' is not the .txt's "
        f"characters at {at} {at + 3} ({on_disk[at : at + 3]!r}){why}"
    )


def test_a_txt_that_is_not_utf8_is_refused_naming_it(tmp_path):
    _doc(tmp_path, "a", "Bob", "T1\tPER 0 3\tBob\n")
    (tmp_path / "a.txt").write_bytes(b"B\xffb")
    with pytest.raises(InvalidInputError) as exc:
        _read(tmp_path)
    assert str(exc.value) == f"{tmp_path / 'a.txt'}: not UTF-8 text (invalid start byte at byte 1)"


def test_each_text_is_a_record_located_by_its_ann_or_else_its_txt(tmp_path):
    _doc(tmp_path, "a", "Bob", "T1\tPER 0 3\tBob\n")
    _doc(tmp_path / "sub", "b", "Ann", None)
    got = [
        (r.where, r.key, r.id, r.spans)
        for r in read_records(tmp_path, "brat", ReadingOptions(), Counter())
    ]
    assert got == [
        (str(tmp_path / "a.ann"), "a", "a", (Span(0, 3, "PER"),)),
        (str(tmp_path / "sub" / "b.txt"), "sub/b", "sub/b", ()),
    ]


def test_a_file_given_as_brat_or_a_span_past_the_text_is_refused_word_for_word(tmp_path):
    _doc(tmp_path, "a", "Bob", "T1\tPER 0 9\tBob\n")
    with pytest.raises(InvalidInputError) as exc:
        list(read_records(tmp_path / "a.ann", "brat"))
    assert str(exc.value) == (
        f"{tmp_path / 'a.ann'}: brat standoff is a folder of .txt and .ann files, not a file"
    )
    with pytest.raises(InvalidInputError) as exc:
        list(read_records(tmp_path, "brat", ReadingOptions(side="predicted")))
    assert str(exc.value) == (
        f"{tmp_path / 'a.ann'}: document 'a', predicted span #0 (0, 9, 'PER'): end is past "
        "the end of the document (3)"
    )


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")
def test_a_link_loop_is_refused_word_for_word_and_a_dangling_text_link_left_alone(tmp_path):
    _doc(tmp_path / "sub", "a", "Bob", "T1\tPER 0 3\tBob\n")
    _doc(tmp_path, "a-1", "Ann", "T1\tPER 0 3\tAnn\n")
    (tmp_path / "c.txt").symlink_to(tmp_path / "nowhere.txt")  # not a file: not a document
    assert [doc_id for doc_id, _ in _read(tmp_path)[0]] == ["a-1", "sub/a"]
    _doc(tmp_path, "a", "Eve", None)  # ids in order: "a" before "a-1"
    assert [doc_id for doc_id, _ in _read(tmp_path)[0]] == ["a", "a-1", "sub/a"]
    (tmp_path / "sub" / "up").symlink_to(tmp_path, target_is_directory=True)
    with pytest.raises(InvalidInputError) as exc:
        _read(tmp_path)
    assert str(exc.value) == (
        f"{tmp_path / 'sub' / 'up'}: a link back to {os.path.realpath(tmp_path)}, a folder "
        "above it (a loop); brat folders follow links to folders, so remove or replace this one"
    )


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")
def test_brat_fields_read_a_folder_reached_twice_once(tmp_path):
    _doc(tmp_path / "sub", "a", "Bob", "T1\tPER 0 3\tBob\n")
    (tmp_path / "again").symlink_to(tmp_path / "sub", target_is_directory=True)
    assert list(brat_fields(tmp_path, "folder", ReadingOptions())) == [("again/a", "again")]
