"""The HTML report without a browser: self-contained, every section there, the threshold
curve from one pass (equal to scoring each threshold alone, and monotone as semantics §2.1 says),
error cards in their sentence, labels and text escaped, the gate verdict and exit codes."""

from __future__ import annotations

import json
import random
import re
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from spacy_span_eval import Document, SpanEvaluator
from spacy_span_eval.api import evaluate_files, report_files
from spacy_span_eval.engine.records import ErrorRecord
from spacy_span_eval.jobs.system_run import CURVE_THRESHOLDS, DocumentView, run_system
from spacy_span_eval.readers.schemes import decode
from spacy_span_eval.render.html import render_page
from spacy_span_eval.render.html.errors_view import render_in_context, sentence_window
from spacy_span_eval.render.html.svg import Series, line_chart

from conftest import (
    cli,
    data_path,
    floors_file,
    perturbed_sentences,
    token_tag_sentences,
    two_column,
)

runner = CliRunner()
LABELS = ["PER", "ORG", "LOC"]


def records_shown(html: str) -> int:
    """Error records the cards of a page show (a relabel card shows two or more)."""
    return sum(int(n) for n in re.findall(r'data-records="(\d+)"', html))


@pytest.fixture(scope="module")
def btc(tmp_path_factory):
    """The first 600 BTC test sentences as CoNLL gold and a seeded perturbed prediction."""
    sentences = token_tag_sentences(data_path("btc", "btc.test"))[:600]
    out = tmp_path_factory.mktemp("btc")
    gold, pred = out / "gold.conll", out / "pred.conll"
    gold.write_text(two_column(sentences), encoding="utf-8")
    pred.write_text(
        two_column(perturbed_sentences(sentences, LABELS, random.Random(5), rate=0.4)),
        encoding="utf-8",
    )
    return gold, pred


@pytest.fixture(scope="module")
def page(btc):
    return report_files(*btc, errors=50, resamples=200, seed=1)


def test_the_page_is_self_contained(page):
    html = page.html
    assert html.startswith("<!DOCTYPE html>")
    for fetching in (" src=", "<link", "@import", "url(", 'href="http', "href='http"):
        assert fetching not in html, fetching
    # Every link is an in-page anchor.
    assert set(re.findall(r'href="([^"]*)"', html)) <= {
        "#summary",
        "#curves",
        "#confusion",
        "#error-kinds",
        "#errors",
        "#comparison",
        "#gate",
    }


def test_every_section_is_there(page):
    html = page.html
    for section in ("summary", "curves", "confusion", "error-kinds", "errors"):
        assert f'<section id="{section}">' in html
    assert html.count('class="chart line-chart"') == 1 + len(LABELS)  # micro + each label
    assert html.count('class="chart heatmap"') == 1
    assert records_shown(html) == 50  # in fewer cards: a relabelled span is one card
    assert html.count('class="spans"') == html.count('class="error-card"')  # each card drawn
    assert 'id="gate"' not in html  # no floors, no gate
    micro = page.intervals[0].micro["f"]
    assert f"{micro.low:.3f}–{micro.high:.3f}" in html


def test_curve_equals_scoring_each_threshold_alone(btc, page):
    run = page.runs[0]
    assert run.thresholds == list(CURVE_THRESHOLDS)
    curve = run.curve()
    docs = [
        Document.create(
            id=i, unit="token", tokens=tokens, gold=decode(tags).spans, pred=decode(ptags).spans
        )
        for i, ((tokens, tags), (_, ptags)) in enumerate(
            zip(token_tag_sentences(btc[0]), token_tag_sentences(btc[1]), strict=True)
        )
    ]
    for k in (0, 7, 9, 19):
        alone = SpanEvaluator(unit="token", thresholds=CURVE_THRESHOLDS[k]).evaluate(docs)
        assert curve["micro"]["recall"][k] == alone.scores().micro.recall()
        for label, ledger in alone.scores().per_label.items():
            assert curve["per_label"][label]["precision"][k] == ledger.precision()
            assert curve["per_label"][label]["f"][k] == ledger.f()


def non_increasing(values) -> bool:
    defined = [v for v in values if v is not None]
    return all(b <= a + 1e-12 for a, b in zip(defined, defined[1:], strict=False))


def test_curve_never_rises_on_btc(page):
    curve = page.runs[0].curve()
    for name, rows in [("micro", curve["micro"]), *curve["per_label"].items()]:
        assert non_increasing(rows["recall"]), name
        assert non_increasing(rows["precision"]), name
    micro = page.runs[0].curve()["micro"]["recall"]
    assert micro[0] > micro[-1]  # boundary slips cost something by τ = 1


