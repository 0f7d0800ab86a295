"""The report in a real browser: headless Chromium opens the page over DevTools, finds no
console errors, no network requests, and every section drawn; the error filters work; a
full-page screenshot is saved (to ``$SPACY_SPAN_EVAL_ARTIFACTS`` when set).

Needs Debian's ``chromium`` (``CHROMIUM`` overrides the path): skipped when missing, except
under ``CI=true``, where a missing browser fails the run.
"""

from __future__ import annotations

import os
import random
from dataclasses import replace
from pathlib import Path

import pytest

from spacy_span_eval import Document
from spacy_span_eval.engine.bootstrap import bootstrap_intervals
from spacy_span_eval.engine.gates import Floor, Floors, check_gate
from spacy_span_eval.engine.paired import paired_test
from spacy_span_eval.engine.slices import slice_tables
from spacy_span_eval.jobs.system_run import run_system
from spacy_span_eval.readers.demo_corpus import gold_documents, recognizer
from spacy_span_eval.render.html import render_page
from spacy_span_eval.render.html.errors_view import error_cards
from spacy_span_eval.render.html.page import PAGE_SIZE

from cdp import Browser
from conftest import skip_or_fail

pytestmark = pytest.mark.slow
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


@pytest.fixture(scope="module")
def chromium() -> str:
    if not Path(CHROMIUM).exists():
        skip_or_fail(
            f"headless Chromium not found at {CHROMIUM}: apt-get install chromium "
            "(or set CHROMIUM to its path)"
        )
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
            pred = [
                p.__class__(p.start + (2 if rng.random() < 0.3 else 0), p.end, p.label)
                for p in pred
                if rng.random() > 0.25 and p.end - p.start > 2
            ]
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
    visible: Array.prototype.filter.call(q(".error-card"), function (c) {
      return !c.hidden && c.getBoundingClientRect().height > 0; }).length,
    pageInfo: document.getElementById("page-info").textContent,
    gate: q("#gate .verdict").length,
    comparison: q("#comparison svg.diff").length,
    count: document.getElementById("error-count").textContent
  };
})()"""


def choose(browser: Browser, select: str, value: str, event: str = "change") -> dict:
    """Pick a filter value (or type a search) the way a user does; return what is shown."""
    return browser.evaluate(
        f"""(function () {{
      var s = document.getElementById({select!r});
      s.value = {value!r};
      s.dispatchEvent(new Event({event!r}));
      return SHOWN();
    }})()""".replace("SHOWN()", SHOWN)
    )


def click(browser: Browser, button: str) -> dict:
    return browser.evaluate(
        f"""(function () {{
      document.getElementById({button!r}).click();
      return SHOWN();
    }})()""".replace("SHOWN()", SHOWN)
    )


SHOWN = """(function () {
      var shown = Array.prototype.filter.call(document.querySelectorAll(".error-card"),
        function (c) {{ return !c.hidden && c.getBoundingClientRect().height > 0; }});
      return {{count: document.getElementById("error-count").textContent,
               shown: shown.length,
               kinds: shown.map(function (c) {{ return c.dataset.kind; }}),
               labels: shown.map(function (c) {{ return JSON.parse(c.dataset.labels); }}),
               systems: shown.map(function (c) {{ return c.dataset.system; }}),
               texts: shown.map(function (c) {{ return c.textContent; }}),
               page: document.getElementById("page-info").textContent}};
    })()""".replace("{{", "{").replace("}}", "}")


# Every pair of label tags in a card that overlap by more than a hair, as text.
OVERLAPS = """(function () {
  var out = [], checked = 0;
  document.querySelectorAll(".error-card").forEach(function (card) {
    if (card.hidden) { return; }
    var tags = Array.prototype.map.call(card.querySelectorAll(".snippet .tag"), function (t) {
      return {text: t.textContent, r: t.getBoundingClientRect()}; });
    for (var i = 0; i < tags.length; i++) {
      for (var j = i + 1; j < tags.length; j++) {
        var a = tags[i].r, b = tags[j].r;
        var w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        var h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        checked += 1;
        if (w > 0.5 && h > 0.5) { out.push(tags[i].text + " / " + tags[j].text); }
      }
    }
  });
  return {overlaps: out, pairs: checked};
})()"""


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
    n_cards = len(error_cards(run.name, run.errors, run.documents, run.relabels()))
    assert 50 < n_cards <= 80
    page = open_page(browser, render_page([run], intervals=[intervals]), tmp_path / "report.html")
    n_labels = len(run.main.per_label)
    assert page["summaryRows"] == n_labels + 3  # labels, micro, macro, any entity
    assert page["headline"] == 4
    assert page["curves"] == n_labels + 1 and page["curveLines"] >= 3 * (n_labels + 1)
    assert page["curveArea"] > 10_000
    assert page["heatmaps"] == 1 and page["heatmapCells"] == (n_labels + 1) ** 2
    assert page["heatmapArea"] > 10_000
    assert page["cards"] == page["drawn"] == n_cards and page["count"] == str(n_cards)
    assert page["visible"] == PAGE_SIZE and page["pageInfo"] == "page 1 of 2"
    assert page["gate"] == 1
    assert browser.evaluate(OVERLAPS)["overlaps"] == []
    fp = choose(browser, "filter-kind", "false_positive")
    assert 0 < fp["shown"] < PAGE_SIZE and fp["count"] == str(fp["shown"])
    assert set(fp["kinds"]) == {"false_positive"} and fp["page"] == "page 1 of 1"
    label = sorted(run.main.per_label)[0]
    both = choose(browser, "filter-label", label)
    assert all(label in labels for labels in both["labels"])
    assert set(both["kinds"]) <= {"false_positive"}
    everything = (choose(browser, "filter-kind", ""), choose(browser, "filter-label", ""))
    assert everything[1]["shown"] == PAGE_SIZE and everything[1]["count"] == str(n_cards)
    # Paging: the second page holds the rest, and back again.
    second = click(browser, "page-next")
    assert second["shown"] == n_cards - PAGE_SIZE and second["page"] == "page 2 of 2"
    assert browser.evaluate(OVERLAPS)["overlaps"] == []
    assert click(browser, "page-prev")["page"] == "page 1 of 2"
    # Search: every word typed must be in the card (its text, labels or document).
    word = run.errors[0].text.split()[0]
    found = choose(browser, "filter-text", word.upper(), event="input")
    assert 0 < found["shown"] == int(found["count"])
    assert all(word.lower() in t.lower() for t in found["texts"])
    none = choose(browser, "filter-text", "no such words here", event="input")
    assert none["shown"] == 0 and none["count"] == "0" and none["page"] == "page 1 of 1"
    choose(browser, "filter-text", "", event="input")
    assert browser.problems() == []
    shot = browser.screenshot(artifact(tmp_path, "report.png"))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 50_000
    print(f"screenshot: {shot}")


def adjacent_docs() -> list[Document]:
    """Short spans side by side: two-letter names, each gold PER, predicted with long and
    short labels, shifted and relabelled, so labels are wider than their words."""
    names = ["Al", "Bo", "Cy", "Di", "Ed", "Fa", "Gu", "Hy"]
    text = " ".join(names) + " met at OR in NY ."
    starts = [text.index(n) for n in names]
    gold = [(s, s + 2, "PER") for s in starts] + [(text.index("OR"), text.index("OR") + 2, "ORG")]
    pred = []
    for i, s in enumerate(starts):
        label = ("PERSON_NAME_LONG", "ORG", "PER", "PER")[i % 4]
        pred.append((s, s + 2, label))
    pred += [
        (starts[2], starts[3] + 2, "PER"),
        (text.index("OR"), text.index("OR") + 2, "OR"),
        (text.index("NY"), text.index("NY") + 2, "GPE"),
    ]
    docs = [Document.create(id=f"adjacent-{k}", text=text, gold=gold, pred=pred) for k in range(3)]
    tokens = ["A", "B", "C", "D", "E", "F"]
    tokenized = Document.create(
        id="tokens",
        unit="token",
        tokens=tokens,
        gold=[(i, i + 1, "PER") for i in range(6)],
        pred=[(i, i + 1, "ORGANIZATION") for i in range(0, 6, 2)]
        + [(1, 3, "PER"), (3, 6, "LOCATION")],
    )
    # A tokenized document on the same page: an evaluator refuses a document created in
    # another unit (semantics §7), so this one is passed as a hand-built Document (no unit), which
    # it takes as it is; only how its cards are drawn matters here.
    docs.append(replace(tokenized, unit=None))
    return docs


def test_labels_of_short_adjacent_spans_never_overlap(browser, tmp_path):
    run = run_system(adjacent_docs(), name="adjacent", errors=200, unit="char")
    page = open_page(browser, render_page([run]), tmp_path / "adjacent.html")
    assert page["cards"] > 10
    checked = browser.evaluate(OVERLAPS)
    assert checked["pairs"] > 100  # many tags side by side were compared
    assert checked["overlaps"] == []
    # A relabelled two-letter span is one card.
    wrong = choose(browser, "filter-kind", "wrong_label")
    assert wrong["shown"] > 0
    assert all("boundary IoU 1.00" in t for t in wrong["texts"] if "ORG" in t and "Bo" in t)
    choose(browser, "filter-kind", "")
    shot = browser.screenshot(artifact(tmp_path, "adjacent.png"))
    assert shot.stat().st_size > 10_000


def test_comparison_page_in_chromium(browser, tmp_path):
    a = run_system(demo_docs(), name="recognizer", errors=30)
    b = run_system(demo_docs(worse=True), name="degraded", errors=30)
    test = paired_test(a.result, b.result, threshold=0.5, resamples=300, seed=0)
    intervals = [
        bootstrap_intervals(r.result, threshold=0.5, resamples=300, seed=0) for r in (a, b)
    ]
    cards_b = len(error_cards(b.name, b.errors, b.documents, b.relabels()))
    page = open_page(
        browser,
        render_page([a, b], intervals=intervals, comparison=test),
        tmp_path / "compare.html",
    )
    assert page["comparison"] == 1 and page["heatmaps"] == 2
    assert page["cards"] == page["drawn"] and page["cards"] >= 40
    only_b = choose(browser, "filter-system", "degraded")
    assert only_b["shown"] == cards_b and set(only_b["systems"]) == {"degraded"}
    assert browser.evaluate(OVERLAPS)["overlaps"] == []
    assert browser.problems() == []
    shot = browser.screenshot(artifact(tmp_path, "compare.png"))
    assert shot.stat().st_size > 50_000


SLICES = """(function (key, value) {
  var bar = document.querySelector("#slices .filters");
  var select = bar.querySelector('select[data-key="' + key + '"]');
  select.value = value;
  select.dispatchEvent(new Event("change"));
  var shown = Array.prototype.filter.call(document.querySelectorAll(".slice-chart"),
    function (c) { return !c.hidden && c.getBoundingClientRect().height > 0; });
  return {count: bar.querySelector(".count").textContent,
          shown: shown.map(function (c) { return [c.dataset.field, c.dataset.label]; }),
          worst: shown.map(function (c) { var w = c.querySelector("g.slice.worst");
            return w ? getComputedStyle(w.querySelector("text")).fill : null; })};
})"""


def test_the_slice_view_filters_by_field_and_label(browser, tmp_path):
    run = run_system(demo_docs(), name="demo recognizer", errors=0)
    assert run.result.documents is not None
    ids = run.result.documents.doc_ids
    values = {
        name: [str(i % k) for i in range(len(ids))] for name, k in (("half", 2), ("third", 3))
    }
    for name, (table,) in slice_tables(run.result, values, list(values)).items():
        run.slices[name] = table
    labels = [*sorted(run.main.per_label), "micro"]
    open_page(browser, render_page([run]), tmp_path / "slices.html")
    pick = lambda key, value: browser.evaluate(f"({SLICES})({key!r}, {value!r})")  # noqa: E731
    every = pick("label", "")
    assert every["count"] == str(2 * len(labels))
    assert every["shown"] == [[f, lab] for f in ("half", "third") for lab in labels]
    assert set(every["worst"]) == {"rgb(192, 57, 43)"}  # every chart marks its worst slice red
    micro = pick("label", "micro")
    assert micro["shown"] == [["half", "micro"], ["third", "micro"]] and micro["count"] == "2"
    third = pick("field", "third")
    assert third["shown"] == [["third", "micro"]] and third["count"] == "1"
    assert pick("label", "")["shown"] == [["third", lab] for lab in labels]
    assert browser.problems() == []
