"""The report in a real browser: headless Chromium opens the page over DevTools, finds no
console errors, no network requests, and every section drawn; the error filters work; a
full-page screenshot is saved (to ``$SPACY_SPAN_EVAL_ARTIFACTS`` when set).

Needs Debian's ``chromium`` (``CHROMIUM`` overrides the path): skipped when missing, except
under ``CI=true``, where a missing browser fails the run.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from spacy_span_eval import Document
from spacy_span_eval.engine.bootstrap import bootstrap_intervals, paired_test
from spacy_span_eval.engine.gates import Floor, Floors, check_gate
from spacy_span_eval.jobs.system_run import run_system
from spacy_span_eval.readers.demo_corpus import gold_documents, recognizer
from spacy_span_eval.render.html import render_page

from cdp import Browser
from conftest import skip_or_fail

pytestmark = pytest.mark.slow
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


@pytest.fixture(scope="module")
def chromium() -> str:
    if not Path(CHROMIUM).exists():
        skip_or_fail(f"headless Chromium not found at {CHROMIUM}: apt-get install chromium "
                     "(or set CHROMIUM to its path)")
    return CHROMIUM


def artifact(tmp_path: Path, name: str) -> Path:
    folder = Path(os.environ.get("SPACY_SPAN_EVAL_ARTIFACTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder / name


def demo_docs(worse: bool = False) -> list[Document]:
    """The embedded demo corpus with its recognizer; ``worse`` drops and shifts more."""
    rng = random.Random(3)
    docs = []
    for s in gold_documents(200):
        pred = list(recognizer(s))
        if worse:
            pred = [p.__class__(p.start + (2 if rng.random() < 0.3 else 0), p.end, p.label)
                    for p in pred if rng.random() > 0.25 and p.end - p.start > 2]
        docs.append(Document.create(id=s.id, text=s.text, gold=s.spans, pred=pred))
    return docs


@pytest.fixture
def browser(chromium, tmp_path):
    profile = tmp_path / "profile"
    profile.mkdir()
    b = Browser(chromium, profile)
    yield b
    b.close()


CHECKS = """(function () {
  var q = function (s) { return document.querySelectorAll(s); };
  var box = function (s) { var e = document.querySelector(s);
    return e ? e.getBoundingClientRect().width * e.getBoundingClientRect().height : 0; };
  return {
    summaryRows: q("#summary table.per-label tbody tr").length,
    headline: q("#summary .stat").length,
    curves: q("#curves svg.line-chart").length,
    curveLines: q("#curves polyline.series").length,
    curveArea: box("#curves svg.line-chart"),
    heatmaps: q("#confusion svg.heatmap").length,
    heatmapCells: q("#confusion svg.heatmap g.cell").length,
    heatmapArea: box("#confusion svg.heatmap"),
    cards: q(".error-card").length,
    drawn: q(".error-card .spans").length,
    gate: q("#gate .verdict").length,
    comparison: q("#comparison svg.diff").length,
    count: document.getElementById("error-count").textContent
  };
})()"""


def choose(browser: Browser, select: str, value: str) -> dict:
    """Pick a filter value the way a user does; return what is shown."""
    return browser.evaluate(f"""(function () {{
      var s = document.getElementById({select!r});
      s.value = {value!r};
      s.dispatchEvent(new Event("change"));
      var shown = Array.prototype.filter.call(document.querySelectorAll(".error-card"),
        function (c) {{ return !c.hidden && c.getBoundingClientRect().height > 0; }});
      return {{count: document.getElementById("error-count").textContent,
               shown: shown.length,
               kinds: shown.map(function (c) {{ return c.dataset.kind; }}),
               labels: shown.map(function (c) {{ return JSON.parse(c.dataset.labels); }}),
               systems: shown.map(function (c) {{ return c.dataset.system; }})}};
    }})()""")


def open_page(browser: Browser, html: str, path: Path) -> dict:
    path.write_text(html, encoding="utf-8")
    browser.open(path.resolve().as_uri())
    assert browser.problems() == []
    assert browser.requests() == [path.resolve().as_uri()]  # nothing else is fetched
    return browser.evaluate(CHECKS)


def test_report_page_in_chromium(browser, tmp_path):
    run = run_system(demo_docs(), name="demo recognizer", errors=80)
    floors = Floors((Floor("PERSON", recall=0.5), Floor("EMAIL", recall=0.99)), threshold=0.5)
    run.verdict = check_gate(run.result, floors)
    intervals = bootstrap_intervals(run.result, threshold=0.5, resamples=500, seed=0)
    page = open_page(browser, render_page([run], intervals=[intervals]),
                     tmp_path / "report.html")
    n_labels = len(run.main.per_label)
    assert page["summaryRows"] == n_labels + 3  # labels, micro, macro, any entity
    assert page["headline"] == 4
    assert page["curves"] == n_labels + 1 and page["curveLines"] >= 3 * (n_labels + 1)
    assert page["curveArea"] > 10_000
    assert page["heatmaps"] == 1 and page["heatmapCells"] == (n_labels + 1) ** 2
    assert page["heatmapArea"] > 10_000
    assert page["cards"] == page["drawn"] == 80 and page["count"] == "80"
    assert page["gate"] == 1
    fp = choose(browser, "filter-kind", "false_positive")
    assert 0 < fp["shown"] < 80 and fp["count"] == str(fp["shown"])
    assert set(fp["kinds"]) == {"false_positive"}
    label = sorted(run.main.per_label)[0]
    both = choose(browser, "filter-label", label)
    assert all(label in labels for labels in both["labels"])
    assert set(both["kinds"]) <= {"false_positive"}
    everything = (choose(browser, "filter-kind", ""), choose(browser, "filter-label", ""))
    assert everything[1]["shown"] == 80
    assert browser.problems() == []
    shot = browser.screenshot(artifact(tmp_path, "report.png"))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 50_000
    print(f"screenshot: {shot}")


def test_comparison_page_in_chromium(browser, tmp_path):
    a = run_system(demo_docs(), name="recognizer", errors=30)
    b = run_system(demo_docs(worse=True), name="degraded", errors=30)
    test = paired_test(a.result, b.result, threshold=0.5, resamples=300, seed=0)
    intervals = [bootstrap_intervals(r.result, threshold=0.5, resamples=300, seed=0)
                 for r in (a, b)]
    page = open_page(browser, render_page([a, b], intervals=intervals, comparison=test),
                     tmp_path / "compare.html")
    assert page["comparison"] == 1 and page["heatmaps"] == 2
    assert page["cards"] == page["drawn"] == 60
    only_b = choose(browser, "filter-system", "degraded")
    assert only_b["shown"] == 30 and set(only_b["systems"]) == {"degraded"}
    assert browser.problems() == []
    shot = browser.screenshot(artifact(tmp_path, "compare.png"))
    assert shot.stat().st_size > 50_000
