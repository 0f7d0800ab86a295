"""Label names are data (semantics §4): labels called ``micro``, ``macro``, ``O`` or ``any entity``
get their own rows, cells and intervals in Python, JSON and HTML, apart from the aggregates
and from the confusion matrix's "no label" row and column."""

from __future__ import annotations

import csv
import json
import re

import pytest

from spacy_span_eval import Document, SpanEvaluator
from spacy_span_eval.api import compare_files, evaluate_files, report_files
from spacy_span_eval.engine.bootstrap import bootstrap_intervals
from spacy_span_eval.engine.confusion import NO_LABEL
from spacy_span_eval.engine.paired import paired_test

from conftest import cli, span_records

TEXT = "aaaa bbbb cccc dddd eeee"
N_DOCS = 6
# Per document: "micro" and "macro" found exactly, "O" missed, "any entity" predicted at the
# wrong place. So each of those labels has recall 1 or 0 while every aggregate has 0.5.
GOLD = [(0, 4, "micro"), (5, 9, "macro"), (10, 14, "O"), (15, 19, "any entity")]
PRED_A = [(0, 4, "micro"), (5, 9, "macro"), (20, 24, "any entity")]
# System B also misses "micro" in every document.
PRED_B = [(5, 9, "macro"), (20, 24, "any entity")]


def docs(pred=PRED_A) -> list[Document]:
    return [Document.create(id=f"d{i}", text=TEXT, gold=GOLD, pred=pred) for i in range(N_DOCS)]


def jsonl(path, pred) -> str:
    path.write_text(
        "".join(
            json.dumps(
                {
                    "id": f"d{i}",
                    "text": TEXT,
                    "spans": [{"start": s, "end": e, "label": label} for s, e, label in pred],
                }
            )
            + "\n"
            for i in range(N_DOCS)
        ),
        encoding="utf-8",
    )
    return str(path)


@pytest.fixture
def files(tmp_path):
    return (
        jsonl(tmp_path / "gold.jsonl", GOLD),
        jsonl(tmp_path / "a.jsonl", PRED_A),
        jsonl(tmp_path / "b.jsonl", PRED_B),
    )


def test_scores_keep_labels_apart_from_aggregates():
    run = SpanEvaluator(strategy="exact").evaluate(docs()).scores()
    assert {k: v.recall() for k, v in run.per_label.items()} == {
        "micro": 1.0,
        "macro": 1.0,
        "O": 0.0,
        "any entity": 0.0,
    }
    assert run.micro.recall() == 0.5 and run.macro["recall"] == 0.5
    assert run.entity_agnostic.recall() == 0.5


def test_a_label_called_O_has_its_own_confusion_row_and_column():
    run = SpanEvaluator(strategy="exact").evaluate(docs()).scores()
    assert NO_LABEL is None
    assert run.confusion == {
        ("micro", "micro"): N_DOCS,
        ("macro", "macro"): N_DOCS,
        ("O", None): N_DOCS,
        ("any entity", None): N_DOCS,
        (None, "any entity"): N_DOCS,
    }
    # The "O" row sums to its gold count, and its miss is not a hit.
    assert sum(n for (g, _), n in run.confusion.items() if g == "O") == N_DOCS
    assert ("O", "O") not in run.confusion


def test_a_prediction_of_label_O_is_a_hit_only_on_the_diagonal():
    doc = Document.create(
        id="x", text=TEXT, gold=[(0, 4, "O"), (5, 9, "O")], pred=[(0, 4, "O"), (10, 14, "O")]
    )
    run = SpanEvaluator(strategy="exact").evaluate([doc]).scores()
    assert run.confusion == {("O", "O"): 1, ("O", None): 1, (None, "O"): 1}


def test_json_keeps_the_no_label_sentinel_and_the_labels(tmp_path, files):
    report = evaluate_files(
        files[0], files[1], strategy="exact", output_format="json", output=tmp_path / "r.json"
    )
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["result"] == json.loads(json.dumps(report.result.to_dict()))  # full precision
    (run,) = data["result"]["levels"]["labels"]
    assert run["per_label"]["micro"]["recall"] == 1.0 and run["micro"]["recall"] == 0.5
    assert run["per_label"]["macro"]["recall"] == 1.0 and run["macro"]["recall"] == 0.5
    assert run["per_label"]["any entity"]["recall"] == 0.0
    assert run["entity_agnostic"]["recall"] == 0.5
    cells = {(c["gold"], c["predicted"]): c["count"] for c in run["confusion"]}
    assert cells[("O", None)] == N_DOCS and ("O", "O") not in cells
    assert cells[(None, "any entity")] == N_DOCS
    # Sorted by gold then predicted label, the "no label" row last.
    assert [c["gold"] for c in run["confusion"]][-1] is None