spans = st.lists(
    st.tuples(st.integers(0, 28), st.integers(1, 6), st.sampled_from("AB")), max_size=6
).map(lambda xs: [(s, min(30, s + n), lab) for s, n, lab in xs])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(spans, spans), min_size=1, max_size=4))
def test_curve_never_rises_on_random_documents(pairs):
    docs = [Document.create(id=i, length=30, gold=g, pred=p) for i, (g, p) in enumerate(pairs)]
    if not any(g or p for g, p in pairs):
        return
    run = run_system(docs, name="x", errors=0)
    curve = run.curve()
    for rows in (curve["micro"], *curve["per_label"].values()):
        assert non_increasing(rows["recall"]) and non_increasing(rows["precision"])


# -- error cards -------------------------------------------------------------------------------
TEXT = (
    "Intro sentence that is long enough to be cut away from the window. " * 5
    + "We moved here from Cyprus (Greek) last May. "
    + "Another sentence follows the error and is long enough to be dropped. " * 5
)


def char_view() -> DocumentView:
    start = TEXT.index("Cyprus")
    from spacy_span_eval import Span

    return DocumentView(
        "long",
        "char",
        TEXT,
        None,
        (Span(start, start + 14, "LOC"),),
        (Span(start, start + 6, "LOC"), Span(start + 8, start + 13, "NORP")),
    )


def test_window_is_the_sentence_of_the_error():
    view = char_view()
    a, b = sentence_window(view, view.gold[0].start, view.gold[0].end)
    assert TEXT[a:b].strip() == "We moved here from Cyprus (Greek) last May."


def test_char_snippet_cuts_words_at_span_boundaries():
    view = char_view()
    g = view.gold[0]
    record = ErrorRecord(
        "false_negative",
        "long",
        g.start,
        g.end,
        "LOC",
        None,
        TEXT[g.start : g.end],
        None,
        None,
        0.43,
    )
    html = render_in_context(record, view)
    assert "Intro" not in html and "Another" not in html
    assert html.count("…") == 2  # cut on both sides
    # "(Greek)" is split where the NORP prediction starts and ends.
    tokens = re.findall(r">\s*([^<>\s][^<>]*?)\s*<", html)
    assert "(" in tokens and "Greek" in tokens and ")" in tokens
    assert "LOC ✗" in html and "NORP" in html


def test_labels_and_text_are_escaped():
    text = "<script>alert(1)</script> met <b>Bob</b>"
    docs = [
        Document.create(id="x<y>", text=text, gold=[(31, 39, "<i>PER")], pred=[(0, 8, "<i>PER")])
    ]
    run = run_system(docs, name="<sys>", errors=10)
    html = render_page([run])
    assert "<script>alert" not in html and "<b>Bob" not in html
    assert "<i>PER" not in html and "&lt;i&gt;PER" in html
    assert "<sys>" not in html
    assert "data-labels='[\"\\u003ci\\u003ePER\"]'" in html  # JSON, "<" as \u003c
    # A name with an underscore may wrap after it in the summary, and is escaped still.
    odd = [Document.create(id="u", text=text, gold=[(31, 39, "<i>_X")], pred=[])]
    html = render_page([run_system(odd, name="u", errors=1)])
    assert "<td>&lt;i&gt;_<wbr>X</td>" in html and "<i>_X" not in html


@pytest.mark.parametrize(
    ("y_min", "ticks"),
    [
        (0.0, ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]),
        (0.3, ["0.4", "0.6", "0.8", "1.0"]),  # 0.7 apart: 0.1 needs seven gaps
        (0.5, ["0.5", "0.6", "0.7", "0.8", "0.9", "1.0"]),
        (0.7, ["0.7", "0.8", "0.9", "1.0"]),
        (0.8, ["0.80", "0.85", "0.90", "0.95", "1.00"]),
        (0.9, ["0.90", "0.95", "1.00"]),
    ],
)
def test_a_curve_chart_has_round_y_ticks(y_min, ticks):
    """0.05, 0.1 or 0.2 apart (the finest that needs at most five gaps), never 0.825."""
    chart = line_chart([Series("F1", [0.5, 1.0], [0.95, 0.9], "#000")], title="t", y_min=y_min)
    assert re.findall(r'class="y-tick">([^<]*)<', chart) == ticks


