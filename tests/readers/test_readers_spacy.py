"""DocBin files and trained pipelines as inputs (a rule-based pipeline: nothing to download)."""

from __future__ import annotations

import json

import numpy
import pytest

spacy = pytest.importorskip("spacy")

from spacy.language import Language  # noqa: E402
from spacy.tokens import DocBin, Span  # noqa: E402

from spacy_span_eval import InvalidInputError  # noqa: E402
from spacy_span_eval.adapters.spacy_docs import DOC_ID_KEY  # noqa: E402
from spacy_span_eval.api import evaluate_files  # noqa: E402
from spacy_span_eval.readers.docbin import read_docbin  # noqa: E402
from spacy_span_eval.readers.model import PipelineRun  # noqa: E402

from conftest import cli  # noqa: E402

TEXTS = ["Ana moved to New York in May .", "Bram works for Acme Health ."]
GOLD = [[(0, 1, "PERSON"), (3, 5, "GPE"), (6, 7, "DATE")], [(0, 1, "PERSON"), (3, 5, "ORG")]]
# What the rule-based "model" below finds: misses a DATE, cuts the ORG short.
PATTERNS = [
    {"label": "PERSON", "pattern": "Ana"},
    {"label": "PERSON", "pattern": "Bram"},
    {"label": "GPE", "pattern": [{"TEXT": "New"}, {"TEXT": "York"}]},
    {"label": "ORG", "pattern": "Acme"},
]


def make_docs(nlp, annotations, key=None, ids=False):
    docs = []
    for i, (text, spans) in enumerate(zip(TEXTS, annotations, strict=True)):
        doc = nlp.make_doc(text)
        made = [Span(doc, s, e, label=label) for s, e, label in spans]
        if key is None:
            doc.ents = made
        else:
            doc.spans[key] = made
        if ids:
            doc.user_data[DOC_ID_KEY] = f"doc-{i}"
        docs.append(doc)
    return docs


def save(path, docs):
    DocBin(docs=docs, store_user_data=True).to_disk(path)
    return path


@pytest.fixture(scope="module")
def nlp():
    return spacy.blank("en")


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    pipeline = spacy.blank("en")
    ruler = pipeline.add_pipe("entity_ruler")
    ruler.add_patterns(PATTERNS)
    path = tmp_path_factory.mktemp("model") / "rules"
    pipeline.to_disk(path)
    return path


def test_docbin_records_keep_docs_and_ids(tmp_path, nlp):
    path = save(tmp_path / "gold.spacy", make_docs(nlp, GOLD, ids=True))
    records = list(read_docbin(path))
    assert [r.id for r in records] == ["doc-0", "doc-1"]
    assert records[0].text == TEXTS[0] and records[1].where.endswith("gold.spacy document 2")


@pytest.mark.parametrize("unit", ["char", "token"])
@pytest.mark.parametrize("key", [None, "sc"])
def test_docbin_gold_vs_docbin_pred(tmp_path, nlp, unit, key):
    pred = [[(0, 1, "PERSON"), (3, 5, "GPE")], [(0, 1, "PERSON"), (3, 4, "ORG")]]
    gold_path = save(tmp_path / "gold.spacy", make_docs(nlp, GOLD, key))
    pred_path = save(tmp_path / "pred.spacy", make_docs(nlp, pred, key))
    report = evaluate_files(gold_path, pred_path, strategy="exact", unit=unit, source=key or "ents")
    micro = report.result.micro
    assert (micro.num_annotated, micro.num_predicted, micro.tp) == (5, 4, 3)
    assert report.inputs["gold"]["format"] == "spacy"


def test_docbin_text_mismatch_names_both_files(tmp_path, nlp):
    other = spacy.blank("en").make_doc("Something else entirely .")
    gold_path = save(tmp_path / "gold.spacy", make_docs(nlp, GOLD))
    pred_path = save(tmp_path / "pred.spacy", [make_docs(nlp, GOLD)[0], other])
    with pytest.raises(InvalidInputError, match="gold.spacy document 2") as info:
        evaluate_files(gold_path, pred_path)
    assert "gold.spacy document 2" in str(info.value) and "pred.spacy document 2" in str(info.value)


def test_corrupt_docbin_is_an_input_error(tmp_path):
    path = tmp_path / "bad.spacy"
    path.write_bytes(b"not a docbin")
    with pytest.raises(InvalidInputError, match=r"bad\.spacy: not a readable spaCy DocBin"):
        list(read_docbin(path))