def test_text_table_has_a_row_for_the_label_and_one_for_the_aggregate(files, capsys):
    evaluate_files(files[0], files[1], strategy="exact", silent=False)
    rows = [ln.split() for ln in capsys.readouterr().out.splitlines() if ln.startswith("micro ")]
    assert [r[-2] for r in rows] == ["1.0000", "0.5000"]  # recall: the label, then micro


def test_bootstrap_intervals_of_a_label_called_micro_are_its_own():
    result = SpanEvaluator(strategy="exact", per_document=True).evaluate(docs())
    bi = bootstrap_intervals(result, resamples=50, seed=1)
    assert bi.labels == ["O", "any entity", "macro", "micro"]
    assert bi.per_label["micro"]["recall"].estimate == 1.0
    assert bi.per_label["macro"]["recall"].estimate == 1.0
    assert bi.micro["recall"].estimate == 0.5 and bi.macro["recall"].estimate == 0.5
    data = bi.to_dict()
    assert data["per_label"]["micro"]["recall"]["estimate"] == 1.0
    assert data["micro"]["recall"]["estimate"] == 0.5


def test_paired_test_keeps_labels_micro_and_macro():
    a = SpanEvaluator(strategy="exact", per_document=True).evaluate(docs(PRED_A))
    b = SpanEvaluator(strategy="exact", per_document=True).evaluate(docs(PRED_B))
    test = paired_test(a, b, resamples=50, seed=1)
    assert set(test.per_label) == {"micro", "macro", "O", "any entity"}
    assert test.per_label["micro"].difference == 1.0  # F 1 vs F 0
    assert test.per_label["macro"].difference == 0.0
    assert test.micro.difference == pytest.approx(4 / 7 - 1 / 3)  # F: P 2/3, R 1/2 vs P 1/2, R 1/4
    names = [(name, pooled) for name, _, pooled in test.named_rows()]
    assert names[-2:] == [("micro", True), ("macro", True)]
    assert ("micro", False) in names and ("macro", False) in names
    data = test.to_dict()
    assert set(data["per_label"]) == {"micro", "macro", "O", "any entity"}
    assert data["micro"]["difference"] == pytest.approx(4 / 7 - 1 / 3)


def test_compare_json_lists_labels_called_micro_and_macro(files, tmp_path):
    out = tmp_path / "c.json"
    compare_files(*files, strategy="exact", resamples=20, output_format="json", output=out)
    data = json.loads(out.read_text())
    assert set(data["comparison"]["per_label"]) == {"micro", "macro", "O", "any entity"}
    assert data["comparison"]["per_label"]["micro"]["difference"] == 1.0
    assert data["comparison"]["micro"]["difference"] == pytest.approx(4 / 7 - 1 / 3)


def _rows(html: str, name: str) -> list[tuple[str, str]]:
    """``(class, row html)`` of every table row whose first cell is ``name``."""
    return re.findall(
        rf'<tr class="([^"]*)"><td>{re.escape(name)}</td>(.*?)</tr>', html, flags=re.S
    )


def test_html_report_shows_each_label_with_its_own_interval(files):
    page = report_files(files[0], files[1], strategy="exact", resamples=50, seed=1)
    bi = page.intervals[0]
    label, pooled = bi.per_label["micro"]["recall"], bi.micro["recall"]
    assert label.estimate == 1.0 and pooled.estimate == 0.5
    # Each interval covers its own figure's (Wilson-widened: 6 and 24 gold spans).
    assert label.high == 1.0 and pooled.high < 1.0 and label.low > pooled.low
    rows = dict(_rows(page.html, "micro"))
    assert set(rows) == {"", "pooled"}

    def ci(interval) -> str:
        return f'<span class="ci">{interval.low:.3f}–{interval.high:.3f}'

    assert ci(label) in rows[""] and ci(pooled) in rows["pooled"]
    assert ci(label) not in rows["pooled"] and ci(pooled) not in rows[""]
    # The heatmap: a row and a column for the label "O", and a separate "no label" pair.
    heatmap = page.html[page.html.index('<section id="confusion">') :]
    assert "gold O → predicted (no label): 6" in heatmap
    assert "gold (no label) → predicted any entity: 6" in heatmap
    assert "gold O → predicted O: 0" in heatmap


