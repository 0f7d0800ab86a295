"""Gold a tokenizer cannot represent (semantics §1): ``convert`` keeps it beside the ``Doc``
(``user_data["span_eval_kept_gold"]``, saved in the ``.spacy`` file), and every later score
counts it — the registered scorers, the ``span_eval`` component, the CLI's evaluate, gate and
report — in char unit like any span, in token unit as an FN with its reason.

Expected counts come from the source files, read here independently of the package."""

from __future__ import annotations

import json
import re
from collections import Counter
from functools import partial

import pytest
import spacy
from spacy.scorer import get_ner_prf
from spacy.tokens import DocBin
from spacy.training import Example
from typer.testing import CliRunner

from spacy_span_eval import InvalidInputError, InvalidSpanError, Span
from spacy_span_eval.adapters.scorers import make_ents_scorer
from spacy_span_eval.adapters.spacy_docs import DOC_ID_KEY, KEPT_GOLD_KEY, kept_gold_spans
from spacy_span_eval.cli import app
from spacy_span_eval.jobs.convert import convert_split

from conftest import data_path
from spacy_doc_factory import score_ents, score_spans

runner = CliRunner()

# Offsets by hand; the comments say how spaCy's English tokenizer cuts the text.
GOLD = [
    {
        "id": "a",
        "text": "Server 10.0.0.1:8080 is down, says Ana Berg",
        "spans": [
            {"start": 7, "end": 15, "label": "IP_ADDRESS"},  # inside "10.0.0.1:8080"
            {"start": 35, "end": 43, "label": "PERSON"},
        ],
    },
    {
        "id": "b",
        "text": "Ring 0100ext2 or 555-0199 today",
        "spans": [
            {"start": 5, "end": 9, "label": "PHONE_NUMBER"},  # inside "0100ext2"
            {"start": 17, "end": 25, "label": "PHONE_NUMBER"},
        ],
    },  # 555 - 0199: tokens
    {
        "id": "c",
        "text": "Bo met Ana",
        "spans": [
            {"start": 0, "end": 2, "label": "PERSON"},
            {"start": 7, "end": 10, "label": "PERSON"},
        ],
    },
]
SOURCE_COUNTS = {"IP_ADDRESS": 1, "PHONE_NUMBER": 2, "PERSON": 3}
OFF_TOKEN = {"IP_ADDRESS": 1, "PHONE_NUMBER": 1}


def write_jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture
def gold_spacy(tmp_path):
    source = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    out = tmp_path / "gold.spacy"
    report = convert_split(str(source), out)
    return out, report


@pytest.fixture
def model_dir(tmp_path):
    """A rule pipeline: finds "Ana Berg", "Bo", "555-0199" and the whole "10.0.0.1:8080"."""
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("entity_ruler")
    ruler.add_patterns(
        [
            {"label": "PERSON", "pattern": "Ana Berg"},
            {"label": "PERSON", "pattern": "Bo"},
            {"label": "PHONE_NUMBER", "pattern": "555-0199"},
            {"label": "IP_ADDRESS", "pattern": "10.0.0.1:8080"},
        ]
    )
    path = tmp_path / "model"
    nlp.to_disk(path)
    return path


def read_docs(path, vocab=None):
    return list(
        DocBin(store_user_data=True)
        .from_disk(path)
        .get_docs(vocab if vocab is not None else spacy.blank("en").vocab)
    )


def cli(*args, expect=0):
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == expect, result.output
    return result


def cli_json(*args, expect=0) -> dict:
    return json.loads(cli(*args, "--format", "json", expect=expect).stdout)


def annotated(run) -> dict[str, int]:
    return {
        label: row["num_annotated"]
        for label, row in run["per_label"].items()
        if row["num_annotated"]
    }


# -- convert ------------------------------------------------------------------------------------
def test_convert_keeps_off_token_gold_beside_the_doc(gold_spacy):
    path, report = gold_spacy
    assert (report.documents, report.spans) == (3, sum(SOURCE_COUNTS.values()))
    assert report.kept == OFF_TOKEN
    assert report.kept_summary() == (
        "kept beside the Doc, not on token boundaries: IP_ADDRESS 1, PHONE_NUMBER 1"
    )
    docs = read_docs(path)
    on_doc = sum(len(d.spans["sc"]) for d in docs)
    beside = sum(len(d.user_data.get(KEPT_GOLD_KEY, {}).get("sc", ())) for d in docs)
    assert on_doc + beside == report.spans  # nothing lost between the file and the DocBin
    assert [list(r) for r in docs[0].user_data[KEPT_GOLD_KEY]["ents"]] == [[7, 15, "IP_ADDRESS"]]
    assert docs[0].text[7:15] == "10.0.0.1"


