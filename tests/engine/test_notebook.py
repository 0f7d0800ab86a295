"""A result in a notebook and as data: the compact HTML view, the tidy data
frame, and ``evaluate --per-document`` in JSONL and CSV.

The corpus is two documents small enough to count by hand (two_sided, IoU 0.3 and 0.5):

- ``a`` "Ana Berg met Bram in Oslo": gold PER "Ana Berg" [0, 8), PER "Bram" [13, 17), LOC "Oslo"
  [21, 25); predicted PER "Ana" [0, 3) (IoU 3/8 = 0.375: a TP at 0.3, an FN and an FP at 0.5)
  and PER "Bram" (exact). LOC is never predicted: its precision is undefined.
- ``b`` "Oslo": no gold; predicted LOC "Oslo": an FP, recall undefined.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys

import pytest
import srsly
from typer.testing import CliRunner

from spacy_span_eval import Document, Span, SpanEvaluator, evaluate_files
from spacy_span_eval.cli import app
from spacy_span_eval.engine.ledger import FIELD_NAMES as FIELDS

TEXT = "Ana Berg met Bram in Oslo"
GOLD = [
    {
        "id": "a",
        "text": TEXT,
        "spans": [
            {"start": 0, "end": 8, "label": "PER"},
            {"start": 13, "end": 17, "label": "PER"},
            {"start": 21, "end": 25, "label": "LOC"},
        ],
    },
    {"id": "b", "text": "Oslo", "spans": []},
]
PRED = [
    {
        "id": "a",
        "text": TEXT,
        "spans": [{"start": 0, "end": 3, "label": "PER"}, {"start": 13, "end": 17, "label": "PER"}],
    },
    {"id": "b", "text": "Oslo", "spans": [{"start": 0, "end": 4, "label": "LOC"}]},
]


def documents() -> list[Document]:
    return [
        Document.create(
            id=g["id"],
            text=g["text"],
            gold=[Span(s["start"], s["end"], s["label"]) for s in g["spans"]],
            pred=[Span(s["start"], s["end"], s["label"]) for s in p["spans"]],
        )
        for g, p in zip(GOLD, PRED, strict=True)
    ]


@pytest.fixture(scope="module")
def result():
    return SpanEvaluator(thresholds=(0.3, 0.5), per_document=True).evaluate(documents())


def test_to_frame_is_tidy_long_form(result):
    df = result.to_frame()
    assert list(df.columns) == [
        "level",
        "threshold",
        "row",
        "label",
        "num_annotated",
        "num_predicted",
        "tp",
        "fn",
        "credited",
        "fp",
        "precision",
        "recall",
        "f",
    ]
    # per threshold: LOC, PER, micro, macro, weighted, entity_agnostic
    assert len(df) == 2 * (2 + 4)
    per = df[(df.row == "label") & (df.label == "PER")].set_index("threshold")
    assert per.loc[0.3, ["tp", "fn", "credited", "fp"]].tolist() == [2, 0, 2, 0]
    assert per.loc[0.5, ["tp", "fn", "credited", "fp"]].tolist() == [1, 1, 1, 1]
    assert per.loc[0.5, "f"] == pytest.approx(0.5)
    loc = df[(df.row == "label") & (df.label == "LOC") & (df.threshold == 0.5)].iloc[0]
    assert loc.num_annotated == 1 and loc.num_predicted == 1  # b's prediction
    assert loc.precision == 0.0 and loc.recall == 0.0
    micro = df[(df.row == "micro") & (df.threshold == 0.5)].iloc[0]
    assert (micro.num_annotated, micro.num_predicted, micro.tp, micro.credited) == (3, 3, 1, 1)
    assert micro.recall == pytest.approx(1 / 3)
    # sorting and grouping work as on any frame
    worst = df[df.row == "label"].sort_values("f").iloc[0]
    assert worst.label == "LOC"


def test_to_frame_sweep_has_a_row_per_point_of_the_sweep():
    gold = [(0, 3, "P"), (8, 10, "P"), (14, 18, "L")]
    pred = [
        Span(0, 3, "P", 0.9),
        Span(4, 7, "P", 0.8),
        Span(8, 10, "P", 0.4),
        Span(14, 18, "L", 0.8),
    ]
    doc = Document.create(id="d", length=20, gold=gold, pred=pred)
    result = SpanEvaluator(sweep=True, thresholds=(0.5, 1.0)).evaluate([doc])
    df = result.to_frame(sweep=True)
    assert list(df.columns[:4]) == ["threshold", "row", "label", "score"]
    assert list(df.columns[4:]) == [*FIELDS, "precision", "recall", "f"]
    # per IoU threshold: L at 0.8; P at 0.9, 0.8, 0.4; micro at 0.9, 0.8, 0.4
    assert len(df) == 2 * (1 + 3 + 3)
    p = df[(df.threshold == 1.0) & (df.label == "P")]
    assert p.score.tolist() == [0.9, 0.8, 0.4]
    assert p[["tp", "num_predicted", "fp"]].values.tolist() == [[1, 1, 0], [1, 2, 1], [2, 3, 1]]
    assert p.precision.tolist() == pytest.approx([1, 1 / 2, 2 / 3])
    micro = df[(df.threshold == 0.5) & (df.row == "micro")]
    assert micro.label.isna().all() and micro.tp.tolist() == [1, 2, 3]
    with pytest.raises(ValueError, match="sweep=True"):
        SpanEvaluator().evaluate([doc]).to_frame(sweep=True)


def test_the_frame_has_the_macro_and_weighted_rows_the_notebook_table_shows(result):
    # at 0.5: LOC P = R = F = 0 (1 gold), PER P = R = F = 1/2 (2 gold)
    pd = pytest.importorskip("pandas")
    df = result.to_frame()
    half = df[df.threshold == 0.5]
    assert half.row.tolist() == ["label", "label", "micro", "macro", "weighted", "entity_agnostic"]
    macro = half[half.row == "macro"].iloc[0]
    weighted = half[half.row == "weighted"].iloc[0]
    assert (macro.precision, macro.recall, macro.f) == pytest.approx((0.25, 0.25, 0.25))
    assert (weighted.precision, weighted.recall, weighted.f) == pytest.approx((1 / 3,) * 3)
    assert pd.isna(macro.label) and macro.tp is pd.NA  # an average has no ledger
    assert half[half.row == "micro"].iloc[0].tp == 1  # the counts stay integers


def test_evaluate_files_with_per_document_true_keeps_the_rows_and_writes_nothing(files):
    pytest.importorskip("pandas")
    before = sorted(files.iterdir())
    report = evaluate_files(
        files / "gold.jsonl", files / "pred.jsonl", thresholds=(0.3, 0.5), per_document=True
    )
    assert sorted(files.iterdir()) == before
    whole = report.to_frame(per_document=True).query("row == 'document' and threshold == 0.5")
    assert whole.errors.tolist() == [3, 1]


def test_the_per_document_frame_sorts_documents_by_errors(result):
    df = result.to_frame(per_document=True)
    whole = df[df.row == "document"]
    at_half = whole[whole.threshold == 0.5].sort_values("errors", ascending=False)
    assert at_half.document.tolist() == ["a", "b"]
    assert at_half.errors.tolist() == [3, 1]  # a: FN Ana Berg, FN Oslo, FP Ana; b: FP Oslo
    a_loc = df[(df.document == "a") & (df.label == "LOC") & (df.threshold == 0.5)].iloc[0]
    assert a_loc.num_predicted == 0 and a_loc.precision != a_loc.precision  # undefined: NaN
    b = whole[(whole.document == "b") & (whole.threshold == 0.3)].iloc[0]
    assert b.recall != b.recall and b.precision == 0.0 and b.f == 0.0


def test_a_missing_pandas_is_a_clear_import_error_naming_the_extra(result, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now raises ImportError
    with pytest.raises(ImportError, match=r'pip install -e "\.\[pandas\]" in the clone'):
        result.to_frame()
    assert result.rows()[0]["label"] == "LOC"  # the rows themselves need no pandas


def test_without_per_document_counts_the_document_rows_say_how_to_get_them():
    plain = SpanEvaluator().evaluate(documents())
    with pytest.raises(ValueError, match="per_document=True"):
        plain.document_rows()


def test_importing_the_engine_loads_neither_pandas_nor_jinja():
    code = (
        "import sys, spacy_span_eval, spacy_span_eval.engine.result; "
        "print(sorted(m for m in ('pandas', 'jinja2') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_repr_html_is_a_compact_per_label_table(result):
    page = result._repr_html_()
    assert page.count("<table>") == 2  # one per threshold
    assert "two_sided, IoU ≥ 0.3" in page and "two_sided, IoU ≥ 0.5" in page
    rows = [r for r in page.split("<tr>") if r.startswith("<td")]
    loc_half = [r for r in rows if ">LOC<" in r][1]
    cells = [c.split("<")[0] for c in loc_half.split("<td>")[1:]]
    assert cells == ["1", "1", "0", "1", "0", "1", "0.0000", "0.0000", "0.0000"]
    assert "<b>micro</b>" in page


def test_repr_html_escapes_labels_and_shows_undefined_as_a_dash():
    doc = Document.create(id="x", text="abc def", gold=[Span(0, 3, "<b>&")], pred=[])
    page = SpanEvaluator().evaluate([doc])._repr_html_()
    assert "&lt;b&gt;&amp;" in page and "<b>&" not in page
    row = next(r for r in page.split("<tr>") if "&lt;b&gt;" in r)
    assert "<td>-</td>" in row  # precision undefined: nothing predicted


@pytest.fixture
def files(tmp_path):
    srsly.write_jsonl(tmp_path / "gold.jsonl", GOLD)
    srsly.write_jsonl(tmp_path / "pred.jsonl", PRED)
    return tmp_path


def evaluate(files, *args):
    return CliRunner().invoke(
        app,
        [
            "evaluate",
            str(files / "gold.jsonl"),
            str(files / "pred.jsonl"),
            "-t",
            "0.3",
            "-t",
            "0.5",
            *args,
        ],
    )


def test_per_document_jsonl_has_each_documents_ledgers(files):
    out = files / "docs.jsonl"
    run = evaluate(files, "--per-document", str(out), "--silent")
    assert run.exit_code == 0, run.output
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["document"], r["threshold"]) for r in lines] == [
        ("a", 0.3),
        ("a", 0.5),
        ("b", 0.3),
        ("b", 0.5),
    ]
    a_half = lines[1]
    assert (a_half["tp"], a_half["fn"], a_half["credited"], a_half["fp"], a_half["errors"]) == (
        1,
        2,
        1,
        1,
        3,
    )
    assert a_half["per_label"]["LOC"]["precision"] is None
    assert a_half["per_label"]["PER"]["f"] == pytest.approx(0.5)
    assert lines[2]["recall"] is None and lines[2]["per_label"]["LOC"]["fp"] == 1


def test_per_document_csv_is_flat_and_sortable(files):
    out = files / "docs.csv"
    run = evaluate(files, "--per-document", str(out), "--silent")
    assert run.exit_code == 0, run.output
    rows = list(csv.DictReader(out.read_text().splitlines()))
    whole = [r for r in rows if r["row"] == "document" and r["threshold"] == "0.5"]
    ranked = sorted(whole, key=lambda r: -int(r["errors"]))
    assert [(r["document"], r["errors"]) for r in ranked] == [("a", "3"), ("b", "1")]
    loc = next(r for r in rows if r["document"] == "a" and r["label"] == "LOC")
    assert loc["precision"] == "" and loc["recall"] == "0.0"


def test_per_document_takes_only_jsonl_or_csv(files):
    run = evaluate(files, "--per-document", str(files / "docs.txt"))
    assert run.exit_code == 2
    assert "JSON Lines (.jsonl, .ndjson) or CSV (.csv)" in run.output
    assert not (files / "docs.txt").exists()


def test_repr_html_has_the_rows_of_the_text_table_notes_and_separators():
    text = "Ada " * 600
    gold = [Span(4 * i, 4 * i + 3, "PER") for i in range(600)]
    doc = Document.create(id="one", text=text, gold=gold, pred=gold[:-1])
    page = SpanEvaluator(thresholds=(0.5,)).evaluate([doc])._repr_html_()
    names = [r.split("</td>")[0] for r in page.split('<td style="text-align:left">')[1:]]
    assert names == [
        "PER",
        "<b>micro</b>",
        "<b>macro</b>",
        "<b>weighted</b>",
        "<b>any entity</b>",
    ]
    assert "<td>600</td>" in page and "<td>599</td>" in page  # under a thousand: no comma
    assert "1 document ·" in page and "1 documents" not in page
    assert "notes:" not in page  # (nothing unaligned, nothing collapsed)


def test_repr_html_counts_have_thousands_separators():
    text = "Ada " * 1500
    gold = [Span(4 * i, 4 * i + 3, "PER") for i in range(1500)]
    docs = [Document.create(id=f"d{i}", text=text, gold=gold, pred=gold) for i in range(2)]
    page = SpanEvaluator(thresholds=(0.5,)).evaluate(docs)._repr_html_()
    assert "<td>3,000</td>" in page and "2 documents ·" in page


def test_a_reports_notebook_view_names_what_each_reader_read(files):
    from spacy_span_eval.api import evaluate_files

    report = evaluate_files(files / "gold.jsonl", files / "pred.jsonl")
    page = report._repr_html_()
    assert "<b>any entity</b>" in page
    assert "<li>gold: " in page and "gold.jsonl (jsonl, 3 spans)" in page
    assert "<li>pred: " in page or "<li>predicted: " in page


def test_a_sliced_reports_frame_has_the_json_slice_tables_as_rows(files):
    """``slice`` is missing on the whole corpus's rows and holds the value on each slice's
    label and micro rows, which equal the JSON tables figure by figure."""
    pd = pytest.importorskip("pandas")
    srsly.write_jsonl(files / "gold.jsonl", [{**g, "src": g["id"]} for g in GOLD])
    report = evaluate_files(
        files / "gold.jsonl", files / "pred.jsonl", thresholds=(0.3, 0.5), slice_by=["src"]
    )
    df = report.to_frame()
    whole = df[df["slice"].isna()].drop(columns=["slice_by", "slice"]).reset_index(drop=True)
    assert whole.equals(report.result.to_frame())
    sliced = df[df["slice"].notna()]
    expected = [
        (run["threshold"], s["slice"], label, ledger)
        for run in report.to_dict()["slices"]["src"]
        for s in run["slices"]
        for label, ledger in [*s["per_label"].items(), (None, s["micro"])]
    ]
    assert len(sliced) == len(expected) == 2 * 2 * 3  # thresholds x slices x (PER, LOC, micro)
    for (_, row), (tau, name, label, ledger) in zip(sliced.iterrows(), expected, strict=True):
        assert (row.level, row.slice_by, row.threshold, row["slice"]) == (
            "labels",
            "src",
            tau,
            name,
        )
        assert row.row == ("micro" if label is None else "label")
        assert (row.label == label) if label else pd.isna(row.label)
        for key, value in ledger.items():
            assert (row[key] == value) if value is not None else pd.isna(row[key])
    b = sliced[(sliced["slice"] == "b") & (sliced.threshold == 0.5)].set_index("row")
    assert b.loc["micro", "fp"] == 1 and pd.isna(b.loc["micro", "recall"])  # hand-worked