def test_html_curves_have_a_chart_for_the_label_micro(files):
    page = report_files(files[0], files[1], resamples=0)
    curve = page.runs[0].curve()
    assert curve["per_label"]["micro"]["recall"][0] == 1.0
    assert curve["micro"]["recall"][0] == 0.5
    assert page.html.count('class="chart line-chart"') == 1 + 4  # micro + each label


def test_html_comparison_has_rows_for_labels_and_aggregates(files):
    from spacy_span_eval.render.comparison import render_comparison

    comparison = compare_files(*files, strategy="exact", resamples=20)
    html = render_comparison(comparison, "html")
    section = html[html.index('<section id="comparison">') :]
    # A row per figure (P, R, F); the first names the label or aggregate, and "pooled"
    # marks the aggregates.
    rows = {"pooled" in cls.split(): row for cls, row in _figure_rows(section, "micro", "F1")}
    assert set(rows) == {False, True}
    assert "+1.0000" in rows[False] and "+1.0000" not in rows[True]
    assert {"pooled" in cls.split() for cls, _ in _rows(section, "macro")} == {False, True}


def _figure_rows(html: str, name: str, figure: str) -> list[tuple[str, str]]:
    """``(class, row html)`` of the ``figure`` row of each comparison row named ``name``."""
    rows = re.findall(
        r'<tr class="([^"]*)"><td>([^<]*)</td><td>[^<]*</td><td>([^<]*)</td>'
        r"(.*?)</tr>",
        html,
        flags=re.S,
    )
    out, current = [], None
    for cls, first, fig, body in rows:
        if first:
            current = (first, cls)
        if current is not None and current[0] == name and fig == figure:
            out.append((current[1], body))
    return out


# -- hostile names: a spreadsheet formula, a terminal's escape sequence -----------------------
FORMULA_ID = '=HYPERLINK("http://x","y")'
ESCAPE = "\x1b]0;pwned\x07"  # retitles the terminal (OSC 0), then rings its bell
HOSTILE_IDS = (FORMULA_ID, "-2+3", "\t=1+1", "@SUM(A1)", "'quoted", "plain")
HOSTILE_LABELS = ("+CMD", ESCAPE, "-neg", "\r=cr", "PER")


@pytest.fixture
def hostile(tmp_path):
    """Gold with every hostile label; predictions with a label gold never has (a hint on
    stderr names it)."""
    gold = [(0, 4, "+CMD"), (5, 9, ESCAPE), (10, 14, "-neg"), (15, 19, "\r=cr"), (20, 24, "PER")]
    pred = [(0, 4, "+CMD"), (5, 9, "-neg"), (20, 24, ESCAPE + "X")]
    paths = []
    for name, spans in (("gold.jsonl", gold), ("pred.jsonl", pred)):
        rows = [(doc_id, TEXT, spans) for doc_id in HOSTILE_IDS]
        (tmp_path / name).write_text(span_records(rows), encoding="utf-8")
        paths.append(tmp_path / name)
    return paths


@pytest.mark.parametrize(
    "cell,written",
    [
        (FORMULA_ID, "'" + FORMULA_ID),
        ("+CMD", "'+CMD"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\t=1+1", "'\t=1+1"),
        ("\r=cr", "'\r=cr"),
        ("'quoted", "''quoted"),  # (so taking one quote off gives every cell back)
        ("plain", "plain"),
        ("", ""),
    ],
)
def test_csv_text_cells_never_start_a_formula(hostile, tmp_path, cell, written):
    target = tmp_path / "docs.csv"
    evaluate_files(*hostile, per_document=target, strategy="exact")
    with target.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    cells = {row["document"] for row in rows} | {row["label"] for row in rows}
    assert not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
    assert written in cells
    assert cell == "" or cell not in cells or cell == written
    for row in rows:  # numbers stay numbers
        assert all(row[k] == "" or float(row[k]) == float(row[k]) for k in ("tp", "fn", "f"))


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_control_characters_are_escaped_in_tables_and_messages(hostile, fmt):
    code, out = cli("evaluate", *hostile, "--format", fmt, "--errors", "20")
    assert code == 0
    assert "\x1b" not in out and "\x07" not in out
    assert "\\x1b]0;pwned\\x07" in out  # the table's row
    assert "\\x1b]0;pwned\\x07X" in out  # the hint on stderr
    assert "\\t=1+1" in out and "\\r=cr" in out  # a document and a label of error records