def test_convert_command_lists_kept_spans_per_label(tmp_path):
    source = write_jsonl(tmp_path / "gold.jsonl", GOLD)
    raw = cli("convert", source, tmp_path / "gold.spacy").output
    out = " ".join(re.sub(r"\x1b\[[0-9;]*m", "", raw).split())  # wasabi wraps and colours
    assert "3 documents, 6 spans" in out
    assert (
        "2 of them kept beside the Doc, not on token boundaries: IP_ADDRESS 1, "
        "PHONE_NUMBER 1" in out
    )


def test_kept_spans_that_overlap_an_entity_stay_in_the_span_group_only(tmp_path):
    source = write_jsonl(
        tmp_path / "gold.jsonl",
        [
            {
                "id": "x",
                "text": "Call Ana now",
                "spans": [
                    {"start": 5, "end": 8, "label": "PERSON"},
                    {"start": 5, "end": 7, "label": "FIRST"},
                ],
            }
        ],
    )  # "An": inside "Ana", overlaps it
    report = convert_split(str(source), tmp_path / "out.spacy")
    assert report.kept == {"FIRST": 1}
    assert report.problems == {"overlapping span kept in doc.spans['sc'] only": 1}
    (doc,) = read_docs(tmp_path / "out.spacy")
    assert "ents" not in doc.user_data[KEPT_GOLD_KEY]
    assert [list(r) for r in doc.user_data[KEPT_GOLD_KEY]["sc"]] == [[5, 7, "FIRST"]]


# -- registered scorers and the component --------------------------------------------------------
def examples_from(path, nlp):
    return [Example(nlp(nlp.make_doc(doc.text)), doc) for doc in read_docs(path, nlp.vocab)]


def test_scorers_count_kept_gold_in_both_units(gold_spacy, model_dir):
    path, _ = gold_spacy
    nlp = spacy.load(model_dir)
    examples = examples_from(path, nlp)
    char = score_ents(examples, unit="char")
    per_type = char["ents_iou_per_type"]
    assert {k: row["num_annotated"] for k, row in per_type.items()} == SOURCE_COUNTS
    # "10.0.0.1" in "10.0.0.1:8080": IoU 8/13 >= 0.5, a match in char unit
    assert per_type["IP_ADDRESS"]["tp"] == 1.0
    assert per_type["PHONE_NUMBER"]["fn"] == 1.0  # "0100" inside "0100ext2": nothing found
    assert char["ents_kept_gold"] == 2.0 and char["ents_unaligned_gold"] == 0.0
    token = score_ents(examples, unit="token")
    per_type = token["ents_iou_per_type"]
    assert {k: row["num_annotated"] for k, row in per_type.items()} == SOURCE_COUNTS
    assert (per_type["IP_ADDRESS"]["tp"], per_type["IP_ADDRESS"]["fn"]) == (0.0, 1.0)
    assert token["ents_kept_gold"] == 2.0 and token["ents_unaligned_gold"] == 2.0
    # spaCy's own keys stay spaCy's: it cannot see gold beside the Doc
    theirs = get_ner_prf(examples)
    assert {k: token[k] for k in theirs} == theirs == {k: char[k] for k in theirs}


def test_scorers_report_kept_gold_in_replace_mode_and_under_the_exact_keys(gold_spacy, model_dir):
    path, _ = gold_spacy
    nlp = spacy.load(model_dir)
    scores = make_ents_scorer(mode="replace", unit="token")(examples_from(path, nlp))
    for prefix in ("ents", "ents_exact"):
        assert scores[f"{prefix}_per_type"]["PHONE_NUMBER"]["num_annotated"] == 2.0
        assert scores[f"{prefix}_per_type"]["PHONE_NUMBER"]["fn"] == 1.0


def test_component_counts_kept_gold(gold_spacy, model_dir):
    path, _ = gold_spacy
    nlp = spacy.load(model_dir)
    nlp.add_pipe("span_eval", config={"unit": "token"})
    gold = read_docs(path, nlp.vocab)
    scores = nlp.evaluate([Example(nlp.make_doc(doc.text), doc) for doc in gold])
    per_type = scores["span_eval_per_type"]
    assert {k: row["num_annotated"] for k, row in per_type.items()} == SOURCE_COUNTS
    assert scores["span_eval_unaligned_gold"] == 2.0 and scores["span_eval_kept_gold"] == 2.0