@pytest.mark.parametrize("unit", ["token", "char"])
def test_model_on_conll_gold(tmp_path, model_dir, unit):
    gold = tmp_path / "gold.conll"
    gold.write_text(
        "Ana B-PERSON\nmoved O\nto O\nNew B-GPE\nYork I-GPE\nin O\nMay B-DATE\n. O\n"
        "\nBram B-PERSON\nworks O\nfor O\nAcme B-ORG\nHealth I-ORG\n. O\n"
    )
    report = evaluate_files(gold, model=str(model_dir), strategy="exact", unit=unit)
    per = report.result.per_label
    assert per["PERSON"].tp == 2 and per["GPE"].tp == 1
    assert per["DATE"].fn == 1 and per["ORG"].fp == 1 and per["ORG"].fn == 1
    assert report.inputs["predicted"] == {
        "path": str(model_dir),
        "format": "model",
        "documents": 2,
        "spans": 4,
        "repaired": 0,
    }


def test_model_on_jsonl_gold_and_two_processes(tmp_path, model_dir):
    gold = tmp_path / "gold.jsonl"
    gold.write_text(
        '{"text": "Ana moved to New York in May .", "spans": ['
        '{"start": 0, "end": 3, "label": "PERSON"},'
        '{"start": 13, "end": 21, "label": "GPE"}]}\n' * 6
    )
    one = evaluate_files(gold, model=str(model_dir), strategy="exact")
    two = evaluate_files(gold, model=str(model_dir), strategy="exact", n_process=2, batch_size=2)
    assert one.result.to_dict() == two.result.to_dict()
    assert one.result.micro.tp == 12 and one.result.micro.fp == 0


def test_model_on_docbin_gold(tmp_path, nlp, model_dir):
    path = save(tmp_path / "gold.spacy", make_docs(nlp, GOLD, ids=True))
    report = evaluate_files(path, model=str(model_dir), strategy="exact", unit="token")
    assert report.result.micro.tp == 3
    ids = {e.document for e in report.result.scores().errors}
    assert ids == set()  # max_errors=0 by default: nothing kept, totals still exact
    report = evaluate_files(path, model=str(model_dir), strategy="exact", errors=10)
    assert {e.document for e in report.result.scores().errors} == {"doc-0", "doc-1"}


def test_unknown_model_is_an_input_error(tmp_path):
    gold = tmp_path / "gold.conll"
    gold.write_text("Ana B-PER\n")
    with pytest.raises(InvalidInputError, match="cannot load the pipeline 'no_such_model_xyz'"):
        evaluate_files(gold, model="no_such_model_xyz")


def test_the_same_docbin_on_both_sides_is_perfect(tmp_path, nlp):
    path = save(tmp_path / "gold.spacy", make_docs(nlp, GOLD))
    micro = evaluate_files(path, path, strategy="two_sided").result.micro
    assert micro.tp == micro.credited == micro.num_annotated == 5 and micro.fp == micro.fn == 0


def test_a_token_the_pipeline_cannot_take_names_the_line(tmp_path, model_dir):
    gold = tmp_path / "gold.conll"
    gold.write_text("Ana\tB-PERSON\n\tO\n")  # an empty token, as BTC has
    with pytest.raises(InvalidInputError, match=r"gold\.conll line 1: the pipeline cannot"):
        evaluate_files(gold, model=str(model_dir))


def test_docbins_written_one_after_another_are_all_read(tmp_path, nlp):
    docs = make_docs(nlp, GOLD, ids=True)
    path = tmp_path / "both.spacy"
    path.write_bytes(b"".join(DocBin(docs=[d], store_user_data=True).to_bytes() for d in docs))
    records = list(read_docbin(path))
    assert [r.id for r in records] == ["doc-0", "doc-1"]
    assert [r.key for r in records] == ["both.spacy#1", "both.spacy#2"]


def test_bytes_after_a_docbin_are_refused_naming_the_file(tmp_path, nlp):
    path = tmp_path / "tail.spacy"
    path.write_bytes(DocBin(docs=make_docs(nlp, GOLD)).to_bytes() + b"trailing junk")
    with pytest.raises(InvalidInputError, match=r"tail\.spacy: not a readable spaCy DocBin"):
        list(read_docbin(path))


