"""Bad input through the Python API, one table row per case: every
setting is checked before anything is read (NaN, infinity, 1e308, negatives), an item that is
not a Document or a span that is not a triple is an InvalidInputError naming it, a document in
another unit than the evaluator's is refused, an output that is an input is refused before
anything is read, and no output ever holds NaN."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from spacy_span_eval import Document, InvalidInputError, SpanEvaluator
from spacy_span_eval.api import (
    ScoringOptions,
    compare_files,
    evaluate_files,
    gate_files,
    report_files,
)
from spacy_span_eval.engine.bootstrap import bootstrap_intervals
from spacy_span_eval.engine.gates import Floor
from spacy_span_eval.engine.paired import paired_test
from spacy_span_eval.errors import InvalidSpanError
from spacy_span_eval.jobs.scoring import score_documents

NAN, INF = float("nan"), float("inf")
MISSING = "/nonexistent/gold.jsonl"  # settings are checked before any file is read


def doc(**kw) -> Document:
    return Document.create(
        id=kw.pop("id", "d1"),
        text="Ana met Bo",
        **{"gold": [(0, 3, "PER")], "pred": [(0, 3, "PER")], **kw},
    )


def token_doc() -> Document:
    return Document.create(
        id="t1", unit="token", tokens=["Ana", "met", "Bo"], gold=[(0, 1, "PER")], pred=[]
    )


@dataclass
class Case:
    id: str
    call: Callable[[], object]
    error: type[Exception]
    says: str


CASES = [
    # -- settings of the engine -----------------------------------------------------------
    *(
        Case(
            f"beta={b!r}",
            lambda b=b: SpanEvaluator(beta=b),
            InvalidInputError,
            f"beta must be a finite number > 0 (e.g. 1.0, or 2.0 to weigh recall higher), "
            f"not {b!r}",
        )
        for b in (NAN, INF, -INF, 1e308, 1e200, -2.0, 0, True, "2")
    ),
    *(
        Case(
            f"zero_division={z!r}",
            lambda z=z: SpanEvaluator(zero_division=z),
            InvalidInputError,
            f"zero_division must be None or a number in [0, 1], not {z!r}",
        )
        for z in (NAN, INF, 5, -0.5, 1.5, "0")
    ),
    *(
        Case(
            f"context={c!r}",
            lambda c=c: SpanEvaluator(context=c),
            InvalidInputError,
            f"context must be a whole number >= 0, not {c!r}",
        )
        for c in (-5, 1.5, NAN, True)
    ),
    Case(
        "max_errors=-1",
        lambda: SpanEvaluator(max_errors=-1),
        InvalidInputError,
        "max_errors (None keeps all) must be a whole number >= 0, not -1",
    ),
    *(
        Case(
            f"thresholds=({t!r},)",
            lambda t=t: SpanEvaluator(thresholds=(t,)),
            InvalidInputError,
            f"IoU thresholds must be in (0, 1], not {t!r}",
        )
        for t in (NAN, INF, 0, 1.5, -0.5, 1e308)
    ),
    # -- the same settings through the file API: refused before the (missing) file ------
    Case(
        "evaluate_files beta nan",
        lambda: evaluate_files(MISSING, MISSING, beta=NAN),
        InvalidInputError,
        "beta must be a finite number > 0",
    ),
    Case(
        "evaluate_files beta 1e308",
        lambda: evaluate_files(MISSING, MISSING, beta=1e308),
        InvalidInputError,
        "not 1e+308",
    ),
    Case(
        "evaluate_files threshold inf",
        lambda: evaluate_files(MISSING, MISSING, thresholds=[0.5, INF]),
        InvalidInputError,
        "IoU thresholds must be in (0, 1], not inf",
    ),
    Case(
        "evaluate_files errors -1",
        lambda: evaluate_files(MISSING, MISSING, errors=-1),
        InvalidInputError,
        "errors must be a whole number >= 0, not -1",
    ),
    Case(
        "gate_files beta -1",
        lambda: gate_files(MISSING, MISSING, floors=MISSING, beta=-1),
        InvalidInputError,
        "beta must be a finite number > 0",
    ),
    Case("ScoringOptions beta inf", lambda: ScoringOptions(beta=INF), InvalidInputError, "not inf"),
    Case(
        "report_files seed -5",
        lambda: report_files(MISSING, MISSING, seed=-5),
        InvalidInputError,
        "seed must be a whole number >= 0, not -5",
    ),
    Case(
        "report_files confidence nan",
        lambda: report_files(MISSING, MISSING, confidence=NAN),
        InvalidInputError,
        "confidence must be a number in (0, 1), not nan",
    ),
    Case(
        "report_files confidence 1",
        lambda: report_files(MISSING, MISSING, confidence=1),
        InvalidInputError,
        "confidence must be a number in (0, 1), not 1",
    ),
    Case(
        "report_files resamples -1",
        lambda: report_files(MISSING, MISSING, resamples=-1),
        InvalidInputError,
        "resamples must be a whole number >= 0, not -1",
    ),
    Case(
        "report_files threshold nan",
        lambda: report_files(MISSING, MISSING, threshold=NAN),
        InvalidInputError,
        "IoU thresholds must be in (0, 1], not nan",
    ),
    Case(
        "compare_files resamples 0",
        lambda: compare_files(MISSING, MISSING, MISSING, resamples=0),
        InvalidInputError,
        "resamples must be a whole number >= 1, not 0",
    ),
    Case(
        "compare_files resamples 10**14",
        lambda: compare_files(MISSING, MISSING, MISSING, resamples=10**14),
        InvalidInputError,
        "resamples must be at most 100000, not 100000000000000",
    ),
    Case(
        "compare_files seed 1.5",
        lambda: compare_files(MISSING, MISSING, MISSING, seed=1.5),
        InvalidInputError,
        "seed must be a whole number >= 0, not 1.5",
    ),
    Case(
        "compare_files confidence inf",
        lambda: compare_files(MISSING, MISSING, MISSING, confidence=INF),
        InvalidInputError,
        "confidence must be a number in (0, 1), not inf",
    ),
    Case(
        "compare_files beta nan",
        lambda: compare_files(MISSING, MISSING, MISSING, beta=NAN),
        InvalidInputError,
        "beta must be a finite number > 0",
    ),
    Case(
        "compare_files method",
        lambda: compare_files(MISSING, MISSING, MISSING, method="t-test"),
        ValueError,
        "unknown method 't-test'",
    ),
    # -- intervals and paired tests on results ------------------------------------------
    Case(
        "bootstrap seed -5",
        lambda: bootstrap_intervals(SpanEvaluator(per_document=True).evaluate([doc()]), seed=-5),
        InvalidInputError,
        "seed must be a whole number >= 0, not -5",
    ),
    Case(
        "paired_test confidence nan",
        lambda: paired_test(
            SpanEvaluator(per_document=True).evaluate([doc()]),
            SpanEvaluator(per_document=True).evaluate([doc()]),
            confidence=NAN,
        ),
        InvalidInputError,
        "confidence must be a number in (0, 1), not nan",
    ),
    # -- floors ----------------------------------------------------------------------------
    Case(
        "floor nan",
        lambda: Floor("SSN", recall=NAN),
        InvalidInputError,
        "floors for 'SSN': recall floor must be a number in [0, 1], not nan",
    ),
    Case(
        "floor 1.5",
        lambda: Floor("SSN", f=1.5),
        InvalidInputError,
        "f floor must be a number in [0, 1], not 1.5",
    ),
    # -- documents and spans ---------------------------------------------------------------
    Case(
        "a string in the documents",
        lambda: SpanEvaluator().evaluate([doc(), "Ana met Bo"]),
        InvalidInputError,
        "item 1 of the documents (counting from 0) is str 'Ana met Bo', not a Document",
    ),
    Case(
        "a dict in the documents",
        lambda: SpanEvaluator().evaluate([{"text": "Ana", "spans": []}]),
        InvalidInputError,
        "item 0 of the documents (counting from 0) is dict",
    ),
    Case(
        "None in the documents",
        lambda: SpanEvaluator().tally([doc(), doc(id="d2"), None]),
        InvalidInputError,
        "item 2 of the documents (counting from 0) is NoneType None",
    ),
    Case(
        "a non-document in parallel scoring",
        lambda: score_documents([doc(), 42], SpanEvaluator(), n_process=2),
        InvalidInputError,
        "item 1 of the documents (counting from 0) is int 42",
    ),
    Case(
        "a token document in a char evaluator",
        lambda: SpanEvaluator().evaluate([doc(), token_doc()]),
        InvalidInputError,
        "document 't1' (item 1) is in token unit, but the evaluator scores in char unit",
    ),
    Case(
        "a char document in a token evaluator",
        lambda: SpanEvaluator(unit="token").evaluate([doc()]),
        InvalidInputError,
        "document 'd1' (item 0) is in char unit, but the evaluator scores in token unit",
    ),
    Case(
        "a 2-tuple span",
        lambda: doc(gold=[(0, 3)]),
        InvalidSpanError,
        "document 'd1', gold span #0 (0, 3): a span is a Span or a (start, end, label) triple",
    ),
    Case(
        "a 4-tuple span",
        lambda: doc(pred=[(0, 3, "PER", 1.0)]),
        InvalidSpanError,
        "document 'd1', predicted span #0 (0, 3, 'PER', 1.0): a span is a Span or a",
    ),
    Case(
        "a bare number as a span",
        lambda: doc(gold=[7]),
        InvalidSpanError,
        "document 'd1', gold span #0 7: a span is a Span or a (start, end, label) triple",
    ),
    Case(
        "a 5,000-digit offset",
        lambda: doc(gold=[(0, 10**4999, "PER")]),
        InvalidSpanError,
        "document 'd1', gold span #0 (0, <a ~5000-digit number>, 'PER'): end is past the "
        "end of the document (10)",
    ),
    Case(
        "a 30-digit negative start",
        lambda: doc(gold=[(-(10**29), 3, "PER")]),
        InvalidSpanError,
        "(<a 30-digit number>, 3, 'PER'): start is negative",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_named(case):
    with pytest.raises(case.error) as info:
        case.call()
    assert case.says in str(info.value)
    assert "\n" not in str(info.value)  # one line


def test_settings_errors_are_input_errors_and_value_errors():
    # The CLI maps InvalidInputError to exit 2; code catching ValueError still works.
    with pytest.raises(ValueError):
        SpanEvaluator(beta=NAN)


# -- outputs that are inputs ------------------------------------------------------------------
GOLD = '{"id": "d1", "text": "Ana met Bo", "spans": [{"start": 0, "end": 3, "label": "PER"}]}\n'


@pytest.fixture
def inputs(tmp_path):
    gold, pred = tmp_path / "gold.jsonl", tmp_path / "pred.jsonl"
    gold.write_text(GOLD)
    pred.write_text(GOLD)
    floors = tmp_path / "floors.json"
    floors.write_text('{"floors": {"PER": {"recall": 0.5}}}')
    labels = tmp_path / "labels.json"
    labels.write_text('{"PER": ["PERSON"]}')
    tree = tmp_path / "tree.json"
    tree.write_text('{"branch": {"PER": "ENTITY"}}')
    link = tmp_path / "link.jsonl"
    link.symlink_to(gold)
    hard = tmp_path / "hard.jsonl"
    os.link(pred, hard)
    return {
        "gold": gold,
        "pred": pred,
        "floors": floors,
        "labels": labels,
        "tree": tree,
        "link": link,
        "hard": hard,
    }


OUTPUT_CASES = [
    ("evaluate -o gold", "gold", lambda f, out: evaluate_files(f["gold"], f["pred"], output=out)),
    ("evaluate -o pred", "pred", lambda f, out: evaluate_files(f["gold"], f["pred"], output=out)),
    (
        "evaluate -o a link to gold",
        "link",
        lambda f, out: evaluate_files(f["gold"], f["pred"], output=out),
    ),
    (
        "evaluate -o a hard link to pred",
        "hard",
        lambda f, out: evaluate_files(f["gold"], f["pred"], output=out),
    ),
    (
        "evaluate -o label map",
        "labels",
        lambda f, out: evaluate_files(f["gold"], f["pred"], label_map=f["labels"], output=out),
    ),
    (
        "evaluate -o hierarchy",
        "tree",
        lambda f, out: evaluate_files(f["gold"], f["pred"], hierarchy=f["tree"], output=out),
    ),
    (
        "gate -o floors",
        "floors",
        lambda f, out: gate_files(f["gold"], f["pred"], floors=f["floors"], output=out),
    ),
    (
        "report -o pred",
        "pred",
        lambda f, out: report_files(f["gold"], f["pred"], output=out, resamples=0),
    ),
    (
        "report -o floors",
        "floors",
        lambda f, out: report_files(
            f["gold"], f["pred"], floors=f["floors"], output=out, resamples=0
        ),
    ),
    (
        "compare -o pred_b",
        "pred",
        lambda f, out: compare_files(f["gold"], f["gold"], f["pred"], output=out, resamples=10),
    ),
    (
        "compare -o label map",
        "labels",
        lambda f, out: compare_files(
            f["gold"], f["gold"], f["pred"], label_map=f["labels"], output=out, resamples=10
        ),
    ),
]


@pytest.mark.parametrize("name,which,call", OUTPUT_CASES, ids=[c[0] for c in OUTPUT_CASES])
def test_an_output_that_is_an_input_is_refused_and_the_input_kept(inputs, name, which, call):
    out = inputs[which]
    before = {k: p.read_bytes() for k, p in inputs.items()}
    with pytest.raises(InvalidInputError) as info:
        call(inputs, out)
    message = str(info.value)
    assert message.startswith(f"{out}: the output is ") and "refusing to overwrite" in message
    assert {k: p.read_bytes() for k, p in inputs.items()} == before


def test_an_output_beside_the_inputs_is_fine(inputs, tmp_path):
    out = tmp_path / "report.json"
    evaluate_files(inputs["gold"], inputs["pred"], output_format="json", output=out)
    assert json.loads(out.read_text())["command"] == "evaluate"


# -- no NaN in any output ---------------------------------------------------------------------
@pytest.mark.parametrize("zero_division", [None, 0.0, 1.0])
def test_to_dict_never_holds_nan(zero_division):
    docs = [doc(), doc(id="d2", gold=[], pred=[(4, 7, "ORG")])]
    result = SpanEvaluator(zero_division=zero_division, per_document=True).evaluate(docs)
    text = json.dumps(result.to_dict(), allow_nan=False)  # raises on NaN or infinity
    assert "NaN" not in text
    bi = bootstrap_intervals(result, resamples=20)
    json.dumps(bi.to_dict(), allow_nan=False)
    assert not any(
        isinstance(v, float) and math.isnan(v) for v in result.to_dict()["settings"].values()
    )
