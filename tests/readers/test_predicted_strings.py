"""Predictions as strings (semantics §11): the reader's shapes, grounding in tiers against
spacy-llm's ``find_substrings``, snapping to tokens, and ungrounded strings counted and gated."""

from __future__ import annotations

import json
import random
import re
import string
from collections import Counter

import pytest
from typer.testing import CliRunner

from spacy_span_eval.api import evaluate_files
from spacy_span_eval.cli import app
from spacy_span_eval.errors import InvalidInputError
from spacy_span_eval.readers.detect import sniff
from spacy_span_eval.readers.grounding import ground, snap
from spacy_span_eval.readers.options import ReadingOptions
from spacy_span_eval.readers.strings import read_strings, response_strings

WORDS = ["Berlin", "merkel", "Olaf", "new", "York", "the", "bank", "of", "Paris", "a", "A", "aba"]


def _write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("record", "strings"),
    [
        ({"id": 1, "entities": {"PER": ["Angela Merkel"]}}, [("PER", "Angela Merkel")]),
        ({"id": 1, "entities": [{"text": "Berlin", "label": "LOC"}]}, [("LOC", "Berlin")]),
        ({"entities": [{"text": "Berlin", "label": "LOC", "score": 0.5}]}, [("LOC", "Berlin")]),
        (
            {"id": 1, "response": "PER: Angela Merkel, Olaf Scholz\nLOC: ==NONE==\n"},
            [("PER", "Angela Merkel"), ("PER", "Olaf Scholz")],
        ),
        (  # (spacy-llm with sharding: one response per shard)
            {"id": 1, "response": ["PER: Angela Merkel", "PER: Olaf Scholz\nLOC: Berlin"]},
            [("PER", "Angela Merkel"), ("PER", "Olaf Scholz"), ("LOC", "Berlin")],
        ),
        (
            {
                "document_id": 1,
                "extractions": [{"extraction_class": "LOC", "extraction_text": "Berlin"}],
            },
            [("LOC", "Berlin")],
        ),
    ],
)
def test_each_shape_is_found_and_read(tmp_path, record, strings):
    path = _write(tmp_path / "pred.jsonl", [record])
    assert sniff(path) == "strings"
    (got,) = read_strings(path, ReadingOptions(side="predicted"), Counter())
    assert [(label, s) for label, s, _, _ in got.strings] == strings


def test_a_first_record_with_no_strings_does_not_hide_the_shape(tmp_path):
    """A model that found nothing in the first document: the next record tells the shape."""
    said = [{"text": "Berlin", "label": "LOC"}]
    path = _write(tmp_path / "pred.jsonl", [{"id": 1, "entities": []}, {"id": 2, "entities": said}])
    assert sniff(path) == "strings"


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"entities": {"": ["Zed"]}}, "label must be a non-empty string"),
        ({"response": None}, "'response' holds None; predictions as strings need"),
        ({"response": ["PER: Olaf", 5]}, "response\\[1\\] must be a string, not 5"),
        ({"entities": 5}, "'entities' holds 5; predictions as strings need"),
        (
            {
                "extractions": [
                    {"extraction_class": "LOC", "extraction_text": "Bonn", "char_interval": [0, 4]}
                ]
            },
            "char_interval must be an object",
        ),
    ],
)
def test_a_bad_record_is_refused_naming_its_line(tmp_path, record, message):
    if "entities" not in record:  # (a key only predicted strings have, whatever it holds)
        assert sniff(_write(tmp_path / "first.jsonl", [record])) == "strings"
    path = _write(tmp_path / "pred.jsonl", [{"entities": {}}, record])
    with pytest.raises(InvalidInputError, match=f"pred.jsonl line 2: {message}"):
        list(read_strings(path, ReadingOptions(side="predicted"), Counter()))


