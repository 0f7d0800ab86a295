"""The report as a user sees it in a real browser (headless Chromium): the summary of a corpus
with six-digit supports and thirty labels fits a 1280 px window with every interval strip's
dot visible; on a 390 px phone as on a 1280 px screen nothing widens the page, no word breaks
across lines, chart tick labels are inside their chart and a framed label shows its
underscores; and every count of the error-kind table equals the JSON ledgers.

Needs Debian's ``chromium`` (``CHROMIUM`` overrides the path): skipped when missing, except
under ``CI=true``.
"""

from __future__ import annotations

import json
import os
import random
from dataclasses import replace
from pathlib import Path

import attrs
import pytest
from disagreement_corpus import write_files

from spacy_span_eval import Document, Span
from spacy_span_eval.api import compare_files
from spacy_span_eval.engine.bootstrap import bootstrap_intervals
from spacy_span_eval.engine.gates import Floor, Floors, check_gate
from spacy_span_eval.engine.ledger import Ledger
from spacy_span_eval.engine.slices import slice_tables
from spacy_span_eval.jobs.system_run import SystemRun, run_system
from spacy_span_eval.render.comparison import render_comparison
from spacy_span_eval.render.html import render_page

from cdp import Browser
from conftest import skip_or_fail

pytestmark = pytest.mark.slow
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SCALE = 5000  # every count times this: six-digit label supports, a seven-digit micro


@pytest.fixture
def browser(tmp_path):
    if not Path(CHROMIUM).exists():
        skip_or_fail(f"headless Chromium not found at {CHROMIUM} (set CHROMIUM to its path)")
    profile = tmp_path / "profile"
    profile.mkdir()
    b = Browser(CHROMIUM, profile, width=1280, height=900)
    yield b
    b.close()


def thirty_label_docs(n_labels: int = 30, n_docs: int = 300) -> list[Document]:
    """Twelve-word documents, a span on every third word, labels of growing length; the
    predictions (scored) find, relabel, shift or drop each."""
    rng = random.Random(5)
    labels = [f"LABEL_{i:02d}" + "_X" * (i % 7) for i in range(n_labels)]
    docs = []
    for d in range(n_docs):
        words = [f"w{rng.randrange(50)}" for _ in range(12)]
        text = " ".join(words)
        starts = [sum(len(w) + 1 for w in words[:i]) for i in range(len(words))]
        gold, pred = [], []
        for i in range(0, 12, 3):
            s, e = starts[i], starts[i] + len(words[i])
            label = rng.choice(labels)
            gold.append((s, e, label))
            r = rng.random()
            score = (d * 7 + i) % 20 / 20 + 0.025
            if r < 0.7:
                pred.append(Span(s, e, label, score))
            elif r < 0.8:
                pred.append(Span(s, e, rng.choice(labels), score))
            elif r < 0.9:
                pred.append(Span(s, e - 1, label, score))  # words are at least two characters
        docs.append(Document.create(id=f"d{d}", text=text, gold=gold, pred=pred))
    return docs


def scaled(run: SystemRun, scale: int) -> SystemRun:
    """The run with every ledger count times ``scale`` (the page shows what a corpus that
    size would)."""

    def big(ledger: Ledger) -> Ledger:
        return Ledger.from_row([scale * n for n in ledger.to_row()])

    levels = {
        name: tuple(
            attrs.evolve(
                ts,
                per_label={k: big(v) for k, v in ts.per_label.items()},
                entity_agnostic=big(ts.entity_agnostic),
                confusion={k: scale * n for k, n in ts.confusion.items()},
                boundary={k: scale * n for k, n in ts.boundary.items()},
            )
            for ts in runs
        )
        for name, runs in run.result.levels.items()
    }
    result = replace(run.result, levels=levels, n_documents=run.result.n_documents * scale)
    return replace(run, result=result)


SUMMARY = """(function () {
  var wrap = document.querySelector("#summary .table-wrap");
  var card = document.querySelector("#summary");
  var box = wrap.getBoundingClientRect();
  var dots = Array.prototype.map.call(document.querySelectorAll("#summary svg.strip circle"),
    function (c) { var r = c.getBoundingClientRect();
      return r.width > 0 && r.left >= box.left && r.right <= box.right; });
  return {wrap: [wrap.scrollWidth, wrap.clientWidth], card: [card.scrollWidth, card.clientWidth],
          page: [document.documentElement.scrollWidth, document.documentElement.clientWidth],
          rows: document.querySelectorAll("#summary table.per-label tbody tr").length,
          strips: document.querySelectorAll("#summary svg.strip").length, dots: dots,
          support: document.querySelector("#summary table.per-label tbody tr td:nth-child(2)")
            .textContent};
})()"""