def test_error_cards_follow_the_kept_records(page):
    run = page.runs[0]
    assert len(run.errors) == 50
    assert set(run.documents) == {e.document for e in run.errors}  # only those are kept
    kinds = re.findall(r'class="error-card" data-kind="(\w+)"', page.html)
    # The records in order, less the false positives folded into a relabel card: each is a
    # prediction of the wrong label that overlaps the relabelled gold span.
    wrong = [e for e in run.errors if e.kind == "wrong_label"]
    folded = [
        e
        for e in run.errors
        if e.kind == "false_positive"
        and any(
            w.document == e.document
            and w.predicted_label == e.label
            and e.start < w.end
            and w.start < e.end
            for w in wrong
        )
    ]
    # A boundary error is one card: the predicted side's boundary records that overlap a
    # kept gold boundary record of their label are drawn in its card.
    gold_boundary = [e for e in run.errors if e.kind == "boundary" and e.side == "gold"]
    folded += [
        e
        for e in run.errors
        if e.kind == "boundary"
        and e.side == "predicted"
        and any(
            g.document == e.document and g.label == e.label and e.start < g.end and g.start < e.end
            for g in gold_boundary
        )
    ]
    assert wrong  # a relabel card draws its covering predictions from the document, so the
    # sample need not hold their false-positive records; those it holds are folded in
    assert kinds == [e.kind for e in run.errors if e not in folded]
    assert records_shown(page.html) - len(kinds) == len(folded)


def test_exact_strategy_has_no_curve(btc):
    report = report_files(*btc, strategy="exact", errors=5, resamples=50)
    assert report.runs[0].threshold is None and not report.runs[0].has_curve
    assert "needs the two_sided strategy" in report.html
    assert 'class="chart line-chart"' not in report.html


def test_no_resamples_no_intervals(btc):
    report = report_files(*btc, errors=0, resamples=0)
    assert report.intervals == [None]
    assert "no intervals" in report.html and "No error records were kept" in report.html


def test_counts_read_as_in_the_text_report(tmp_path):
    # 1,001 sentences of one token; one gold span, none predicted, nothing aligned
    gold, pred = tmp_path / "g.conll", tmp_path / "p.conll"
    gold.write_text("Ada B-PER\n\n" + "x O\n\n" * 1000)
    pred.write_text("Ada O\n\n" + "x O\n\n" * 1000)
    (tmp_path / "one.conll").write_text("Ada B-PER\n\n")
    page = report_files(gold, pred, errors=0, resamples=0).html
    assert "1,001 documents" in page and "1001 documents" not in page
    assert "1 span," in page and "1 spans" not in page
    assert "unaligned" not in page  # (no alignment was made)
    one = report_files(*[tmp_path / "one.conll"] * 2, errors=0, resamples=20).html
    assert "over the 1 document (" in one and "1 documents" not in one


def test_the_spurious_kind_is_described_as_counted(tmp_path):
    """A spurious prediction may overlap an annotation: one its label's other prediction finds
    ("John"), or another label's below the threshold ("New" of "New York"); the page's words
    for the kind do not say it overlaps nothing."""
    gold, pred = tmp_path / "g.conll", tmp_path / "p.conll"
    gold.write_text("John B-PER\nSmith I-PER\nin O\nNew B-LOC\nYork I-LOC\nCity I-LOC\n\n")
    pred.write_text("John B-PER\nSmith I-PER\nin O\nNew B-ORG\nYork O\nCity O\n\n")
    both = tmp_path / "both.jsonl"  # the PER found, and "John" predicted again
    both.write_text('{"text": "John Smith", "spans": [{"start": 0, "end": 10, "label": "PER"}]}\n')
    again = tmp_path / "again.jsonl"
    again.write_text(
        '{"text": "John Smith", "spans": [{"start": 0, "end": 10, "label": "PER"}, '
        '{"start": 0, "end": 4, "label": "PER"}]}\n'
    )
    for page in (report_files(gold, pred).html, report_files(both, again).html):
        shown = re.sub(r"\s+", " ", page)
        assert 'data-kind="spurious">1<' in shown
        assert "overlaps nothing" not in shown and "overlaps or relabels nothing" not in shown
        assert "spurious (a prediction that finds nothing and is no boundary" in shown


# -- CLI ---------------------------------------------------------------------------------------
def report_cli(*args):
    return cli("report", *args)