@pytest.mark.parametrize(
    "record",
    [
        {"entities": {"PER": ["Olaf", "", " \t"]}},
        {"entities": [{"text": t, "label": "PER"} for t in ("Olaf", "", " \t")]},
        {
            "extractions": [
                {"extraction_class": "PER", "extraction_text": t} for t in ("Olaf", "", " \t")
            ]
        },
    ],
)
def test_an_empty_or_blank_string_is_no_prediction_left_out_and_counted(tmp_path, record):
    """One rule in every shape: an empty or whitespace-only string predicts nothing."""
    path = _write(tmp_path / "pred.jsonl", [record])
    notes: Counter[str] = Counter()
    (got,) = read_strings(path, ReadingOptions(side="predicted"), notes)
    assert [(label, s) for label, s, _, _ in got.strings] == [("PER", "Olaf")]
    assert notes == {"empty strings left out (no prediction)": 2}


def test_spacy_llm_response_lines():
    assert response_strings("PERSON: Jane, Bob\n\nnot a line\nORG:  ,Acme ") == [
        ("PERSON", "Jane", None, None),
        ("PERSON", "Bob", None, None),
        ("ORG", "Acme", None, None),
    ]
    v3 = "1. Jane Doe | True | PERSON | a name\n2. well | False | ==NONE== | no\nOlaf|true|PER|x"
    assert response_strings(v3) == [("PERSON", "Jane Doe", None, None), ("PER", "Olaf", None, None)]


@pytest.mark.parametrize(
    ("text", "needle", "grounding", "tier", "hits"),
    [
        ("Olaf met olaf", "Olaf", "fuzzy", "caseless", [(0, 4), (9, 13)]),
        ("Olaf met olaf", "Olaf", "exact", "exact", [(0, 4)]),
        ("in New   York today", "new york", "caseless", "caseless", [(3, 13)]),
        ("ΟΔΟΣ Σίσυφος", "οδος", "caseless", "caseless", [(0, 4)]),  # (final sigma)
        ("Die STRASSE", "Straße", "caseless", "caseless", [(4, 11)]),  # (ß folds to ss)
        ("Le Cafe\u0301 de Flore", "Café de Flore", "caseless", "caseless", [(3, 17)]),  # (NFD)
        ("Le Café", "Cafe\u0301", "caseless", "caseless", [(3, 7)]),
        ("Le Café", "Cafe", "caseless", None, []),  # (an accent is not case)
        ("Angela Merkel spoke", "Angela Merkl", "fuzzy", "fuzzy", [(0, 13)]),
        ("Call 555-123-4567 now", "555-123-4568", "fuzzy", "fuzzy", [(5, 17)]),
        ("Dr. Angela Merkel spoke", "Angela Merkell", "fuzzy", "fuzzy", [(4, 17)]),
        ("私は東京都庁舎ビル本館に行きました", "東京都庁舎ビル本館x", "fuzzy", "fuzzy", [(1, 11)]),
        ("Angela Merkel spoke", "Angela Merkl", "caseless", None, []),
        ("Angela Merkel spoke", "Barack Obama", "fuzzy", None, []),
    ],
)
def test_tiers(text, needle, grounding, tier, hits):
    assert ground(text, needle, grounding=grounding) == (tier, hits)


@pytest.mark.parametrize(
    ("span", "mode", "tokens"),
    [
        ((0, 5), "strict", (0, 1)),
        ((1, 5), "strict", None),
        ((1, 11), "contract", (1, 2)),
        ((1, 8), "expand", (0, 2)),
        ((2, 4), "contract", None),
    ],
)
def test_snap_is_char_span_alignment(span, mode, tokens):
    import spacy

    doc = spacy.blank("en")("Hello big world")
    starts, ends = [t.idx for t in doc], [t.idx + len(t) for t in doc]
    assert snap(*span, starts, ends, mode) == tokens
    got = doc.char_span(*span, alignment_mode=mode)
    assert (None if got is None or not len(got) else (got.start, got.end)) == tokens


def _random_text(rng):
    words = [rng.choice(WORDS) for _ in range(rng.randint(1, 30))]
    return " ".join(w.upper() if rng.random() < 0.2 else w for w in words)


