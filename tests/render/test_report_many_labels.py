"""A page of many labels stays linear in their number: the heatmap and the curves show the
labels with most support (the others pooled in one row and column, or left to the summary
table), while the summary and error-kind tables keep every label."""

from __future__ import annotations

import re

from spacy_span_eval import Document
from spacy_span_eval.jobs.system_run import run_system
from spacy_span_eval.render.html import render_page
from spacy_span_eval.render.html.charts import CURVE_LABELS
from spacy_span_eval.render.html.page import MATRIX_LABELS


def docs(n_labels: int) -> list[Document]:
    out = []
    for i in range(n_labels):
        label = f"L{i:03d}"
        text = "alpha beta gamma"
        gold = [(0, 5, label)] * 1 + ([(6, 10, label)] if i < 5 else [])
        pred = [(0, 5, label if i % 4 else "L000"), (11, 16, label)]
        out.append(Document.create(id=f"d{i}", text=text, gold=gold, pred=pred))
    return out


def test_heatmap_and_curves_show_the_labels_with_most_support():
    run = run_system(docs(70), name="many", errors=10)
    html = render_page([run])
    n = MATRIX_LABELS + 2  # the shown labels, the pooled others, no label
    assert html.count('<g class="cell">') == n * n
    assert f"({70 - MATRIX_LABELS:,} other labels)" in html
    assert html.count('class="chart line-chart"') == 1 + CURVE_LABELS
    # The five labels with two gold spans are among those drawn.
    curves = html.split('<section id="curves">')[1].split("</section>")[0]
    assert all(f">L00{i}<" in curves for i in range(5))
    assert "the other 40 are in the summary table" in curves
    # Every label keeps its row in the summary and in the error-kind table.
    assert html.count('<tr class="" data-label="L0') == 70
    rows = re.findall(r"<tbody>(.*?)</tbody>", html, re.S)[0]
    assert rows.count("<tr") == 70 + 3


def test_the_pooled_row_keeps_the_row_totals():
    run = run_system(docs(70), name="many", errors=10)
    from spacy_span_eval.render.html.page import _matrix

    axis, cells = _matrix(run.main.per_label, run.main.confusion)
    assert len(axis) == MATRIX_LABELS + 2
    for label in axis[:-1]:
        assert label is not None
    assert sum(cells.values()) == sum(run.main.confusion.values())