def test_cli_writes_the_report(btc, tmp_path):
    out = tmp_path / "r.html"
    code, text = report_cli(
        *btc, "-o", out, "--resamples", 50, "--errors", 10, "--title", "BTC check"
    )
    assert code == 0, text
    assert f"Saved the HTML report to {out}" in text
    html = out.read_text(encoding="utf-8")
    assert "<title>BTC check</title>" in html and records_shown(html) == 10


@pytest.mark.parametrize(
    "floors, code, headline",
    [
        ({"PER": {"recall": 0.1}}, 0, "Gate passed"),
        (
            {"PER": {"recall": 0.99}, "MISSING": {"recall": 0.5}},
            1,
            "Gate failed: 1 of 1 floor and 1 of 2 support checks",
        ),
    ],
)
def test_cli_gate_verdict(btc, tmp_path, floors, code, headline):
    out = tmp_path / "r.html"
    got, text = report_cli(
        *btc, "-o", out, "--resamples", 20, "--errors", 0, "--floors", floors_file(tmp_path, floors)
    )
    assert got == code, text
    assert headline in text
    html = out.read_text(encoding="utf-8")
    assert '<section id="gate">' in html and headline in html


def test_cli_usage_and_input_errors_exit_2(btc, tmp_path):
    code, text = report_cli(*btc)  # no -o
    assert code == 2 and "--output" in text
    code, text = report_cli(btc[0], tmp_path / "nope.conll", "-o", tmp_path / "r.html")
    assert code == 2 and "nope.conll: no such file" in text
    code, text = report_cli(*btc, "-o", tmp_path / "missing-dir" / "r.html", "--resamples", 0)
    assert code == 2 and "cannot write the HTML report" in text


def test_every_interval_shows_its_support(page):
    html = page.html
    cells = re.findall(r'class="ci">([^<]*)<', html)
    shown = [c for c in cells if c]
    assert len(shown) >= 4 + 3 * (len(LABELS) + 2)  # headline, then labels, micro, macro
    support = r"n = [\d,]+ (gold|predicted|labels)"
    for cell in shown:  # the table's cells give the support a line of its own
        assert re.fullmatch(rf"\d\.\d{{3}}–\d\.\d{{3}}( · {support})?", cell), cell
    lines = re.findall(r'class="ci n">([^<]*)<', html)
    assert len(lines) == 3 * (len(LABELS) + 2)
    assert all(re.fullmatch(support, line) for line in lines), lines
    micro = page.runs[0].main.micro
    assert f" · n = {micro.num_annotated:,} gold" in html
    assert f" · n = {micro.num_predicted:,} predicted" in html
    assert f"n = {len(LABELS)} labels" in html
    assert "Wilson score interval" in html and "SPEC" not in html


def scored_files(tmp_path, n_docs=60, seed=3):
    """Gold and scored predictions as JSONL: most gold spans found at high scores (ties
    among them), some missed, spurious ones at low scores; three labels, and a fourth
    that is never predicted (no curve)."""
    rng = random.Random(seed)
    gold_lines, pred_lines = [], []
    for d in range(n_docs):
        words = [f"w{rng.randrange(40)}" for _ in range(10)]
        starts = [sum(len(w) + 1 for w in words[:i]) for i in range(10)]
        gold, pred = [], []
        for i in range(0, 10, 2):
            span = {
                "start": starts[i],
                "end": starts[i] + len(words[i]),
                "label": rng.choice(LABELS),
            }
            if rng.random() < 0.8:
                gold.append(span)
                if rng.random() < 0.75:
                    pred.append({**span, "score": round(rng.uniform(0.3, 1), 2)})
            elif rng.random() < 0.5:
                pred.append({**span, "score": round(rng.uniform(0, 0.7), 2)})
        gold_lines.append(json.dumps({"id": f"d{d}", "text": " ".join(words), "spans": gold}))
        pred_lines.append(json.dumps({"id": f"d{d}", "text": " ".join(words), "spans": pred}))
    never = {"start": 0, "end": 1, "label": "DATE"}
    gold_lines.append(json.dumps({"id": "date", "text": "1 May", "spans": [never]}))
    pred_lines.append(json.dumps({"id": "date", "text": "1 May", "spans": []}))
    (tmp_path / "g.jsonl").write_text("\n".join(gold_lines) + "\n")
    (tmp_path / "p.jsonl").write_text("\n".join(pred_lines) + "\n")
    return tmp_path / "g.jsonl", tmp_path / "p.jsonl"


def operating_charts(html: str) -> dict[str, ET.Element]:
    """The operating-points section's charts by title, parsed."""
    section = html[html.index('<section id="operating-points">') :]
    section = section[: section.index("</section>")]
    svgs = [ET.fromstring(s) for s in re.findall(r"<svg .*?</svg>", section, re.S)]
    return {svg.find(f"{SVG}text").text: svg for svg in svgs}


