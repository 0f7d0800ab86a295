"""Real corpora through the CLI, each gold file against a seeded perturbed copy.

BIO sets (BTC IOB2, wikigold IOB1, SEC filings with ``-DOCSTART-``): ``exact`` equals seqeval's
default mode, per label and micro, to 1e-9. seqeval reports 0 where a ratio is undefined; we
report ``None`` (JSON ``null``), so ``None`` is compared as 0. Character-offset sets (presidio
synthetic data with a label map, re3d with overlapping spans): ``exact`` equals a set-based
oracle written here, and every ledger obeys semantics §2's invariants.
"""

from __future__ import annotations

import json
import random
import warnings
from collections import Counter

import pytest
from typer.testing import CliRunner

from spacy_span_eval.api import evaluate_files
from spacy_span_eval.cli import app
from spacy_span_eval.readers.schemes import decode, encode

from conftest import data_path, span_records
from synthetic import perturb

runner = CliRunner()


def cli_json(*args: str) -> dict:
    result = runner.invoke(app, [*map(str, args), "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["schema"] == "spacy-span-eval/report" and report["version"] == 1
    return report


def check_invariants(run: dict) -> None:
    for ledger in [*run["per_label"].values(), run["micro"], run["entity_agnostic"]]:
        assert ledger["tp"] + ledger["fn"] == ledger["num_annotated"]
        assert ledger["credited"] + ledger["fp"] == ledger["num_predicted"]


# -- BIO sets -------------------------------------------------------------------------------


def conll_sentences(path):
    """(token lines, tags) per sentence: an independent, minimal reading of the gold file."""
    sentences, lines, tags = [], [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("-DOCSTART-"):
            if tags:
                sentences.append((lines, tags))
            lines, tags = [], []
            continue
        lines.append(line)
        tags.append(line.split("\t")[-1] if "\t" in line else line.split()[-1])
    if tags:
        sentences.append((lines, tags))
    return sentences


def write_perturbed_copy(gold, pred, scheme: str, seed: int, newline: str = "\n"):
    """The gold file with every tag replaced by a perturbed prediction's (valid) tag; the
    rest — columns, ``-DOCSTART-`` lines, blank lines — is kept as it is."""
    rng = random.Random(seed)
    sentences = conll_sentences(gold)
    labels = sorted({t.split("-", 1)[1] for _, tags in sentences for t in tags if t != "O"})
    y_true, y_pred, new_tags = [], [], []
    for _, tags in sentences:
        spans = decode(tags, scheme=scheme).spans
        predicted = encode(perturb(spans, len(tags), labels, rng), len(tags), scheme=scheme)
        y_true.append(tags)
        y_pred.append(predicted)
        new_tags.extend(predicted)
    out, i = [], 0
    for line in gold.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("-DOCSTART-"):
            sep = "\t" if "\t" in line else " "
            line = line.rsplit(sep, 1)[0] + sep + new_tags[i]
            i += 1
        out.append(line)
    assert i == len(new_tags)
    pred.write_bytes((newline.join(out) + newline).encode("utf-8"))
    return y_true, y_pred


def seqeval_report(y_true, y_pred) -> dict:
    from seqeval.metrics import classification_report

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=UserWarning)  # undefined ratios
        return classification_report(y_true, y_pred, output_dict=True)


def assert_same_as_seqeval(run: dict, expected: dict) -> None:
    def as_zero(x):  # seqeval's 0 for an undefined ratio is our None
        return 0.0 if x is None else x

    labels = {k for k in expected if not k.endswith(" avg")}
    assert set(run["per_label"]) == labels
    rows = [(run["per_label"][k], expected[k]) for k in labels]
    rows.append((run["micro"], expected["micro avg"]))
    for ours, theirs in rows:
        assert ours["num_annotated"] == theirs["support"]
        assert as_zero(ours["precision"]) == pytest.approx(theirs["precision"], abs=1e-9)
        assert as_zero(ours["recall"]) == pytest.approx(theirs["recall"], abs=1e-9)
        assert as_zero(ours["f"]) == pytest.approx(theirs["f1-score"], abs=1e-9)


BIO_SETS = [
    # corpus, file, scheme, newline of the perturbed copy, tokens as conlleval.pl counts them
    # (every line that is not blank, -DOCSTART- lines too: 145 in wikigold, 3 in FIN3)
    ("btc", "btc.test", "IOB2", "\n", 35428),
    ("wikigold", "wikigold.conll.txt", "IOB1", "\r\n", 39152),
    ("sec_filings", "FIN3.test.txt", "IOB1", "\n", 13249),
]


@pytest.mark.parametrize("corpus,name,scheme,newline,tokens", BIO_SETS)
def test_exact_equals_seqeval_on_bio_sets(tmp_path, corpus, name, scheme, newline, tokens):
    gold = data_path(corpus, name)
    pred = tmp_path / "predictions"  # no extension, as CoNLL files often come
    y_true, y_pred = write_perturbed_copy(gold, pred, scheme, seed=2, newline=newline)
    report = cli_json("evaluate", gold, pred, "--strategy", "exact", "--scheme", scheme)
    (run,) = report["result"]["levels"]["labels"]
    assert_same_as_seqeval(run, seqeval_report(y_true, y_pred))
    check_invariants(run)
    assert report["inputs"]["gold"]["format"] == report["inputs"]["predicted"]["format"] == "conll"
    assert report["inputs"]["gold"]["documents"] == len(y_true)
    assert report["inputs"]["gold"]["repaired"] == 0
    # conlleval.pl's token accuracy: a tag is correct where the last columns are equal
    lines = (p.read_text(encoding="utf-8").splitlines() for p in (gold, pred))
    tags = [(a.split()[-1], b.split()[-1]) for a, b in zip(*lines, strict=True) if a.strip()]
    assert report["inputs"]["gold"]["tokens"] == report["inputs"]["predicted"]["tokens"] == tokens
    assert len(tags) == tokens
    assert report["inputs"]["predicted"]["correct_tags"] == sum(a == b for a, b in tags)


def test_btc_two_sided_thresholds_and_text_report(tmp_path):
    gold = data_path("btc", "btc.test")
    pred = tmp_path / "btc.pred"
    write_perturbed_copy(gold, pred, "IOB2", seed=3)
    report = cli_json("evaluate", gold, pred, "-t", "0.5", "-t", "0.75", "-t", "1.0")
    runs = report["result"]["levels"]["labels"]
    assert [r["threshold"] for r in runs] == [0.5, 0.75, 1.0]
    for low, high in zip(runs, runs[1:], strict=False):
        check_invariants(low)
        assert low["micro"]["recall"] >= high["micro"]["recall"]
        assert low["micro"]["precision"] >= high["micro"]["precision"]
    result = runner.invoke(app, ["evaluate", str(gold), str(pred), "--errors", "2"])
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "two_sided · IoU >= 0.5 · token unit" in text
    for row in ("PER", "ORG", "LOC", "micro", "macro", "any entity", "First 2 of"):
        assert row in text
    assert "repaired chunks: 0" in text and "unaligned" not in text  # (nothing aligned)


def test_repairs_are_reported_per_side(tmp_path):
    """BTC read as IOB1 is ill-formed wherever B- begins a chunk that does not touch one of
    its own label: counted on each side, not hidden."""
    gold = data_path("btc", "btc.test")
    report = cli_json("evaluate", gold, gold, "--strategy", "exact", "--scheme", "IOB1")
    starts = sum(
        t.startswith("B-") and (i == 0 or tags[i - 1][2:] != t[2:])
        for _, tags in conll_sentences(gold)
        for i, t in enumerate(tags)
    )
    assert report["inputs"]["gold"]["repaired"] == report["inputs"]["predicted"]["repaired"]
    assert report["inputs"]["gold"]["repaired"] == starts > 0


# -- character-offset sets ------------------------------------------------------------------


def perturb_chars(spans, text: str, labels, rng: random.Random, *, rate: float = 0.3):
    """Char-level perturbation that keeps overlaps (span groups may overlap)."""
    out = []
    for start, end, label in spans:
        r = rng.random()
        if r < rate * 0.25:
            continue
        if r < rate * 0.5:
            start = max(0, min(end - 1, start + rng.choice([-2, -1, 1, 2])))
        elif r < rate * 0.75:
            end = min(len(text), max(start + 1, end + rng.choice([-2, -1, 1, 2])))
        elif r < rate:
            label = rng.choice([x for x in labels if x != label])
        out.append((start, end, label))
    if text and rng.random() < rate:
        start = rng.randrange(len(text))
        out.append((start, min(len(text), start + rng.randint(1, 8)), rng.choice(labels)))
    return out


def exact_oracle(pairs, label_map=None) -> dict[str, Counter]:
    """Per label: gold, pred and TP counts of set-based exact matching, per document."""
    m = label_map or {}
    out: dict[str, Counter] = {}
    for gold, pred in pairs:
        g = {(s, e, m.get(lab, lab)) for s, e, lab in gold}
        p = {(s, e, m.get(lab, lab)) for s, e, lab in pred}
        for name, spans in (("gold", g), ("pred", p), ("tp", g & p)):
            for *_, lab in spans:
                out.setdefault(lab, Counter())[name] += 1
    return out


def assert_exact(run: dict, oracle: dict[str, Counter]) -> None:
    assert set(run["per_label"]) == set(oracle)
    for label, counts in oracle.items():
        ledger = run["per_label"][label]
        assert (ledger["num_annotated"], ledger["num_predicted"], ledger["tp"]) == (
            counts["gold"],
            counts["pred"],
            counts["tp"],
        )
    check_invariants(run)


PRESIDIO_MAP = {
    "PERSON": "PERSON",
    "NRP": "PERSON",
    "TITLE": "PERSON",
    "STREET_ADDRESS": "LOCATION",
    "GPE": "LOCATION",
    "ZIP_CODE": "LOCATION",
    "ORGANIZATION": "ORG",
    "CREDIT_CARD": "FINANCIAL",
    "IBAN_CODE": "FINANCIAL",
    "US_SSN": "ID",
    "US_DRIVER_LICENSE": "ID",
    "PHONE_NUMBER": "CONTACT",
    "EMAIL_ADDRESS": "CONTACT",
    "DOMAIN_NAME": "CONTACT",
    "IP_ADDRESS": "CONTACT",
    "DATE_TIME": "DATE",
    "AGE": "DATE",
}


def test_presidio_with_a_label_map_to_a_smaller_taxonomy(tmp_path):
    gold = data_path("presidio_synth", "synth_dataset_v2.json")
    records = json.loads(gold.read_text(encoding="utf-8"))
    labels = sorted(PRESIDIO_MAP)
    rng = random.Random(5)
    pairs, lines = [], []
    for r in records:
        spans = [(s["start_position"], s["end_position"], s["entity_type"]) for s in r["spans"]]
        pred = perturb_chars(spans, r["full_text"], labels, rng)
        pairs.append((spans, pred))
        lines.append(
            json.dumps(
                {
                    "text": r["full_text"],
                    "spans": [{"start": s, "end": e, "label": lab} for s, e, lab in pred],
                }
            )
        )
    pred_path = tmp_path / "pred.jsonl"
    pred_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    map_path = tmp_path / "taxonomy.json"
    map_path.write_text(json.dumps(PRESIDIO_MAP))

    report = cli_json(
        "evaluate",
        gold,
        pred_path,
        "--strategy",
        "exact",
        "--label-map",
        map_path,
        "--strict-labels",
    )
    assert report["inputs"]["gold"]["format"] == "presidio"
    (run,) = report["result"]["levels"]["labels"]
    assert set(run["per_label"]) == set(PRESIDIO_MAP.values())
    assert_exact(run, exact_oracle(pairs, PRESIDIO_MAP))

    two_sided = cli_json("evaluate", gold, pred_path, "--label-map", map_path, "-t", "0.5")
    (ts,) = two_sided["result"]["levels"]["labels"]
    check_invariants(ts)
    assert ts["micro"]["recall"] >= run["micro"]["recall"]  # partial credit only adds


def read_re3d():
    """re3d's mongoexport files as (id, text, [(begin, end, type)]) documents."""
    root = data_path("re3d")
    texts, spans = {}, {}
    for part in sorted(p for p in root.iterdir() if (p / "documents.json").exists()):
        for line in (part / "documents.json").read_text(encoding="utf-8").splitlines():
            doc = json.loads(line)
            texts[doc["_id"]] = doc["text"]
        for line in (part / "entities.json").read_text(encoding="utf-8").splitlines():
            ent = json.loads(line)
            spans.setdefault(ent["documentId"], []).append((ent["begin"], ent["end"], ent["type"]))
    return [(doc_id, text, spans.get(doc_id, [])) for doc_id, text in texts.items()]


@pytest.mark.slow  # a whole shared corpus
def test_re3d_overlapping_spans_paired_by_id(tmp_path):
    docs = read_re3d()
    labels = sorted({lab for _, _, spans in docs for *_, lab in spans})
    overlaps = sum(
        1
        for _, _, spans in docs
        for a in spans
        for b in spans
        if a < b and a[0] < b[1] and b[0] < a[1]
    )
    assert overlaps > 100
    rng = random.Random(8)
    preds = {doc_id: perturb_chars(spans, text, labels, rng) for doc_id, text, spans in docs}

    def write(path, rows):
        path.write_text(span_records(rows), encoding="utf-8")

    gold_path, pred_path = tmp_path / "gold.jsonl", tmp_path / "pred.jsonl"
    write(gold_path, docs)
    shuffled = [(i, t, preds[i]) for i, t, _ in docs]
    rng.shuffle(shuffled)  # pairing goes by id, not by position
    write(pred_path, shuffled)

    report = cli_json("evaluate", gold_path, pred_path, "--strategy", "exact")
    (run,) = report["result"]["levels"]["labels"]
    assert_exact(run, exact_oracle([(spans, preds[i]) for i, _, spans in docs]))

    same = cli_json("evaluate", gold_path, gold_path, "-t", "1.0")
    (perfect,) = same["result"]["levels"]["labels"]
    assert perfect["micro"]["fn"] == perfect["micro"]["fp"] == 0
    assert perfect["micro"]["num_annotated"] == sum(len(s) for _, _, s in docs)

    both = cli_json("evaluate", gold_path, pred_path, "-t", "0.5", "-t", "0.9")
    for run in both["result"]["levels"]["labels"]:
        check_invariants(run)


# -- slices (semantics §10): each slice is its documents scored alone -----------------------
COUNTS = ("num_annotated", "num_predicted", "tp", "fn", "credited", "fp")
SLICED = {"thresholds": (0.5, 1.0), "errors": 0}


def nonzero(per_label: dict) -> dict:
    return {k: v for k, v in per_label.items() if any(v[c] for c in COUNTS)}


def assert_slices_are_their_documents_alone(whole, field: str, alone: dict) -> None:
    """``whole``'s slices of ``field`` add up to its totals at every threshold, per label and
    micro, and each equals ``alone[slice]``, the report of its documents scored alone."""
    runs, tables = whole.to_dict()["result"]["levels"]["labels"], whole.slices[field]
    assert sorted(s["slice"] for s in tables[0]["slices"]) == sorted(alone)
    assert len(alone) > 1
    for run, table in zip(runs, tables, strict=True):
        assert table["threshold"] == run["threshold"]
        for key in COUNTS:
            assert sum(s["micro"][key] for s in table["slices"]) == run["micro"][key]
            for label, ledger in run["per_label"].items():
                assert sum(s["per_label"][label][key] for s in table["slices"]) == ledger[key]
        for piece in table["slices"]:
            report = alone[piece["slice"]]
            (own,) = [
                r
                for r in report.to_dict()["result"]["levels"]["labels"]
                if r["threshold"] == run["threshold"]
            ]
            assert piece["documents"] == report.inputs["gold"]["documents"], piece["slice"]
            assert piece["micro"] == own["micro"], piece["slice"]
            assert nonzero(piece["per_label"]) == nonzero(own["per_label"]), piece["slice"]


def conll_documents(path) -> list[str]:
    """The file's text cut before each ``-DOCSTART-`` line (the first piece may be empty)."""
    text = path.read_text(encoding="utf-8").replace("\r\n", "\n")
    return text.replace("\n-DOCSTART-", "\n\0-DOCSTART-").split("\0")


@pytest.mark.parametrize(
    ("corpus", "name", "scheme"),
    [
        ("wikigold", "wikigold.conll.txt", "IOB1"),
        ("sec_filings", "FIN3.test.txt", "IOB1"),
        ("sec_filings", "FIN5.train.txt", "IOB1"),
    ],
)
def test_conll_documents_sliced_are_each_document_alone(tmp_path, corpus, name, scheme):
    gold, pred = data_path(corpus, name), tmp_path / "pred.conll"
    write_perturbed_copy(gold, pred, scheme, seed=4)
    whole = evaluate_files(gold, pred, scheme=scheme, slice_by=("document",), **SLICED)
    alone, line = {}, 1
    for i, (g, p) in enumerate(zip(conll_documents(gold), conll_documents(pred), strict=True)):
        if any(ln.strip() and not ln.startswith("-DOCSTART-") for ln in g.splitlines()):
            paths = [tmp_path / f"{i}.{side}" for side in ("gold", "pred")]
            for path, text in zip(paths, (g, p), strict=True):
                path.write_text(text, encoding="utf-8")
            named = f"{gold.name}:{line}" if g.startswith("-DOCSTART-") else gold.name
            alone[named] = evaluate_files(*paths, scheme=scheme, input_format="conll", **SLICED)
        line += g.count("\n")
    assert_slices_are_their_documents_alone(whole, "document", alone)


def test_btc_sections_sliced_by_a_comment_are_each_section_alone(tmp_path):
    gold, pred, alone = tmp_path / "btc.conll", tmp_path / "btc.pred", {}
    with open(gold, "w", encoding="utf-8") as g, open(pred, "w", encoding="utf-8") as p:
        for section in "abefgh":
            own_gold = data_path("btc", "sections", f"{section}.conll")
            own_pred = tmp_path / f"{section}.pred"
            write_perturbed_copy(own_gold, own_pred, "IOB2", seed=ord(section))
            g.write(f"# section = {section}\n" + own_gold.read_text(encoding="utf-8") + "\n")
            p.write(own_pred.read_text(encoding="utf-8") + "\n")
            alone[section] = evaluate_files(own_gold, own_pred, **SLICED)
    whole = evaluate_files(gold, pred, slice_by=("section",), **SLICED)
    assert_slices_are_their_documents_alone(whole, "section", alone)


def test_presidio_sliced_by_template_is_each_template_alone(tmp_path):
    gold = data_path("presidio_synth", "synth_dataset_v2.json")
    records = json.loads(gold.read_text(encoding="utf-8"))
    rng, labels = random.Random(6), sorted(PRESIDIO_MAP)
    for r in records:
        spans = [(s["start_position"], s["end_position"], s["entity_type"]) for s in r["spans"]]
        r["pred"] = [
            {"start": s, "end": e, "label": lab}
            for s, e, lab in perturb_chars(spans, r["full_text"], labels, rng)
        ]

    def write(path, rows):  # a presidio gold (one record a line) and its predictions
        gold_rows = [{k: v for k, v in r.items() if k != "pred"} for r in rows]
        path.write_text("[\n" + ",\n".join(map(json.dumps, gold_rows)) + "\n]\n")
        preds = [{"text": r["full_text"], "spans": r["pred"]} for r in rows]
        path.with_suffix(".jsonl").write_text("".join(json.dumps(p) + "\n" for p in preds))
        return path, path.with_suffix(".jsonl")

    whole = evaluate_files(
        *write(tmp_path / "all.json", records), slice_by=("template_id",), **SLICED
    )
    alone = {}
    for template in {r["template_id"] for r in records}:
        rows = [r for r in records if r["template_id"] == template]
        alone[str(template)] = evaluate_files(
            *write(tmp_path / f"t{template}.json", rows), **SLICED
        )
    assert_slices_are_their_documents_alone(whole, "template_id", alone)


def test_re3d_sliced_by_folder_is_each_source_alone(tmp_path):
    root, docs = data_path("re3d"), read_re3d()
    labels = sorted({lab for _, _, spans in docs for *_, lab in spans})
    rng = random.Random(9)
    pred = tmp_path / "pred.jsonl"
    pred.write_text(
        span_records(
            [(i, text, perturb_chars(spans, text, labels, rng)) for i, text, spans in docs]
        ),
        encoding="utf-8",
    )
    whole = evaluate_files(root, pred, slice_by=("folder",), **SLICED)
    alone = {
        source.name: evaluate_files(source, pred, pairs="gold", **SLICED)
        for source in root.iterdir()
        if (source / "documents.json").is_file()
    }
    assert_slices_are_their_documents_alone(whole, "folder", alone)