@pytest.mark.parametrize("name", ["pipe.spacy", "pipe.conll", "pipe.jsonl"])
def test_a_named_pipe_is_refused_naming_it(tmp_path, nlp, name):
    import os
    import threading

    from conftest import cli

    gold = save(tmp_path / "gold.spacy", make_docs(nlp, GOLD))
    fifo = tmp_path / name
    os.mkfifo(fifo)
    done = threading.Event()

    def writer():  # (a reader that opens the pipe gets the gold bytes, never waits forever)
        while not done.is_set():
            with open(fifo, "wb") as fh:
                fh.write(b"" if done.is_set() else gold.read_bytes())

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    try:
        code, out = cli("evaluate", gold, fifo)
    finally:
        done.set()
        os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
        thread.join(5)
    assert code == 2, out
    assert f"{fifo}: not a regular file" in out, out


# Span-group scores (semantics §9): Ana, moved (a wrong PERSON), New York, May; Bram.
SCORED = [
    [(0, 1, "PERSON", 0.9), (1, 2, "PERSON", 0.6), (3, 5, "GPE", 0.8), (6, 7, "DATE", 0.3)],
    [(0, 1, "PERSON", 0.7)],
]
# Worked by hand. PERSON: 0.9 TP, 0.7 TP, 0.6 FP of 2 gold -> AP .5*1 + .5*1 = 1; GPE, DATE:
# 1; ORG never predicted: 0; mAP 3/4. Micro, 5 gold: 0.9, 0.8, 0.7 TP, 0.6 FP, 0.3 TP ->
# AP .2 + .2 + .2 + .2 * 4/5 = .76.
SCORED_AP = {"PERSON": 1.0, "GPE": 1.0, "DATE": 1.0, "ORG": 0.0}


def scored_docs(nlp, key="sc"):
    docs = make_docs(nlp, [[s[:3] for s in doc] for doc in SCORED], key)
    for doc, spans in zip(docs, SCORED, strict=True):
        doc.spans[key].attrs["scores"] = numpy.array([s[3] for s in spans])
    return docs


def check_scored_sweep(sweep):
    assert {k: v["average_precision"] for k, v in sweep["per_label"].items()} == SCORED_AP
    assert sweep["map"] == pytest.approx(0.75)
    assert sweep["micro"]["average_precision"] == pytest.approx(0.76)
    points = sweep["per_label"]["PERSON"]["points"]
    assert [(p["score"], p["tp"], p["fp"]) for p in points] == [
        (0.9, 1, 0),
        (0.7, 2, 0),
        (0.6, 2, 1),
    ]


@pytest.mark.parametrize("unit", ["char", "token"])
def test_span_group_scores_are_swept(tmp_path, nlp, unit):
    gold_path = save(tmp_path / "gold.spacy", make_docs(nlp, GOLD, "sc"))
    pred_path = save(tmp_path / "pred.spacy", scored_docs(nlp))
    code, out = cli(
        "evaluate", str(gold_path), str(pred_path), "--spans-key", "sc", "--sweep",
        "--unit", unit, "--format", "json", "--quiet",
    )  # fmt: skip
    assert code == 0, out
    check_scored_sweep(json.loads(out)["result"]["sweep"][0])


def test_ents_and_groups_without_scores_are_unscored(tmp_path, nlp):
    gold_path = save(tmp_path / "gold.spacy", make_docs(nlp, GOLD))
    pred_path = save(tmp_path / "pred.spacy", make_docs(nlp, GOLD))
    with pytest.raises(InvalidInputError, match="5 prediction.s. have no score"):
        evaluate_files(gold_path, pred_path, sweep=True)


def test_a_spancat_pipelines_scores_are_swept(tmp_path, nlp):
    """A ``--model`` run: the pipeline's span group keeps its ``attrs["scores"]``."""
    pipeline = spacy.blank("en")

    @Language.component("scored_spans_for_test")
    def scored_spans(doc):  # what spancat leaves: the spans and one score per span
        (spans,) = [s for s, text in zip(SCORED, TEXTS, strict=True) if text == doc.text]
        doc.spans["sc"] = [Span(doc, s, e, label=label) for s, e, label, _ in spans]
        doc.spans["sc"].attrs["scores"] = numpy.array([s[3] for s in spans])
        return doc

    pipeline.add_pipe("scored_spans_for_test")
    gold_path = save(tmp_path / "gold.spacy", make_docs(nlp, GOLD, "sc"))
    report = evaluate_files(
        gold_path, model=PipelineRun("scored", pipeline), source="sc", sweep=True
    )
    assert report.result.sweep is not None
    check_scored_sweep(report.result.sweep[0])