SVG = "{http://www.w3.org/2000/svg}"


def chart_values(
    svg: ET.Element,
) -> tuple[list[tuple[float, float, str]], list[tuple[float, float]]]:
    """The chart's dots and rings as values, read back through its axis ticks: ``(x, y,
    tooltip)`` per dot, ``(x, y)`` per ring."""
    texts = svg.findall(f"{SVG}text")
    x_ticks = {t.text: float(t.get("x")) for t in texts if t.get("text-anchor") == "middle"}
    y_ticks = [
        (float(t.text), float(t.get("y")) - 3.5) for t in texts if t.get("class") == "y-tick"
    ]
    (v0, y0), (v1, y1) = y_ticks[0], y_ticks[-1]

    def value(cx: str, cy: str) -> tuple[float, float]:
        x = (float(cx) - x_ticks["0"]) / (x_ticks["1"] - x_ticks["0"])
        return x, v0 + (float(cy) - y0) / (y1 - y0) * (v1 - v0)

    circles = svg.findall(f"{SVG}circle")
    dots = [
        (*value(c.get("cx"), c.get("cy")), c.find(f"{SVG}title").text)
        for c in circles
        if c.get("class") != "spot"
    ]
    rings = [value(c.get("cx"), c.get("cy")) for c in circles if c.get("class") == "spot"]
    return dots, rings


def test_report_sweep_draws_a_pr_curve_per_label_with_the_best_f_point_ringed(tmp_path):
    """``report --sweep``: a chart per label and micro with one curve whose dots are the
    sweep's points (recall, precision), from the highest score down, and a ring on the
    best-F point; the calibration chart's dots are the reliability table's bins."""
    gold, pred = scored_files(tmp_path)
    code, _ = cli(
        "report", str(gold), str(pred), "--sweep", "-o", str(tmp_path / "r.html"), "--quiet"
    )
    assert code == 0
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    code, out = cli("evaluate", str(gold), str(pred), "--sweep", "-f", "json", "--quiet")
    sweep = json.loads(out)["result"]["sweep"][0]
    charts = operating_charts(html)
    assert set(charts) == {"micro", *LABELS, "micro calibration"}
    for name in ("micro", *LABELS):
        figures = sweep["micro"] if name == "micro" else sweep["per_label"][name]
        svg = charts[name]
        assert len(svg.findall(f"{SVG}polyline")) == 1
        dots, rings = chart_values(svg)
        points = figures["points"]
        assert len(dots) == len(points) > 10
        for (x, y, tip), p in zip(dots, points, strict=True):
            assert (x, y) == pytest.approx((p["recall"], p["precision"]), abs=2e-3)
            assert f"score ≥ {p['score']!r}:" in tip
        best = figures["best"]
        assert rings == [pytest.approx((best["recall"], best["precision"]), abs=2e-3)]
        ring = svg.find(f"{SVG}circle[@class='spot']")
        dot = next(
            c
            for c, p in zip(svg.findall(f"{SVG}circle")[:-1], points, strict=True)
            if p["score"] == best["score"]
        )
        assert (ring.get("cx"), ring.get("cy")) == (dot.get("cx"), dot.get("cy"))
    bins = [b for b in sweep["micro"]["reliability"] if b["predictions"]]
    dots, _ = chart_values(charts["micro calibration"])
    assert [d[:2] for d in dots[2:]] == [
        pytest.approx((b["mean_score"], b["credited"]), abs=2e-3) for b in bins
    ]
    assert f"mAP {sweep['map']:.4f}" in html


def test_a_long_pr_curve_is_thinned_keeping_the_operating_point(tmp_path, monkeypatch):
    from spacy_span_eval.render.html import charts as charts_module

    gold, pred = scored_files(tmp_path)
    report = report_files(gold, pred, sweep=True, resamples=0)
    figures = report.runs[0].result.sweep[0]["per_label"]["PER"]
    monkeypatch.setattr(charts_module, "PR_POINTS", 5)
    dots, rings = chart_values(operating_charts(render_page(report.runs))["PER"])
    assert 5 <= len(dots) <= 6 < len(figures["points"])
    assert rings[0] in [pytest.approx(d[:2]) for d in dots]


