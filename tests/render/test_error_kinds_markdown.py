"""``-f markdown`` shows the whole corpus's errors by kind per label and the most frequent
error strings, with the figures of the JSON."""

from __future__ import annotations

from spacy_span_eval import Document, SpanEvaluator
from spacy_span_eval.render.text import result_markdown

TEXT = "Ada Lovelace met Bob at Acme Corp | Ltd in Paris"


def result():
    def at(word: str) -> tuple[int, int]:
        s = TEXT.index(word)
        return s, s + len(word)

    gold = [(*at("Ada Lovelace"), "PER"), (*at("Bob"), "PER"), (*at("Acme Corp | Ltd"), "ORG")]
    gold.append((*at("Paris"), "LOC"))
    pred = [(*at("Ada"), "PER"), (*at("Bob"), "ORG"), (*at("Acme Corp | Ltd"), "ORG")]
    pred.append((*at("met"), "LOC"))
    docs = [Document.create(id=f"d{i}", text=TEXT, gold=gold, pred=pred) for i in range(3)]
    return SpanEvaluator(strategy="two_sided", thresholds=(0.5,)).evaluate(docs)


def test_markdown_has_the_kind_table_and_the_frequent_strings():
    res = result()
    md = result_markdown(res)
    kinds = res.scores().error_kinds()
    assert kinds is not None
    per = kinds["PER"]
    # Ada Lovelace: boundary (Ada overlaps at IoU 0.25); Bob: relabelled as ORG
    assert (per.missed, per.boundary_gold, per.wrong_label_gold, per.fn) == (0, 3, 3, 6)
    assert (per.spurious, per.boundary_predicted, per.wrong_label_predicted) == (0, 3, 0)
    assert "| PER | 0 | 3 | 3 | 6 | 0 | 3 | 0 | 3 |" in md
    assert kinds["LOC"].missed == 3 and kinds["LOC"].spurious == 3
    assert "| all labels |" in md
    assert "Bob → ORG ×3" in md and "Paris ×3" in md and "met ×3" in md
    # The missed and spurious columns hold what the kinds table calls missed and spurious:
    # the boundary error (Ada Lovelace found as Ada) is neither.
    assert "| PER |  |  | Bob → ORG ×3 |" in md and "Ada" not in md.split("Most frequent")[1]
    frequent = res.scores().frequent_errors()
    for label, k in kinds.items():
        counts = {kind: sum(n for *_, n in rows) for kind, rows in frequent.get(label, {}).items()}
        assert counts.get("missed", 0) == k.missed and counts.get("spurious", 0) == k.spurious
    assert "Acme Corp \\| Ltd" not in md  # found: never an error string