def test_span_group_scorer_counts_kept_gold(gold_spacy):
    path, _ = gold_spacy
    nlp = spacy.blank("en")
    examples = []
    for doc in read_docs(path, nlp.vocab):
        pred = nlp.make_doc(doc.text)
        pred.spans["sc"] = [
            pred.char_span(s.start_char, s.end_char, label=s.label_) for s in doc.spans["sc"]
        ]
        examples.append(Example(pred, doc))
    scores = score_spans(examples, spans_key="sc")
    per_type = scores["spans_sc_iou_per_type"]
    assert {k: row["num_annotated"] for k, row in per_type.items()} == SOURCE_COUNTS
    assert {k: row["tp"] for k, row in per_type.items()} == {
        k: float(n - OFF_TOKEN.get(k, 0)) for k, n in SOURCE_COUNTS.items()
    }
    assert scores["spans_sc_kept_gold"] == 2.0
    assert scores["spans_sc_r"] == 1.0  # spaCy's own figure: it sees only the Doc's spans


def test_a_predicted_doc_carrying_kept_gold_is_an_error(gold_spacy):
    path, _ = gold_spacy
    gold = read_docs(path)
    copied = gold[0].copy()  # e.g. a reference doc run through a pipeline: user_data travels
    assert KEPT_GOLD_KEY in copied.user_data
    with pytest.raises(InvalidInputError, match="'a'.*predicted doc carries gold spans"):
        score_ents([Example(copied, gold[0])])
    score_ents([Example(gold[0], gold[0])])  # the reference itself as prediction is fine


@pytest.mark.parametrize(
    "stored",
    [
        {"ents": [[7, 99, "IP"]]},
        {"ents": [[7, 15]]},
        {"ents": [[7.0, 15, "IP"]]},
        {"ents": [[7, 15, ""]]},
        {"ents": "7-15"},
        [[7, 15, "IP"]],
    ],
)
def test_malformed_kept_gold_is_an_error_naming_the_document(gold_spacy, stored):
    path, _ = gold_spacy
    gold = read_docs(path)[0]
    gold.user_data[KEPT_GOLD_KEY] = stored
    pred = spacy.blank("en").make_doc(gold.text)
    with pytest.raises(InvalidSpanError, match=r"document 'a'.*span_eval_kept_gold"):
        score_ents([Example(pred, gold)])


SERVER = "Server 10.0.0.1:8080 is"  # 23 characters
ENTRY = "document 'a', user_data['span_eval_kept_gold']"
NOT_A_ROW = "expected [start, end, label] with integer offsets and a non-empty label"


@pytest.mark.parametrize(
    ("stored", "message"),
    [
        (
            {"ents": [[7, 99, "IP"]]},
            "['ents'] #0 [7, 99, 'IP']: offsets outside the text (0 <= start < end <= 23)",
        ),
        (
            {"ents": [[-1, 5, "IP"]]},
            "['ents'] #0 [-1, 5, 'IP']: offsets outside the text (0 <= start < end <= 23)",
        ),
        (
            {"ents": [[0, 2, "IP"], [5, 5, "IP"]]},
            "['ents'] #1 [5, 5, 'IP']: offsets outside the text (0 <= start < end <= 23)",
        ),
        ({"ents": [[7, 15]]}, f"['ents'] #0 [7, 15]: {NOT_A_ROW}"),
        ({"ents": [[7, 15, "IP", "x"]]}, f"['ents'] #0 [7, 15, 'IP', 'x']: {NOT_A_ROW}"),
        ({"ents": ["7-15"]}, f"['ents'] #0 '7-15': {NOT_A_ROW}"),
        ({"ents": [[7.0, 15, "IP"]]}, f"['ents'] #0 [7.0, 15, 'IP']: {NOT_A_ROW}"),
        ({"ents": [[7, 15.0, "IP"]]}, f"['ents'] #0 [7, 15.0, 'IP']: {NOT_A_ROW}"),
        ({"ents": [[True, 15, "IP"]]}, f"['ents'] #0 [True, 15, 'IP']: {NOT_A_ROW}"),
        ({"ents": [[7, 15, ""]]}, f"['ents'] #0 [7, 15, '']: {NOT_A_ROW}"),
        ({"ents": [[7, 15, 3]]}, f"['ents'] #0 [7, 15, 3]: {NOT_A_ROW}"),
        ({"ents": "7-15"}, "['ents']: expected a list of [start, end, label], not str"),
        ([[7, 15, "IP"]], ": expected a mapping of source to spans, not list"),
    ],
)
def test_each_malformed_kept_gold_entry_is_refused_saying_what_is_wrong(stored, message):
    doc = spacy.blank("en").make_doc(SERVER)
    doc.user_data[KEPT_GOLD_KEY] = stored
    with pytest.raises(InvalidSpanError) as caught:
        kept_gold_spans(doc, "ents", "a")
    assert str(caught.value) == ENTRY + message