def test_a_label_predicted_but_never_in_gold_gets_no_pr_curve(tmp_path):
    """Its recall is undefined at every score: no curve (it once crashed the page)."""
    gold, pred = scored_files(tmp_path)
    extra = {"id": "x", "text": "w1 w2", "spans": [{"start": 0, "end": 2, "label": "NEW"}]}
    gold.write_text(gold.read_text() + json.dumps({**extra, "spans": []}) + "\n")
    pred.write_text(
        pred.read_text()
        + json.dumps({**extra, "spans": [{**extra["spans"][0], "score": 0.4}]})
        + "\n"
    )
    charts = operating_charts(report_files(gold, pred, sweep=True, resamples=0).html)
    assert set(charts) == {"micro", *LABELS, "micro calibration"}


def test_report_without_sweep_has_no_operating_points(tmp_path):
    gold, pred = scored_files(tmp_path)
    assert 'id="operating-points"' not in report_files(gold, pred, resamples=0).html


# -- the slice view (semantics §10) ------------------------------------------------------------
def sliced_pair(tmp_path, n_docs=80, seed=3):
    """Eight-word documents with a ``src`` field (four values, some documents without) and a
    gold span on every other word; the predictions find, relabel, shift or drop each."""
    rng = random.Random(seed)
    gold, pred = [], []
    for d in range(n_docs):
        words = [f"w{rng.randrange(30)}" for _ in range(8)]
        starts = [sum(len(w) + 1 for w in words[:i]) for i in range(8)]
        g, p = [], []
        for i in range(0, 8, 2):
            s, e, label = starts[i], starts[i] + len(words[i]), rng.choice(LABELS)
            g.append({"start": s, "end": e, "label": label})
            r = rng.random()
            if r < 0.6:
                p.append({"start": s, "end": e, "label": label})
            elif r < 0.8:
                p.append({"start": s, "end": e, "label": rng.choice(LABELS)})
            elif r < 0.9:
                p.append({"start": s, "end": e - 1, "label": label})
        field = {} if d % 9 == 0 else {"src": "abcd"[rng.randrange(4)]}
        gold.append({"id": f"d{d}", "text": " ".join(words), "spans": g, **field})
        pred.append({"id": f"d{d}", "text": " ".join(words), "spans": p})
    paths = tmp_path / "gold.jsonl", tmp_path / "pred.jsonl"
    for path, records in zip(paths, (gold, pred), strict=True):
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return paths


SLICE_CHART = re.compile(
    r'<div class="slice-chart" data-system="[^"]*" data-field="([^"]+)" '
    r'data-label="([^"]+)">(.*?)</div>',
    re.S,
)
SLICE_BAR = re.compile(r'<g class="slice( worst)?" data-slice="([^"]+)">.*?>([^<>]+)</text></g>')


def test_the_slice_view_has_a_bar_per_slice_with_the_json_tables_f_and_support(tmp_path):
    """Per field and label (then micro), a bar per slice with spans of it showing its F and
    gold spans as the JSON slice tables hold them, the label's worst slice marked."""
    gold, pred = sliced_pair(tmp_path)
    fields = ["src", "span-length"]
    page = report_files(gold, pred, resamples=0, errors=0, slice_by=fields).html
    report = evaluate_files(gold, pred, thresholds=(0.5,), slice_by=fields, output_format="json")
    charts = SLICE_CHART.findall(page)
    assert len(charts) == 2 * (len(LABELS) + 1)
    for field, label, svg in charts:
        (table,) = report.slices[field]
        expected = {}
        for s in table["slices"]:
            led = s["micro"] if label == "micro" else s["per_label"][label]
            if led["num_annotated"] or led["num_predicted"]:
                f = "–" if led["f"] is None else f"{led['f']:.3f}"
                expected[s["slice"]] = f"{f} · n {led['num_annotated']:,}"
        bars = SLICE_BAR.findall(svg)
        assert {name: shown for _, name, shown in bars} == expected
        worst = [name for mark, name, _ in bars if mark]
        if label != "micro":
            assert worst == [table["worst"][label]]
        else:  # the lowest micro F among the slices with gold spans
            micro = {s["slice"]: s["micro"] for s in table["slices"] if s["micro"]["num_annotated"]}
            assert worst == [min(micro, key=lambda k: (micro[k]["f"], k))]
    assert 'href="#slices"' in page and '<option value="span-length">' in page


def test_a_page_without_slice_by_has_no_slice_view(tmp_path):
    page = report_files(*sliced_pair(tmp_path, n_docs=5), resamples=0).html
    assert 'id="slices"' not in page and "slice-chart" not in page
