"""``compare`` answers the recall question: precision, recall and F differences per label and
micro/macro, each with its interval, p-value and a verdict in plain words; ``p < 0.001``;
distinct default names when the file stems collide."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from spacy_span_eval import Document, SpanEvaluator
from spacy_span_eval.cli import app
from spacy_span_eval.engine.paired import FigureDifference, paired_test
from spacy_span_eval.jobs.compare import default_names
from spacy_span_eval.render.verdicts import format_p, verdict

runner = CliRunner()


def corpus(found: int, n: int = 40, spurious: int = 0) -> list[Document]:
    """``n`` one-span documents; the system finds the first ``found`` exactly and adds a
    spurious span to the first ``spurious``."""
    text = "Ana lives in Lisbon"
    docs = []
    for i in range(n):
        pred = [(0, 3, "PER")] if i < found else []
        if i < spurious:
            pred.append((13, 19, "PER"))
        docs.append(Document.create(id=i, text=text, gold=[(0, 3, "PER")], pred=pred))
    return docs


@pytest.mark.parametrize("method", ["permutation", "bootstrap"])
def test_a_recall_only_difference(method):
    # A finds all 40 spans, B finds 20 and predicts nothing else: both are always right.
    a = SpanEvaluator(per_document=True).evaluate(corpus(40))
    b = SpanEvaluator(per_document=True).evaluate(corpus(20))
    test = paired_test(a, b, resamples=1000, seed=0, method=method)
    micro = test.micro.figures
    assert (micro["recall"].a, micro["recall"].b, micro["recall"].difference) == (1.0, 0.5, 0.5)
    assert micro["recall"].p_value < 0.001 and 0 < micro["recall"].low <= 0.5
    assert micro["recall"].high <= 1.0
    assert (micro["precision"].a, micro["precision"].b) == (1.0, 1.0)
    assert micro["precision"].difference == 0.0 and micro["precision"].p_value == 1.0
    assert micro["f"].difference == pytest.approx(1.0 - 2 / 3)
    # The flat fields are F's (the first version of the comparison).
    row = test.per_label["PER"]
    assert (row.f_a, row.f_b, row.difference, row.p_value) == (
        row.figures["f"].a,
        row.figures["f"].b,
        row.figures["f"].difference,
        row.figures["f"].p_value,
    )


def test_a_precision_only_difference():
    # Both find every span; B adds a spurious one to 30 of the 40 documents.
    a = SpanEvaluator(per_document=True).evaluate(corpus(40))
    b = SpanEvaluator(per_document=True).evaluate(corpus(40, spurious=30))
    micro = paired_test(a, b, resamples=500, seed=1).micro.figures
    assert micro["recall"].difference == 0.0 and micro["recall"].p_value == 1.0
    assert micro["precision"].b == 40 / 70
    assert micro["precision"].difference == pytest.approx(1 - 40 / 70)
    assert micro["precision"].p_value < 0.01


@pytest.mark.parametrize(
    "p, shown",
    [
        (0.000999, "p < 0.001"),
        (0.0, "p < 0.001"),
        (0.001, "p = 0.0010"),
        (0.0042, "p = 0.0042"),
        (0.0312, "p = 0.031"),
        (0.31, "p = 0.31"),
        (1.0, "p = 1.0"),
        (None, "-"),
    ],
)
def test_p_values_read_as_people_write_them(p, shown):
    assert format_p(p) == shown


def test_verdict_in_plain_words():
    # A minus B = -2.1 points: B is higher; the interval of A - B flips to B - A.
    d = FigureDifference(0.800, 0.821, -0.021, -0.034, -0.008, 0.000999, 0)
    assert verdict(d, "recall", ("A", "B")) == (
        "B's recall is 2.1 points higher (95% CI 0.8 to 3.4); p < 0.001, unlikely to be chance"
    )
    d = FigureDifference(0.70, 0.69, 0.012, -0.004, 0.027, 0.14, 0)
    assert verdict(d, "precision", ("rules", "model"), confidence=0.9) == (
        "rules's precision is 1.2 points higher (90% CI -0.4 to 2.7); p = 0.14, could be chance"
    )
    same = FigureDifference(0.5, 0.5, 0.0, 0.0, 0.0, 1.0, 0)
    assert verdict(same, "F1", ("A", "B")) == "A and B have the same F1 (50.0%); p = 1.0"
    undefined = FigureDifference(None, 0.5, None, None, None, None, 10)
    assert "undefined for A" in verdict(undefined, "precision", ("A", "B"))


@pytest.mark.parametrize(
    "a, b, names",
    [
        ("out/btc.predA", "out/btc.predB", ("predA", "predB")),
        ("a.conll", "b.conll", ("a", "b")),
        ("sys1/out.conll", "sys2/out.conll", ("sys1/out", "sys2/out")),
        ("runs/x/sys1/out.conll", "runs/y/sys1/out.conll", ("x/sys1/out", "y/sys1/out")),
        ("model.dev.conll", "model.dev.txt", ("conll", "txt")),
        ("same.conll", "same.conll", ("A", "B")),
        # one name has a part the other lacks: the folders tell them apart
        ("x/out", "y/out.conll", ("x/out", "y/out")),
        ("x/out.conll", "y/out", ("x/out", "y/out")),
    ],
)
def test_default_names_tell_the_files_apart(a, b, names):
    assert default_names(a, b) == names


@pytest.fixture
def files(tmp_path):
    """40 one-token sentences with a PER each; predA finds all, predB every other one."""
    gold = tmp_path / "btc.gold"
    gold.write_text("".join("Ana B-PER\nsmiled O\n\n" for _ in range(40)))
    (tmp_path / "btc.predA").write_text(gold.read_text())
    (tmp_path / "btc.predB").write_text(
        "".join(f"Ana {'B-PER' if i % 2 else 'O'}\nsmiled O\n\n" for i in range(40))
    )
    return gold, tmp_path / "btc.predA", tmp_path / "btc.predB"


@pytest.mark.parametrize(("confidence", "said"), [("0.999", "99.9% CI"), ("0.975", "97.5% CI")])
def test_the_confidence_level_is_printed_as_given(files, confidence, said):
    """A level of 99.9% printed as a rounded "100% CI" claims a certainty no interval has."""
    args = ["compare", *map(str, files), "--resamples", "200", "--confidence", confidence]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert said in result.stdout and "100% CI" not in result.stdout


def test_cli_text_has_a_verdict_per_figure(files):
    result = runner.invoke(app, ["compare", *map(str, files), "--resamples", "2000"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "== Comparison: predA vs predB" in out
    assert "predA's recall is 50.0 points higher (95% CI" in out
    assert "p < 0.001, unlikely to be chance" in out
    assert "predA and predB have the same precision (100.0%)" in out
    assert "p = 0.0" not in out  # 1 / (B + 1) = 0.0005 reads as p < 0.001
    lines = [ln.split() for ln in out.splitlines()]
    assert ["recall", "1.0000", "0.5000", "+0.5000"] in [ln[:4] for ln in lines]


def test_cli_json_gains_every_figure(files, tmp_path):
    path = tmp_path / "cmp.json"
    result = runner.invoke(
        app, ["compare", *map(str, files), "--resamples", "300", "-f", "json", "-o", str(path)]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(path.read_text())
    assert set(data["systems"]) == {"predA", "predB"}
    micro = data["comparison"]["micro"]
    assert {"f_a", "f_b", "difference", "low", "high", "p_value", "undefined"} <= set(micro)
    assert set(micro["figures"]) == {"precision", "recall", "f"}
    recall = micro["figures"]["recall"]
    assert (recall["a"], recall["b"], recall["difference"]) == (1.0, 0.5, 0.5)
    assert set(recall) == {"a", "b", "difference", "low", "high", "p_value", "undefined"}
    assert data["comparison"]["per_label"]["PER"]["figures"]["recall"]["difference"] == 0.5


def test_cli_markdown_and_html_show_the_verdicts(files, tmp_path):
    md = runner.invoke(app, ["compare", *map(str, files), "--resamples", "300", "-f", "markdown"])
    assert md.exit_code == 0 and "- predA's recall is 50.0 points higher" in md.stdout
    page = tmp_path / "cmp.html"
    html = runner.invoke(
        app, ["compare", *map(str, files), "--resamples", "300", "-f", "html", "-o", str(page)]
    )
    assert html.exit_code == 0, html.output
    text = page.read_text(encoding="utf-8")
    assert "micro: predA&#39;s recall is 50.0 points higher" in text
    assert text.count('class="verdict-text"') == 3 * 3  # PER, micro, macro x P, R, F