@pytest.mark.parametrize(
    ("stored", "spans"),
    [
        ({"ents": [[0, 23, "IP"], (7, 15, "IP")]}, [Span(0, 23, "IP"), Span(7, 15, "IP")]),
        ({"ents": None}, []),
        ({"ents": ()}, []),
        ({"sc": [[0, 2, "X"]]}, []),
        ({}, []),
    ],
)
def test_kept_gold_entries_are_read_as_character_spans_of_their_source(stored, spans):
    doc = spacy.blank("en").make_doc(SERVER)
    doc.user_data[KEPT_GOLD_KEY] = stored
    assert kept_gold_spans(doc, "ents") == spans


def test_a_kept_gold_refusal_names_the_doc_by_its_stored_id_unless_given_one():
    doc = spacy.blank("en").make_doc(SERVER)
    doc.user_data.update({KEPT_GOLD_KEY: [[7, 15, "IP"]], DOC_ID_KEY: "a"})
    with pytest.raises(InvalidSpanError, match=r"^document 'a', user_data"):
        kept_gold_spans(doc, "ents")


@pytest.mark.parametrize("source", ["ents", "sc"])
def test_malformed_kept_gold_of_a_doc_without_an_id_names_its_position(source):
    nlp = spacy.blank("en")
    fine = nlp.make_doc("Bo met Ana")
    bad = nlp.make_doc("Ring 0100ext2 today")
    bad.user_data[KEPT_GOLD_KEY] = {source: [[5, 99, "PHONE_NUMBER"]]}
    examples = [Example(nlp.make_doc(doc.text), doc) for doc in (fine, bad)]
    with pytest.raises(InvalidSpanError) as caught:
        (score_ents if source == "ents" else partial(score_spans, spans_key="sc"))(examples)
    assert str(caught.value) == (
        f"document '1', user_data['span_eval_kept_gold'][{source!r}] #0 [5, 99, "
        "'PHONE_NUMBER']: offsets outside the text (0 <= start < end <= 19)"
    )


# -- the CLI: evaluate, gate, report --------------------------------------------------------------
def test_evaluate_against_predictions_counts_kept_gold(gold_spacy, tmp_path):
    path, _ = gold_spacy
    pred = write_jsonl(
        tmp_path / "pred.jsonl",
        [
            {
                "id": "a",
                "text": GOLD[0]["text"],
                "spans": [{"start": 7, "end": 15, "label": "IP_ADDRESS"}],
            },
            {
                "id": "b",
                "text": GOLD[1]["text"],
                "spans": [{"start": 5, "end": 9, "label": "PHONE_NUMBER"}],
            },
            {"id": "c", "text": GOLD[2]["text"], "spans": []},
        ],
    )
    report = cli_json("evaluate", path, pred, "-t", "1.0")
    (run,) = report["result"]["levels"]["labels"]
    assert annotated(run) == SOURCE_COUNTS
    assert report["inputs"]["gold"]["spans"] == sum(SOURCE_COUNTS.values())
    assert run["per_label"]["IP_ADDRESS"]["tp"] == run["per_label"]["PHONE_NUMBER"]["tp"] == 1


def test_evaluate_with_a_model_in_token_unit_records_why(gold_spacy, model_dir):
    path, _ = gold_spacy
    report = cli_json("evaluate", path, "--model", model_dir, "--unit", "token", "--errors", "50")
    (run,) = report["result"]["levels"]["labels"]
    assert annotated(run) == SOURCE_COUNTS
    assert report["result"]["notes"]["unaligned_gold"] == 2
    why = [e for e in run["errors"] if e["reason"] and "kept beside the Doc" in e["reason"]]
    assert sorted((e["document"], e["label"], e["start"], e["end"], e["kind"]) for e in why) == [
        ("a", "IP_ADDRESS", 7, 15, "false_negative"),
        ("b", "PHONE_NUMBER", 5, 9, "false_negative"),
    ]
    assert "inside reference token '10.0.0.1:8080'" in why[0]["reason"] + why[1]["reason"]
    text = cli("evaluate", path, "--model", model_dir, "--unit", "token").output
    assert "unaligned gold 2" in text