@pytest.mark.parametrize("case_sensitive", [True, False])
@pytest.mark.parametrize("single_match", [True, False])
def test_grounded_spans_are_spacy_llm_find_substrings(case_sensitive, single_match):
    from spacy_llm.tasks.util.parsing import find_substrings  # (the test extra has it)

    rng = random.Random(f"{case_sensitive}{single_match}")
    for _ in range(1000):
        text = _random_text(rng)
        words = text.split(" ")
        needles = []
        for _ in range(rng.randint(0, 5)):
            i = rng.randrange(len(words))
            piece = " ".join(words[i : i + rng.randint(1, 3)])
            needles.append(piece.swapcase() if rng.random() < 0.3 else piece)
        needles.append(rng.choice(WORDS) + " " + rng.choice(WORDS))
        want = find_substrings(
            text, needles, case_sensitive=case_sensitive, single_match=single_match
        )
        mine = set()
        for needle in needles:
            mine |= set(
                ground(
                    text,
                    needle,
                    grounding="exact" if case_sensitive else "caseless",
                    occurrence="first" if single_match else "all",
                )[1]
            )
        assert mine == set(want), (text, needles)


def _corpus(rng, n_docs):
    """Gold documents of letters only, and predicted strings: some gold, some injected
    strings of digits, which occur nowhere in any text."""
    gold, pred, injected = [], [], []
    for d in range(n_docs):
        text = _random_text(rng)
        spans, pos = [], 0
        for w in text.split(" "):
            if rng.random() < 0.3:
                spans.append({"start": pos, "end": pos + len(w), "label": rng.choice("AB")})
            pos += len(w) + 1
        entities: dict[str, list[str]] = {}
        for s in spans:
            if rng.random() < 0.7:
                entities.setdefault(s["label"], []).append(text[s["start"] : s["end"]])
        for _ in range(rng.choice([0, 0, 1, 2])):
            label = rng.choice("AB")
            fake = "".join(rng.choice(string.digits) for _ in range(rng.randint(3, 12)))
            entities.setdefault(label, []).append(fake)
            injected.append((str(d), label, fake))
        gold.append({"id": str(d), "text": text, "spans": spans})
        pred.append({"id": str(d), "entities": entities})
    return gold, pred, injected


def test_injected_strings_are_ungrounded_credited_to_nothing_and_gated(tmp_path):
    gold, pred, injected = _corpus(random.Random(7), 1000)
    gold_path = _write(tmp_path / "gold.jsonl", gold)
    pred_path = _write(tmp_path / "pred.jsonl", pred)
    clean = [
        {"id": p["id"], "entities": {k: [s for s in v if not s.isdigit()] for k, v in es.items()}}
        for p in pred
        for es in [p["entities"]]
    ]
    clean_path = _write(tmp_path / "clean.jsonl", clean)
    report = evaluate_files(gold_path, pred_path, errors=100_000, strategy="exact")
    base = evaluate_files(gold_path, clean_path, errors=100_000, strategy="exact")
    run, before = report.result.scores(), base.result.scores()
    listed = {
        (e.document, e.label, e.reason)
        for e in run.errors
        if e.reason is not None and e.reason.startswith("ungrounded string")
    }
    assert listed == {(d, label, f"ungrounded string {s!r}") for d, label, s in set(injected)}
    for label in "AB":
        n = len({i for i in injected if i[1] == label})
        assert run.grounding.ungrounded(label)[0] == n
        mine, theirs = run.per_label[label], before.per_label[label]
        assert (mine.tp, mine.credited) == (theirs.tp, theirs.credited)
        assert (mine.fp, mine.num_predicted) == (theirs.fp + n, theirs.num_predicted + n)
    floors = tmp_path / "floors.json"
    floors.write_text(json.dumps({"floors": {"A": {"ungrounded_rate": 0.02}}}))
    result = CliRunner().invoke(
        app, ["gate", str(gold_path), str(pred_path), "--floors", str(floors)]
    )
    assert result.exit_code == 1, result.output
    assert "A ungrounded_rate" in result.stderr and "> most 0.02" in result.stderr
    assert "Ungrounded strings:" in result.stderr