def test_summary_of_six_digit_supports_and_thirty_labels_fits_1280px(browser, tmp_path):
    small = run_system(thirty_label_docs(), name="thirty labels", errors=100)
    intervals = bootstrap_intervals(small.result, threshold=0.5, resamples=100, seed=0)
    support = {
        k: {
            f: replace(i, support=i.support * SCALE if i.support else i.support)
            for f, i in r.items()
        }
        for k, r in intervals.per_label.items()
    }
    micro = {
        f: replace(i, support=i.support * SCALE if i.support else i.support)
        for f, i in intervals.micro.items()
    }
    intervals = replace(intervals, per_label=support, micro=micro)
    run = scaled(small, SCALE)
    assert len(run.main.per_label) == 30
    assert min(ledger.num_annotated for ledger in run.main.per_label.values()) >= 100_000
    path = tmp_path / "thirty.html"
    path.write_text(render_page([run], intervals=[intervals]), encoding="utf-8")
    browser.open(path.resolve().as_uri())
    assert browser.problems() == []
    seen = browser.evaluate(SUMMARY)
    assert seen["rows"] == 33  # the labels, micro, macro, any entity
    assert len(seen["support"].replace(",", "")) >= 6
    assert seen["wrap"][0] <= seen["wrap"][1], f"summary overflows its card: {seen['wrap']}"
    assert seen["card"][0] <= seen["card"][1]
    assert seen["page"][0] <= seen["page"][1]
    assert seen["strips"] == 32  # every label, micro and macro
    assert len(seen["dots"]) == 32 and all(seen["dots"])


# What a phone (or a wide screen) shows wrong: the page wider than the window; a word drawn
# on two lines (a label, a count, a headline figure); a box narrower than its text; a chart
# label outside its chart; a framed label whose text reaches into its frame (an underscore
# sits at the very bottom of the text box and vanishes under the frame).
FITS = """(function () {
  var out = {page: [document.documentElement.scrollWidth, innerWidth], broken: [], cut: [],
             outside: [], ticks: [], framed: 0, hidden: [], words: 0};
  var walker = document.createTreeWalker(document.querySelector("main"), NodeFilter.SHOW_TEXT);
  for (var node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement.closest("svg, .inputs")) { continue; }
    var re = /[^\\s\\u2010-\\u2014-]+/g, m;  // a line may end after a hyphen or dash
    while ((m = re.exec(node.data))) {
      var range = document.createRange();
      range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
      var tops = {};
      Array.prototype.forEach.call(range.getClientRects(), function (r) {
        tops[Math.round(r.top)] = 1; });
      out.words += 1;
      if (Object.keys(tops).length > 1) { out.broken.push(m[0]); }
    }
  }
  document.querySelectorAll(".stat, .stat *, td, th").forEach(function (e) {
    if (e.scrollWidth > e.clientWidth + 1) { out.cut.push(e.textContent.trim()); }
  });
  document.querySelectorAll(".snippet").forEach(function (e) {  // scrolls sideways only
    if (e.scrollHeight > e.clientHeight + 1) { out.cut.push(e.textContent.trim()); }
  });
  document.querySelectorAll("svg.chart").forEach(function (svg) {
    var view = svg.viewBox.baseVal;
    svg.querySelectorAll("text:not([transform])").forEach(function (t) {
      var b = t.getBBox();
      if (b.x < -0.5 || b.y < -0.5 || b.x + b.width > view.width + 0.5 ||
          b.y + b.height > view.height + 0.5) { out.outside.push(t.textContent); }
    });
    svg.querySelectorAll("text.y-tick").forEach(function (t) { out.ticks.push(t.textContent); });
  });
  document.querySelectorAll(".snippet .tag").forEach(function (tag) {
    var box = tag.getBoundingClientRect();
    if (!box.height) { return; }
    var frame = /([\\d.]+)px inset/.exec(getComputedStyle(tag).boxShadow);
    var inset = frame ? parseFloat(frame[1]) : 0;
    var range = document.createRange();
    range.selectNodeContents(tag);
    var text = range.getBoundingClientRect();
    out.framed += inset > 0 ? 1 : 0;
    if (text.top < box.top + inset - 0.01 || text.bottom > box.bottom - inset + 0.01) {
      out.hidden.push(tag.textContent);
    }
  });
  return out;
})()"""


