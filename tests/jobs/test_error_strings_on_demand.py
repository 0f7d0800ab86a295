"""The most frequent error strings are counted only for the outputs that show them: the
text table does not, so ``evaluate`` in text skips reading every error's text; JSON and
Markdown keep the same content."""

from __future__ import annotations

from spacy_span_eval import Document, SpanEvaluator
from spacy_span_eval.api import evaluate_files

GOLD = (
    "Ana\tB-PER\nBerg\tI-PER\nmet\tO\nBram\tB-PER\nin\tO\nLisbon\tB-LOC\n\n"
    "Chen\tB-PER\nat\tO\nAcme\tB-ORG\n\n"
)
PRED = (
    "Ana\tB-PER\nBerg\tO\nmet\tO\nBram\tB-ORG\nin\tO\nLisbon\tO\n\n"
    "Chen\tB-PER\nat\tB-LOC\nAcme\tB-ORG\n\n"
)


def pair(tmp_path):
    gold, pred = tmp_path / "gold.conll", tmp_path / "pred.conll"
    gold.write_text(GOLD, encoding="utf-8")
    pred.write_text(PRED, encoding="utf-8")
    return gold, pred


def runs(report) -> list[dict]:
    return report.to_dict()["result"]["levels"]["labels"]


def test_the_text_table_skips_the_strings_and_json_and_markdown_keep_them(tmp_path):
    gold, pred = pair(tmp_path)
    counted = runs(evaluate_files(gold, pred, output_format="json"))
    assert runs(evaluate_files(gold, pred, output_format="markdown")) == counted
    assert runs(evaluate_files(gold, pred, error_strings=True)) == counted
    assert counted[0]["frequent_errors"]["LOC"]["missed"]  # "Lisbon"
    skipped = runs(evaluate_files(gold, pred))  # text: nothing shows them
    assert not any(skipped[0]["frequent_errors"].values())
    for a, b in zip(skipped, counted, strict=True):
        a.pop("frequent_errors"), b.pop("frequent_errors")
    assert skipped == counted


def test_an_evaluator_without_strings_scores_the_same():
    docs = [
        Document.create(
            id="d",
            text="Ana Berg met Bram in Lisbon",
            gold=[(0, 8, "PER"), (13, 17, "PER"), (21, 27, "LOC")],
            pred=[(0, 3, "PER"), (13, 17, "ORG")],
        )
    ]
    full = SpanEvaluator(max_errors=5).evaluate(docs)
    lean = SpanEvaluator(max_errors=5, error_strings=False).evaluate(docs)
    full_run, lean_run = full.levels["labels"][0], lean.levels["labels"][0]
    assert full_run.frequent_errors() and not lean_run.frequent_errors()
    a, b = full_run.to_dict(), lean_run.to_dict()
    a.pop("frequent_errors"), b.pop("frequent_errors")
    assert a == b