def test_gate_fails_on_gold_that_a_doc_could_not_hold(gold_spacy, model_dir, tmp_path):
    path, _ = gold_spacy
    floors = tmp_path / "floors.json"
    floors.write_text(
        json.dumps(
            {
                "gate": {"strategy": "two_sided", "threshold": 0.5},
                "floors": {"PHONE_NUMBER": {"recall": 1.0}},
            }
        )
    )
    # "555-0199" is found; "0100" (inside "0100ext2") is not: recall 1/2, not 1/1
    report = cli_json("gate", path, "--model", model_dir, "--floors", floors, expect=1)
    assert report["gate"]["passed"] is False
    (run,) = report["result"]["levels"]["labels"]
    assert run["per_label"]["PHONE_NUMBER"]["num_annotated"] == 2


def test_report_shows_kept_gold_and_its_reason(gold_spacy, model_dir, tmp_path):
    path, _ = gold_spacy
    out = tmp_path / "report.html"
    cli(
        "report", path, "--model", model_dir, "--unit", "token", "--resamples", "0", "--output", out
    )
    html = out.read_text(encoding="utf-8")
    assert "unaligned gold: 2" in html
    assert "kept beside the Doc" in html


def test_predictions_spacy_carrying_kept_gold_is_refused(gold_spacy):
    path, _ = gold_spacy
    result = cli("evaluate", path, path, expect=2)
    assert "predicted doc carries gold spans" in result.output


# -- real corpora: no gold span lost between the file and the score -------------------------------
def presidio_subset(tmp_path):
    """The presidio documents with a span off spaCy's tokens, plus the first 40 others."""
    records = json.loads(
        data_path("presidio_synth", "synth_dataset_v2.json").read_text(encoding="utf-8")
    )
    nlp = spacy.blank("en")

    def off_token(record):
        doc = nlp.make_doc(record["full_text"])
        return any(
            doc.char_span(s["start_position"], s["end_position"]) is None for s in record["spans"]
        )

    cut = [r for r in records if off_token(r)]
    subset = cut + [r for r in records if not off_token(r)][:40]
    path = tmp_path / "presidio_subset.json"
    path.write_text(json.dumps(subset), encoding="utf-8")
    counts = Counter(s["entity_type"] for r in subset for s in r["spans"])
    off = Counter(
        s["entity_type"]
        for r in cut
        for s in r["spans"]
        if nlp.make_doc(r["full_text"]).char_span(s["start_position"], s["end_position"]) is None
    )
    return path, counts, off


@pytest.mark.slow  # a whole shared corpus
def test_presidio_every_gold_span_reaches_the_score(tmp_path):
    source, counts, off = presidio_subset(tmp_path)
    # the subset: 155 gold spans, 20 of them off spaCy's tokens (all five IP_ADDRESS)
    assert (sum(counts.values()), sum(off.values())) == (155, 20)
    assert counts["IP_ADDRESS"] == off["IP_ADDRESS"] == 5
    gold = tmp_path / "gold.spacy"
    report = convert_split(str(source), gold)
    assert report.spans == sum(counts.values())
    assert report.kept == off
    blank = tmp_path / "blank"
    spacy.blank("en").to_disk(blank)
    for unit in ("char", "token"):
        (run,) = cli_json("evaluate", gold, "--model", blank, "--unit", unit)["result"]["levels"][
            "labels"
        ]
        assert annotated(run) == counts, unit
    # against the source file itself as predictions, every span matches in char unit
    (run,) = cli_json("evaluate", gold, source, "-t", "1.0")["result"]["levels"]["labels"]
    assert annotated(run) == counts
    assert {k: row["tp"] for k, row in run["per_label"].items()} == counts
    nlp = spacy.blank("en")
    examples = [Example(nlp.make_doc(d.text), d) for d in read_docs(gold, nlp.vocab)]
    scores = score_ents(examples, unit="token")
    assert {k: row["num_annotated"] for k, row in scores["ents_iou_per_type"].items()} == counts
    assert scores["ents_unaligned_gold"] == sum(off.values())