def test_spacy_llm_responses_in_a_docbin(tmp_path):
    """An llm pipeline's ``.spacy`` output (``save_io``): with ``--input-format strings`` its
    raw responses are grounded here; the gold file is read in its own format."""
    import spacy
    from spacy.tokens import DocBin

    text = "Angela Merkel met Olaf Scholz in Berlin."
    doc = spacy.blank("en")(text)
    doc.user_data["llm_io"] = {
        "llm": {"prompt": "...", "response": "PER: Angela Merkel\nLOC: Bonn"}
    }
    DocBin(docs=[doc], store_user_data=True).to_disk(tmp_path / "llm.spacy")
    spans = [{"start": 0, "end": 13, "label": "PER"}, {"start": 33, "end": 39, "label": "LOC"}]
    gold = _write(tmp_path / "gold.jsonl", [{"text": text, "spans": spans}])
    run = evaluate_files(gold, tmp_path / "llm.spacy", input_format="strings").result.scores()
    assert (run.per_label["PER"].tp, run.per_label["LOC"].fp) == (1, 1)
    assert run.grounding.ungrounded("LOC") == (1, 1)


def test_every_output_format_shows_the_ungrounded_rate_and_labels_the_string_set(tmp_path):
    text = "Angela Merkel met Olaf Scholz in Berlin."
    spans = [{"start": 0, "end": 13, "label": "PER"}]
    gold = _write(tmp_path / "gold.jsonl", [{"id": "a", "text": text, "spans": spans}])
    pred = _write(
        tmp_path / "pred.jsonl", [{"id": "a", "entities": {"PER": ["angela  merkel", "Zed"]}}]
    )
    runner, shown = CliRunner(), {}
    for fmt in ("text", "markdown", "json"):
        result = runner.invoke(app, ["evaluate", str(gold), str(pred), "-f", fmt])
        assert result.exit_code == 0, result.output
        shown[fmt] = result.stdout
    result = runner.invoke(app, ["report", str(gold), str(pred), "-o", str(tmp_path / "r.html")])
    assert result.exit_code == 0, result.output
    shown["html"] = " ".join(re.sub("<[^>]+>", " ", (tmp_path / "r.html").read_text()).split())
    for row in ("PER 2 1 0.5000 0.5000 1.0000 0.6667", "overall 2 1 0.5000"):
        assert row in shown["html"]  # (per label and overall, as in the other formats)
    for fmt in ("text", "markdown"):
        assert "PER" in shown[fmt] and "0.5000" in shown[fmt] and "UniversalNER" in shown[fmt]
    run = json.loads(shown["json"])["result"]["levels"]["labels"][0]
    assert run["ungrounded"]["overall"] == {"strings": 2, "ungrounded": 1, "ungrounded_rate": 0.5}
    assert run["string_set"]["micro"]["precision"] == 0.5
    assert run["micro"]["credited"] == 1 and run["micro"]["num_predicted"] == 2


@pytest.mark.parametrize("unit", ["char", "token"])  # "ngela" is off the tokens in token unit
def test_ungrounded_and_unsnapped_strings_keep_their_score_for_the_sweep(tmp_path, unit):
    """Each string's score goes with it, found or not, and each ungrounded string is a
    false positive of its own: (score, tp, fp) from the top."""
    conll = tmp_path / "gold.conll"
    conll.write_text("Angela\tB-PER\nMerkel\tI-PER\nspoke\tO\n\n")
    said = [("Angela Merkel", 0.6), ("Zed", 0.9), ("Qux", 0.8), ("ngela", 0.7)]
    entities = [{"text": s, "label": "PER", "score": c} for s, c in said]
    pred = _write(tmp_path / "pred.jsonl", [{"entities": entities}])
    report = evaluate_files(conll, pred, unit=unit, strategy="exact", sweep=True)
    points = report.result.sweep[0]["per_label"]["PER"]["points"]
    got = [(p["score"], p["tp"], p["fp"]) for p in points]
    assert got == [(0.9, 0, 1), (0.8, 0, 2), (0.7, 0, 3), (0.6, 1, 3)]
    assert report.result.scores().per_label["PER"].fp == 3  # the lowest point is the run


