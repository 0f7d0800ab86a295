"""semeval's schemas count unaligned spans (ones a reader could not put in the unit) as the
ledger does (semantics §2.5): an unaligned annotation is one ``missed`` and an unaligned
prediction one ``spurious``, of its label and overall, in every schema; identical ones are one.
Values worked by hand on one document."""

from __future__ import annotations

from spacy_span_eval import Document, Span, SpanEvaluator

SCHEMAS = ("strict", "exact", "partial", "ent_type")
COUNTS = ("correct", "incorrect", "partial", "missed", "spurious")


def doc(duplicates: int = 1) -> Document:
    # Aligned: LOC "Rome" found, PER "Call" predicted where there is no annotation.
    # Unaligned: a LOC annotation and an ORG prediction inside the token "Ana".
    return Document.create(
        id="d",
        unit="token",
        tokens=["Call", "Ana", "in", "Rome"],
        gold=[(3, 4, "LOC")],
        pred=[(3, 4, "LOC"), (0, 1, "PER")],
        unaligned_gold=[(Span(5, 7, "LOC"), "inside a token")] * duplicates,
        unaligned_pred=[(Span(6, 7, "ORG"), "inside a token")] * duplicates,
    )


def counts(table: dict) -> dict[str, tuple[int, ...]]:
    return {schema: tuple(table[schema][c] for c in COUNTS) for schema in SCHEMAS}


def scored(duplicates: int = 1):
    result = SpanEvaluator(unit="token", strategy="semeval").evaluate([doc(duplicates)])
    assert result.notes["unaligned_gold"] == duplicates
    assert result.notes["unaligned_predictions"] == duplicates
    run = result.scores()
    return run, run.side.to_dict()


def test_unaligned_spans_are_missed_and_spurious_in_every_schema():
    run, side = scored()
    # correct, incorrect, partial, missed, spurious: the same in each schema here (the only
    # overlapping pair is identical)
    assert counts(side["overall"]) == dict.fromkeys(SCHEMAS, (1, 0, 0, 1, 2))
    assert counts(side["per_label"]["LOC"]) == dict.fromkeys(SCHEMAS, (1, 0, 0, 1, 0))
    assert counts(side["per_label"]["ORG"]) == dict.fromkeys(SCHEMAS, (0, 0, 0, 0, 1))
    assert counts(side["per_label"]["PER"]) == dict.fromkeys(SCHEMAS, (0, 0, 0, 0, 1))
    strict = side["overall"]["strict"]
    assert (strict["possible"], strict["actual"]) == (2, 3)
    assert (strict["precision"], strict["recall"]) == (1 / 3, 1 / 2)


def test_the_strict_schema_is_the_ledger_with_unaligned_spans():
    run, side = scored()
    for label, ledger in run.per_label.items():
        strict = side["per_label"][label]["strict"]
        assert (strict["possible"], strict["actual"], strict["correct"]) == (
            ledger.num_annotated,
            ledger.num_predicted,
            ledger.tp,
        ), label
    strict = side["overall"]["strict"]
    assert (strict["precision"], strict["recall"]) == (run.micro.precision(), run.micro.recall())


def test_identical_unaligned_spans_are_one():
    _, side = scored(duplicates=3)
    assert counts(side["overall"]) == dict.fromkeys(SCHEMAS, (1, 0, 0, 1, 2))
    assert side["per_label"]["LOC"]["strict"]["missed"] == 1
    assert side["per_label"]["ORG"]["strict"]["spurious"] == 1