def read_re3d_source(part):
    """``[(id, text, [(begin, end, type)])]`` of one re3d source, from its mongoexport files."""

    def lines(name):
        return [
            json.loads(line)
            for line in (part / name).read_text(encoding="utf-8-sig").splitlines()
            if line.strip()
        ]

    docs = {d["_id"]: (d["text"], []) for d in lines("documents.json")}
    for ent in lines("entities.json"):
        docs[ent["documentId"]][1].append((ent["begin"], ent["end"], ent["type"]))
    return [(doc_id, text, spans) for doc_id, (text, spans) in docs.items()]


@pytest.mark.slow  # a whole shared corpus
def test_re3d_every_gold_span_reaches_the_score(tmp_path):
    root = data_path("re3d")
    parts = sorted(p for p in root.iterdir() if (p / "documents.json").exists())
    assert len(parts) == 5
    blank = tmp_path / "blank"
    spacy.blank("en").to_disk(blank)
    total_kept = 0
    for part in parts:
        docs = read_re3d_source(part)
        counts = Counter(label for _, _, spans in docs for *_, label in spans)
        source = write_jsonl(
            tmp_path / f"{part.name}.jsonl",
            [
                {
                    "id": doc_id,
                    "text": text,
                    "spans": [{"start": b, "end": e, "label": t} for b, e, t in spans],
                }
                for doc_id, text, spans in docs
            ],
        )
        gold = tmp_path / f"{part.name}.spacy"
        report = convert_split(str(source), gold)
        assert report.spans == sum(counts.values())
        total_kept += sum(report.kept.values())
        (run,) = cli_json("evaluate", gold, source, "--spans-key", "sc", "-t", "1.0")["result"][
            "levels"
        ]["labels"]
        assert annotated(run) == counts, part.name
        assert {k: row["tp"] for k, row in run["per_label"].items()} == counts, part.name
        result = cli_json(
            "evaluate", gold, "--model", blank, "--spans-key", "sc", "--unit", "token"
        )["result"]
        assert annotated(result["levels"]["labels"][0]) == counts, part.name
        assert result["notes"].get("unaligned_gold", 0) == sum(report.kept.values())
        # Doc.ents cannot hold overlapping spans: what ents loses is exactly what convert
        # reported as overlapping (kept in the span group)
        (ents,) = cli_json("evaluate", gold, source, "-t", "1.0")["result"]["levels"]["labels"]
        overlapping = report.problems["overlapping span kept in doc.spans['sc'] only"]
        assert sum(annotated(ents).values()) + overlapping == sum(counts.values()), part.name
    assert total_kept > 100  # re3d has many offsets inside spaCy tokens


# -- the two adapter paths, annotation, re-conversion -------------------------------------------
@pytest.mark.parametrize("unit", ["char", "token"])
def test_batch_path_and_document_path_read_kept_gold_alike(gold_spacy, model_dir, unit):
    from spacy_span_eval import SpanEvaluator
    from spacy_span_eval.adapters.spacy_batches import examples_to_batch

    from spacy_doc_factory import examples_to_documents

    path, _ = gold_spacy
    examples = examples_from(path, spacy.load(model_dir))
    ev = SpanEvaluator(unit=unit, max_errors=None)
    by_docs = ev.evaluate(examples_to_documents(examples, unit=unit))
    converted = examples_to_batch(examples, unit=unit)
    by_batch = ev.tally_batch(converted.batch).result()
    assert dict(by_batch.scores().per_label) == dict(by_docs.scores().per_label)
    assert by_batch.notes == by_docs.notes
    assert converted.kept_gold == sum(OFF_TOKEN.values())
    reasons = [(e.document, e.reason) for e in by_docs.scores().errors if e.reason]
    assert reasons == [(e.document, e.reason) for e in by_batch.scores().errors if e.reason]


def test_a_reference_with_only_kept_gold_is_annotated():
    nlp = spacy.blank("en")
    gold = nlp.make_doc("Ring 0100ext2 today")
    assert not gold.has_annotation("ENT_IOB")
    gold.user_data[KEPT_GOLD_KEY] = {"ents": [[5, 9, "PHONE_NUMBER"]]}
    scores = score_ents([Example(nlp.make_doc(gold.text), gold)])
    assert scores["ents_unannotated"] == 0.0
    assert scores["ents_iou_per_type"]["PHONE_NUMBER"]["fn"] == 1.0
    assert scores["ents_f"] is None  # spaCy skips the unannotated reference, as it always did


def test_converting_a_converted_file_keeps_the_kept_gold(gold_spacy, tmp_path):
    path, first = gold_spacy
    again = convert_split(str(path), tmp_path / "again.spacy")
    assert again.spans == first.spans and again.kept == first.kept