def test_the_tier_of_each_string_is_counted_in_the_predicted_notes(tmp_path):
    text = "Angela Merkel met Olaf Scholz in Berlin."
    gold = _write(tmp_path / "gold.jsonl", [{"id": "a", "text": text, "spans": []}])
    said = {"PER": ["Angela Merkel", "olaf scholz", "Angela Merkl", "Zed"]}
    pred = _write(tmp_path / "pred.jsonl", [{"id": "a", "entities": said}])
    notes = evaluate_files(gold, pred).inputs["predicted"]["notes"]
    assert notes == {
        "strings grounded (exact)": 1,
        "strings grounded (caseless)": 1,
        "strings grounded (fuzzy)": 1,
        "strings ungrounded": 1,
    }


def test_a_string_said_with_two_scores_is_counted_once_as_the_table_counts_it(tmp_path):
    text = "Angela Merkel met Olaf Scholz in Berlin."
    gold = _write(tmp_path / "gold.jsonl", [{"id": "a", "text": text, "spans": []}])
    said = [(t, s) for t in ("Angela Merkel", "Zed") for s in (0.9, 0.5)]
    entities = [{"text": t, "label": "PER", "score": s} for t, s in said]
    pred = _write(tmp_path / "pred.jsonl", [{"id": "a", "entities": entities}])
    report = evaluate_files(gold, pred)
    assert report.result.scores().grounding.ungrounded("PER") == (1, 2)
    notes = report.inputs["predicted"]["notes"]
    assert notes == {"strings grounded (exact)": 1, "strings ungrounded": 1}


@pytest.mark.parametrize(
    "snap_mode,tp,unaligned", [("strict", 0, 1), ("contract", 0, 0), ("expand", 1, 0)]
)
def test_token_unit_snaps_found_strings_to_tokens(tmp_path, snap_mode, tp, unaligned):
    """ "ngela Merkel" starts inside the token "Angela": strict leaves it unaligned (counted
    and listed), contract takes "Merkel" alone, expand takes "Angela Merkel"."""
    conll = tmp_path / "gold.conll"
    conll.write_text("Angela\tB-PER\nMerkel\tI-PER\nspoke\tO\n\n")
    pred = _write(tmp_path / "pred.jsonl", [{"entities": {"PER": ["ngela Merkel"]}}])
    report = evaluate_files(conll, pred, unit="token", snap=snap_mode, strategy="exact")
    assert report.result.notes.get("unaligned_predictions", 0) == unaligned
    ledger = report.result.scores().per_label["PER"]
    assert (ledger.num_predicted, ledger.tp) == (1, tp)


CANNED_MODEL = """
from typing import Iterable

from spacy_llm.registry import registry

RESPONSES = {
    "Angela Merkel met Olaf Scholz in Berlin.": "1. Angela Merkel | True | PER | a person\\n"
    "2. Olaf Scholz | True | PER | a person\\n3. Bonn | True | LOC | a city",
    "Paris is big.": "1. paris | True | LOC | a city\\n2. big | False | ==NONE== | a size",
}


@registry.llm_models("span_eval_test.canned.v1")
def canned():
    def answer(prompts: Iterable[Iterable[str]]) -> Iterable[Iterable[str]]:
        return [
            [next(r for t, r in RESPONSES.items() if p.endswith(f"{t}\\nAnswer:")) for p in doc]
            for doc in prompts
        ]

    return answer
"""


@pytest.fixture(scope="module")
def llm_pipeline(tmp_path_factory):
    """A spacy-llm NER pipeline (``spacy.NER.v3``, ``save_io``) whose model answers from
    :data:`CANNED_MODEL` (no network), saved with gold ``.spacy`` data and the model's code."""
    import spacy
    from spacy.tokens import DocBin

    folder = tmp_path_factory.mktemp("llm")
    code = folder / "canned.py"
    code.write_text(CANNED_MODEL)
    exec(compile(CANNED_MODEL, str(code), "exec"), {})  # registered here to build it
    nlp = spacy.blank("en")
    task = {"@llm_tasks": "spacy.NER.v3", "labels": ["PER", "LOC"]}
    model = {"@llm_models": "span_eval_test.canned.v1"}
    nlp.add_pipe("llm", config={"task": task, "model": model, "save_io": True})
    nlp.to_disk(folder / "model")
    gold = [
        (
            "Angela Merkel met Olaf Scholz in Berlin.",
            [(0, 13, "PER"), (18, 29, "PER"), (33, 39, "LOC")],
        ),
        ("Paris is big.", [(0, 5, "LOC")]),
    ]
    docs = []
    for text, ents in gold:
        doc = nlp.make_doc(text)
        doc.ents = [doc.char_span(s, e, label=label) for s, e, label in ents]
        docs.append(doc)
    DocBin(docs=docs).to_disk(folder / "dev.spacy")
    return folder