def report_page(tmp_path: Path) -> str:
    """A report with labels named with underscores, intervals, a gate, operating points,
    error cards and a slice view by a field with long values."""
    run = run_system(thirty_label_docs(8, 120), name="phone", errors=60, sweep=True)
    assert run.result.documents is not None
    values = [f"a_rather_long_source_name_{int(d[1:]) % 5}" for d in run.result.documents.doc_ids]
    tables = slice_tables(run.result, {"source_name": values}, ["source_name"])
    (run.slices["source_name"],) = tables["source_name"]
    run.verdict = check_gate(
        run.result, Floors((Floor("LABEL_01_X", recall=0.99), Floor("LABEL_02_X_X", f=0.1)))
    )
    intervals = bootstrap_intervals(run.result, threshold=0.5, resamples=100, seed=0)
    return render_page([run], intervals=[intervals])


def comparison_page(tmp_path: Path) -> str:
    """The compare page: two systems, their difference plot and where they disagree."""
    return render_comparison(
        compare_files(*write_files(tmp_path), names=("A", "B"), resamples=50), "html"
    )


@pytest.mark.parametrize("page", [report_page, comparison_page])
@pytest.mark.parametrize("width", [390, 1280])
def test_the_page_fits_a_phone_and_a_wide_screen(browser, tmp_path, page, width):
    browser.call(
        "Emulation.setDeviceMetricsOverride",
        width=width,
        height=900,
        deviceScaleFactor=1,
        mobile=width < 600,
    )
    path = tmp_path / "page.html"
    html = page(tmp_path)
    path.write_text(html, encoding="utf-8")
    assert (page is report_page) == ('id="operating-points"' in html) == ("slice-chart" in html)
    browser.open(path.resolve().as_uri())
    assert browser.problems() == []
    seen = browser.evaluate(FITS)
    assert seen["page"] == [width, width], "the page is wider than the window"
    assert seen["words"] > 500 and seen["broken"] == []
    assert seen["cut"] == []
    assert seen["outside"] == []
    assert seen["ticks"] and all(round(float(t) * 20, 9).is_integer() for t in seen["ticks"])
    if page is report_page:
        assert seen["framed"] > 0
    assert seen["hidden"] == []


KINDS = """(function () {
  var out = {};
  document.querySelectorAll("#error-kinds table.error-kinds tbody tr").forEach(function (tr) {
    var row = {};
    tr.querySelectorAll("td[data-kind]").forEach(function (td) {
      row[td.dataset.kind] = Number(td.textContent.replace(/,/g, "")); });
    out[tr.dataset.label || "*all*"] = row;
  });
  return out;
})()"""


def test_every_kind_count_on_the_page_equals_the_json_ledgers(browser, tmp_path):
    run = run_system(thirty_label_docs(8, 120), name="kinds", errors=20)
    data = json.loads(json.dumps(run.result.to_dict()))
    (scores,) = [r for r in data["levels"]["labels"] if r["threshold"] == run.threshold]
    path = tmp_path / "kinds.html"
    path.write_text(render_page([run]), encoding="utf-8")
    browser.open(path.resolve().as_uri())
    assert browser.problems() == []
    shown = browser.evaluate(KINDS)
    assert set(shown) == {*scores["per_label"], "*all*"}
    for label, row in shown.items():
        table = scores["error_kinds"]
        kinds = table["micro"] if label == "*all*" else table["per_label"][label]
        ledger = scores["micro"] if label == "*all*" else scores["per_label"][label]
        assert row["fn"] == ledger["fn"] == kinds["fn"]["total"]
        assert row["fp"] == ledger["fp"] == kinds["fp"]["total"]
        assert row["missed"] == kinds["fn"]["missed"]
        assert row["boundary_gold"] == kinds["fn"]["boundary"]
        assert row["wrong_label_gold"] == kinds["fn"]["wrong_label"]
        assert row["spurious"] == kinds["fp"]["spurious"]
        assert row["boundary_predicted"] == kinds["fp"]["boundary"]
        assert row["wrong_label_predicted"] == kinds["fp"]["wrong_label"]
        assert row["missed"] + row["boundary_gold"] + row["wrong_label_gold"] == row["fn"]
    # The kept sample is smaller than the corpus's errors, and the page says so.
    assert len(run.errors) == 20 < scores["errors_total"]
    caption = browser.evaluate('document.querySelector("#errors p.lead").textContent')
    assert f"20 of {scores['errors_total']:,}" in caption
