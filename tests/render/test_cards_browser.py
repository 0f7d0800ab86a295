"""Error and disagreement cards in a real browser (headless Chromium over DevTools):

- an error card's text reads as text: the gap between adjacent words, inside and outside
  spans, is one space wide, and a word with a character-unit boundary inside it shows no gap
  at the boundary (labels sit outside the line and never widen a word);
- the compare page's disagreement view filters by label and direction, and its counts are
  the hand-worked ones.

Needs Debian's ``chromium`` (``CHROMIUM`` overrides the path), as the other browser tests.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from disagreement_corpus import EXPECTED, write_files
from test_report_browser import CHROMIUM, artifact, open_page

from spacy_span_eval import Document
from spacy_span_eval.api import compare_files
from spacy_span_eval.jobs.system_run import run_system
from spacy_span_eval.render.comparison import render_comparison
from spacy_span_eval.render.html import render_page

from cdp import Browser
from conftest import skip_or_fail

pytestmark = pytest.mark.slow


@pytest.fixture
def browser(tmp_path):
    if not Path(CHROMIUM).exists():
        skip_or_fail(f"headless Chromium not found at {CHROMIUM}: apt-get install chromium")
    profile = tmp_path / "profile"
    profile.mkdir()
    b = Browser(CHROMIUM, profile)
    yield b
    b.close()


# Per visible error card: for each pair of adjacent characters of the drawn text (labels
# left out) on one line, the gap between their boxes; and the width of a space.
GAPS = """(function () {
  var out = {words: [], inside: [], cards: 0};
  document.querySelectorAll(".error-card").forEach(function (card) {
    if (card.hidden) { return; }
    var root = card.querySelector(".spans");
    if (!root) { return; }
    out.cards += 1;
    var chars = [];
    var walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
      acceptNode: function (n) { return n.parentElement.closest(".tag") ?
        NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT; }});
    for (var node = walker.nextNode(); node; node = walker.nextNode()) {
      for (var i = 0; i < node.data.length; i++) {
        chars.push({node: node, i: i, c: node.data[i]});
      }
    }
    var rect = function (k) { var r = document.createRange();
      r.setStart(chars[k].node, chars[k].i); r.setEnd(chars[k].node, chars[k].i + 1);
      return r.getBoundingClientRect(); };
    for (var k = 0; k + 1 < chars.length; k++) {
      var a = chars[k].c, b = chars[k + 1].c;
      if (/\\s/.test(a) || /\\s/.test(b)) {
        if (/\\S/.test(a) && /\\s/.test(b) && k + 2 < chars.length && /\\S/.test(chars[k + 2].c)) {
          var l = rect(k), s = rect(k + 1), r = rect(k + 2);
          if (Math.abs(l.top - r.top) < 2) {
            out.words.push({pair: a + " " + chars[k + 2].c, gap: r.left - l.right, space: s.width,
                            split: chars[k].node !== chars[k + 2].node});
          }
        }
        continue;
      }
      var x = rect(k), y = rect(k + 1);
      if (Math.abs(x.top - y.top) < 2) {
        out.inside.push({pair: a + b, gap: y.left - x.right,
                         split: chars[k].node !== chars[k + 1].node});
      }
    }
  });
  return out;
})()"""


def spacing_docs() -> list[Document]:
    """Spans with labels much wider than their words, a boundary inside "John" (a
    prediction of "ohn") and inside "Harbor", overlapping spans."""
    text = "Then John Harbor & Co met Al at Acme Health today in NY again."
    at = text.index
    gold = [
        (at("John"), at("John") + 4, "PER"),
        (at("Harbor"), at("Co") + 2, "ORGANIZATION_NAME"),
        (at("Al"), at("Al") + 2, "PERSON_WITH_A_LONG_LABEL"),
        (at("Acme"), at("Health") + 6, "ORG"),
        (at("NY"), at("NY") + 2, "GPE"),
    ]
    pred = [
        (at("John") + 1, at("John") + 4, "PER"),
        (at("Harbor"), at("Harbor") + 3, "ORG"),
        (at("Al"), at("Al") + 2, "ORG"),
        (at("Acme"), at("Acme") + 4, "ORG"),
        (at("in"), at("NY") + 2, "LOC"),
    ]
    return [Document.create(id=f"d{k}", text=text, gold=gold, pred=pred) for k in range(3)]


def test_error_card_text_keeps_its_spacing_and_split_words_stay_whole(browser, tmp_path):
    run = run_system(spacing_docs(), name="spacing", errors=100, unit="char", threshold=0.9)
    open_page(browser, render_page([run]), tmp_path / "spacing.html")
    found = browser.evaluate(GAPS)
    assert found["cards"] >= 5
    words, inside = found["words"], found["inside"]
    assert len(words) > 50 and len(inside) > 100
    # Between words, one space's width, whether the words are in spans or not.
    bad = [w for w in words if abs(w["gap"] - w["space"]) > 1.0 or w["space"] > 8]
    assert bad == []
    # Inside a word no gap, also where a span boundary cuts it ("J|ohn", "Har|bor").
    assert [c for c in inside if abs(c["gap"]) > 0.75] == []
    split = {c["pair"] for c in inside if c["split"]}
    assert {"Jo", "rb"} <= split
    shot = browser.screenshot(artifact(tmp_path, "error-cards.png"))
    assert shot.stat().st_size > 10_000


SHOWN = """(function () {
  var shown = Array.prototype.filter.call(document.querySelectorAll(".disagree-card"),
    function (c) { return !c.hidden && c.getBoundingClientRect().height > 0; });
  return {count: document.getElementById("disagree-count").textContent,
          labels: shown.map(function (c) { return c.dataset.label; }),
          directions: shown.map(function (c) { return c.dataset.direction; }),
          texts: shown.map(function (c) { return c.querySelector(".what").textContent; }),
          table: Array.prototype.map.call(
            document.querySelectorAll("table.disagreements tbody tr[data-label]"),
            function (r) { return [r.dataset.label].concat(Array.prototype.map.call(
              r.querySelectorAll("td"), function (td) { return td.textContent; }).slice(1)); })};
})()"""


def pick(b: Browser, select: str, value: str) -> dict:
    return b.evaluate(
        f"""(function () {{
      var s = document.getElementById({select!r});
      s.value = {value!r};
      s.dispatchEvent(new Event("change"));
      return SHOWN;
    }})()""".replace("SHOWN", SHOWN)
    )


def test_the_disagreement_view_filters_by_label_and_direction(browser, tmp_path):
    comparison = compare_files(*write_files(tmp_path), names=("A", "B"), resamples=50)
    html = render_comparison(comparison, "html")
    open_page(browser, html, tmp_path / "compare.html")
    everything = browser.evaluate(SHOWN)
    assert everything["count"] == "6" and len(everything["labels"]) == 6
    table = {row[0]: [int(x) for x in row[1:]] for row in everything["table"]}
    assert table == {
        label: [c["a_only"], c["b_only"], c["both"], c["neither"]] for label, c in EXPECTED.items()
    }
    per = pick(browser, "disagree-label", "PER")
    assert per["count"] == "3" and set(per["labels"]) == {"PER"}
    assert sorted(per["directions"]) == ["a_only", "a_only", "b_only"]
    per_b = pick(browser, "disagree-direction", "b_only")
    assert per_b["count"] == "1" and per_b["labels"] == ["PER"]
    assert "“Bob” found by B" in per_b["texts"][0]
    loc = pick(browser, "disagree-label", "LOC")
    assert loc["count"] == "1" and "“Rome” found by B; A predicts PER" in loc["texts"][0]
    back = (pick(browser, "disagree-direction", ""), pick(browser, "disagree-label", ""))
    assert back[1]["count"] == "6"
    assert browser.problems() == []
    assert (
        json.loads(render_comparison(comparison, "json"))["disagreements"]["per_label"] == EXPECTED
    )
    shot = browser.screenshot(artifact(tmp_path, "disagreements.png"))
    assert shot.stat().st_size > 10_000