# Hand-worked: spacy-llm keeps the spans it finds (Angela Merkel, Olaf Scholz, Paris) and drops
# "Bonn", found nowhere; grounded here, "Bonn" is an ungrounded LOC string, a false positive.
# "paris" is grounded caseless; with --grounding exact it is ungrounded too (and Paris missed).
# Each row: (PER tp, fp), (LOC tp, fp), ungrounded LOC (ungrounded, strings).
STRINGS = ("--input-format", "strings")


@pytest.mark.parametrize(
    ("flags", "per", "loc", "ungrounded"),
    [
        ((), (2, 0), (1, 0), None),
        (STRINGS, (2, 0), (1, 1), (1, 2)),
        ((*STRINGS, "--grounding", "exact"), (2, 0), (0, 2), (2, 2)),
    ],
    ids=["doc.ents", "responses", "responses-exact"],
)
@pytest.mark.parametrize("road", ["plugin", "model"])
@pytest.mark.filterwarnings("ignore::UserWarning")  # (spacy-llm: no context length to shard by)
def test_an_llm_pipeline_is_scored_by_its_ents_or_its_raw_responses(
    llm_pipeline, tmp_path, road, flags, per, loc, ungrounded
):
    from spacy.cli import app as spacy_app

    import spacy_span_eval.cli.spacy_plugin  # noqa: F401 (adds span-eval to spaCy's app)

    model, data, code = (llm_pipeline / n for n in ("model", "dev.spacy", "canned.py"))
    out = tmp_path / "out.json"
    if road == "plugin":
        args = ["span-eval", "evaluate", model, data, "--code", code, "-o", out, *flags]
        result = CliRunner().invoke(spacy_app, list(map(str, args)))
    else:
        args = ["evaluate", data, "--model", model, "--code", code, "-f", "json", "-o", out]
        result = CliRunner().invoke(app, list(map(str, [*args, *flags])))
    assert result.exit_code == 0, result.output
    saved = json.loads(out.read_text())
    run = saved.get("span_eval", saved)["result"]["levels"]["labels"][0]
    got = {k: (run["per_label"][k]["tp"], run["per_label"][k]["fp"]) for k in ("PER", "LOC")}
    assert got == {"PER": per, "LOC": loc}
    if ungrounded is None:
        assert "ungrounded" not in run
    else:
        loc_rate = run["ungrounded"]["per_label"]["LOC"]
        assert (loc_rate["ungrounded"], loc_rate["strings"]) == ungrounded


def test_ungrounded_strings_keep_their_score_and_the_sweep_counts_each(tmp_path):
    """Hand-worked: two true strings (0.9, 0.8) and two found nowhere in the one document
    (0.6, 0.3), one label; each is one prediction at its own score."""
    text = "Angela Merkel met Olaf Scholz in Berlin."
    spans = [{"start": 0, "end": 13, "label": "PER"}, {"start": 18, "end": 29, "label": "PER"}]
    gold = _write(tmp_path / "gold.jsonl", [{"id": "a", "text": text, "spans": spans}])
    said = [("Angela Merkel", 0.9), ("Olaf Scholz", 0.8), ("Zed Zo", 0.6), ("Xavier", 0.3)]
    entities = [{"text": t, "label": "PER", "score": s} for t, s in said]
    pred = _write(tmp_path / "pred.jsonl", [{"id": "a", "entities": entities}])
    result = evaluate_files(gold, pred, strategy="exact", sweep=True).result
    points = {p["score"]: p for p in result.sweep[0]["micro"]["points"]}
    assert {s: (p["num_predicted"], p["fp"]) for s, p in points.items()} == {
        0.9: (1, 0),
        0.8: (2, 0),
        0.6: (3, 1),
        0.3: (4, 2),
    }
    assert result.scores().micro.num_predicted == 4


def test_input_format_strings_names_the_predictions_format_only(tmp_path):
    """The gold file is read, described and sliced in its own format: a CoNLL gold scores in
    token unit, its JSONL twin slices by its fields."""
    conll = tmp_path / "gold.conll"
    conll.write_text("Angela\tB-PER\nMerkel\tI-PER\nspoke\tO\n\n")
    pred = _write(tmp_path / "pred.jsonl", [{"entities": {"PER": ["Angela Merkel"]}}])
    report = evaluate_files(conll, pred, input_format="strings", strategy="exact")
    assert report.inputs["gold"]["format"] == "conll"
    assert report.result.settings.unit == "token"
    text, spans = "Angela Merkel spoke", [{"start": 0, "end": 13, "label": "PER"}]
    gold = _write(tmp_path / "gold.jsonl", [{"text": text, "spans": spans, "meta": {"src": "x"}}])
    report = evaluate_files(gold, pred, input_format="strings", slice_by=["meta.src"])
    assert report.inputs["gold"]["format"] == "jsonl" and "meta.src" in report.slices


def test_a_char_interval_not_matching_its_text_is_not_trusted(tmp_path):
    """LangExtract's interval is used where the text there is the extraction's; else the
    extraction's text is grounded as a string, and the distrusted interval counted."""
    text = "Angela Merkel met Olaf Scholz in Berlin."
    spans = [{"start": 0, "end": 13, "label": "PER"}, {"start": 33, "end": 39, "label": "LOC"}]
    gold = _write(tmp_path / "gold.jsonl", [{"id": "a", "text": text, "spans": spans}])
    said = [("LOC", "Berlin", 0, 6), ("PER", "Angela Merkel", 0, 13)]
    extractions = [
        {
            "extraction_class": c,
            "extraction_text": t,
            "char_interval": {"start_pos": s, "end_pos": e},
        }
        for c, t, s, e in said
    ]
    pred = _write(tmp_path / "pred.jsonl", [{"document_id": "a", "extractions": extractions}])
    report = evaluate_files(gold, pred, strategy="exact")
    assert report.inputs["predicted"]["notes"] == {
        "char_interval not matching its text: grounded by its text": 1,
        "strings grounded (exact)": 1,
        "strings grounded (interval)": 1,
    }
    assert report.result.scores().micro.tp == 2


def test_error_records_show_no_span_for_an_ungrounded_string_and_characters_off_tokens(tmp_path):
    """A string found nowhere has no span (``-``, JSON ``null``); in token unit a string
    found off the tokens keeps its character offsets, said to be characters."""
    conll = tmp_path / "gold.conll"
    conll.write_text("Angela\tB-PER\nMerkel\tI-PER\nspoke\tO\n\n")
    pred = _write(tmp_path / "pred.jsonl", [{"entities": {"PER": ["ngela Merkel", "Zed"]}}])
    args = [
        "evaluate",
        str(conll),
        str(pred),
        "--unit",
        "token",
        "--strategy",
        "exact",
        "--errors",
        "5",
    ]
    shown = {f: CliRunner().invoke(app, [*args, "-f", f]).stdout for f in ("text", "markdown")}
    assert re.search(r"false_positive +gold.conll:1 +- +PER +PER +ungrounded string", shown["text"])
    assert re.search(r"chars \[1, 13\) +PER +PER +found at characters 1-13", shown["text"])
    assert (
        "| false_positive | gold.conll:1 | - | PER | PER | ungrounded string 'Zed' |"
        in (shown["markdown"])
    )
    assert "| chars [1, 13) | PER | PER | found at characters 1-13" in shown["markdown"]
    saved = json.loads(CliRunner().invoke(app, [*args, "-f", "json"]).stdout)
    errors = saved["result"]["levels"]["labels"][0]["errors"]
    assert [(e["start"], e["end"]) for e in errors if e["reason"]] == [(None, None), (1, 13)]
