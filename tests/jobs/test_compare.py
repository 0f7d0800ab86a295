"""``compare``: a clearly better system gets a small p-value, a system compared with itself
gets p = 1 and zero differences (both tests, Python and CLI), and the paired test is
antisymmetric, seeded and refuses systems scored on different documents."""

from __future__ import annotations

import inspect
import json
import random
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from spacy_span_eval import Document, SpanEvaluator
from spacy_span_eval.api import compare_files, report_files
from spacy_span_eval.cli import app
from spacy_span_eval.engine.labels import Hierarchy
from spacy_span_eval.engine.paired import holm, paired_test
from spacy_span_eval.engine.resampling import resample_weights
from spacy_span_eval.engine.spans import Span
from spacy_span_eval.errors import InvalidInputError
from spacy_span_eval.jobs.compare import COMPARISON_SCHEMA, build_report, compare
from spacy_span_eval.jobs.options import ScoringOptions
from spacy_span_eval.readers.options import ReadingOptions

from conftest import (
    data_path,
    flat,
    floors_file,
    perturbed_sentences,
    token_tag_sentences,
    two_column,
)

runner = CliRunner()
LABELS = ["PER", "ORG", "LOC"]


@pytest.fixture(scope="module")
def btc_files(tmp_path_factory):
    """BTC test as CoNLL gold, a good prediction (30% of spans perturbed) and a poor one
    (90%), both seeded."""
    sentences = token_tag_sentences(data_path("btc", "btc.test"))
    out = tmp_path_factory.mktemp("btc")
    files = {}
    for name, rate, seed in (("good", 0.3, 1), ("poor", 0.9, 2)):
        pred = perturbed_sentences(sentences, LABELS, random.Random(seed), rate=rate)
        files[name] = out / f"{name}.conll"
        files[name].write_text(two_column(pred), encoding="utf-8")
    files["gold"] = out / "gold.conll"
    files["gold"].write_text(two_column(sentences), encoding="utf-8")
    return files


@pytest.mark.parametrize("method", ["permutation", "bootstrap"])
def test_clearly_better_system_gets_a_small_p_value(btc_files, method):
    c = compare_files(
        btc_files["gold"],
        btc_files["good"],
        btc_files["poor"],
        resamples=1000,
        seed=0,
        method=method,
    )
    assert c.names == ("good", "poor")
    rows = dict((name, d) for name, d, _ in c.test.named_rows())
    assert set(rows) == {*LABELS, "micro", "macro"}
    for name, d in rows.items():
        assert d.difference > 0.05, name
        assert d.p_value < 0.01, name
        assert 0 < d.low <= d.difference <= d.high, name
    assert c.test.micro.f_a == pytest.approx(c.runs[0].main.micro.f())


@pytest.mark.parametrize("method", ["permutation", "bootstrap"])
def test_a_system_compared_with_itself(btc_files, method):
    c = compare_files(
        btc_files["gold"],
        btc_files["good"],
        btc_files["good"],
        resamples=300,
        seed=3,
        method=method,
    )
    assert c.names == ("A", "B")
    for name, d, _ in c.test.named_rows():
        assert d.difference == 0.0 and d.low == 0.0 and d.high == 0.0, name
        assert d.p_value == 1.0, name
        assert d.f_a == d.f_b


def test_swapping_the_systems_negates_the_difference(btc_files):
    ab = compare_files(btc_files["gold"], btc_files["good"], btc_files["poor"], resamples=200)
    ba = compare_files(btc_files["gold"], btc_files["poor"], btc_files["good"], resamples=200)
    for (name, d, _), (other_name, other, _) in zip(
        ab.test.named_rows(), ba.test.named_rows(), strict=True
    ):
        assert name == other_name
        assert other.difference == pytest.approx(-d.difference)
        assert other.low == pytest.approx(-d.high) and other.high == pytest.approx(-d.low)
        assert other.p_value == d.p_value


def docs(pred_shift: int, ids=("a", "b", "c", "d")) -> list[Document]:
    text = "Ana Berg met Bram Costa in Lisbon today"
    gold = [(0, 8, "PER"), (13, 23, "PER"), (27, 33, "LOC")]
    pred = [(s + pred_shift, e, label) for s, e, label in gold]
    return [Document.create(id=i, text=text, gold=gold, pred=pred) for i in ids]


def varied(seed: int) -> list[Document]:
    rng = random.Random(seed)
    return [d for i in range(30) for d in docs(rng.choice([0, 0, 1, 3, 5]), ids=(f"{i}",))]


def test_paired_test_is_seeded():
    a = SpanEvaluator(per_document=True).evaluate(varied(1))
    b = SpanEvaluator(per_document=True).evaluate(varied(2))
    first = paired_test(a, b, resamples=200, seed=9)
    assert paired_test(a, b, resamples=200, seed=9) == first
    assert paired_test(a, b, resamples=200, seed=10).micro != first.micro


def test_documents_pair_by_id_whatever_their_order():
    a = SpanEvaluator(per_document=True).evaluate(docs(0) + docs(3, ids=("e", "f")))
    b = SpanEvaluator(per_document=True).evaluate(list(reversed(docs(0) + docs(3, ids=("e", "f")))))
    same = paired_test(a, b, resamples=100)
    assert all(d.difference == 0 and d.p_value == 1 for _, d, _ in same.named_rows())


def test_systems_on_different_documents_are_refused():
    a = SpanEvaluator(per_document=True).evaluate(docs(0))
    b = SpanEvaluator(per_document=True).evaluate(docs(0, ids=("a", "b", "c", "x")))
    with pytest.raises(ValueError, match="different documents"):
        paired_test(a, b)


def test_unknown_method_is_refused():
    a = SpanEvaluator(per_document=True).evaluate(docs(0))
    with pytest.raises(ValueError, match="permutation"):
        paired_test(a, a, method="t-test")


def two_documents(tmp_path, n=2):
    """Gold, a system that finds every span and one that finds none, on two (``n``) documents."""
    sentences = ["Ana B-PER\nmet O\nBram B-PER\n\n", "in O\nLisbon B-LOC\n\n", "Kai B-PER\n\n"]
    gold = "".join(sentences[:n])
    none = re.sub(r"[BI]-[A-Z]+", "O", gold)
    paths = tmp_path / "gold.conll", tmp_path / "a.conll", tmp_path / "b.conll"
    for path, text in zip(paths, (gold, gold, none), strict=True):
        path.write_text(text, encoding="utf-8")
    return paths


def test_the_compare_job_alone_takes_the_apis_defaults(tmp_path):
    """The API and the CLI pass every setting to the job; a caller of the job alone gets the
    same defaults."""
    api = inspect.signature(compare_files).parameters
    test = compare(*two_documents(tmp_path), disagreements=None).test
    assert (test.resamples, test.seed, test.confidence, test.method) == tuple(
        api[k].default for k in ("resamples", "seed", "confidence", "method")
    )
    assert (test.resamples, test.method) == (1000, "permutation")


def test_the_comparison_json_has_the_documented_shape(tmp_path):
    """docs/json_schema.md's comparison on the two documents: three gold spans (two PER, one
    LOC), A finds each, B none; each disagreement is one of A's alone."""
    data = compare(*two_documents(tmp_path), names=("sys1", "sys2")).to_dict()
    assert list(data) == [
        "schema",
        "version",
        "settings",
        "threshold",
        "documents",
        "systems",
        "comparison",
        "disagreements",
    ]
    assert (data["schema"], data["version"], data["threshold"], data["documents"]) == (
        COMPARISON_SCHEMA,
        1,
        0.5,
        2,
    )
    assert list(data["systems"]) == ["sys1", "sys2"]
    for system in data["systems"].values():
        assert list(system) == ["inputs", "scores", "intervals"]
        assert "errors" not in system["scores"]
        assert (system["intervals"]["resamples"], system["intervals"]["documents"]) == (1000, 2)
    disagreements = data["disagreements"]
    assert list(disagreements) == [
        "systems",
        "threshold",
        "per_label",
        "total",
        "unpaired_documents",
        "shown",
    ]
    assert disagreements["unpaired_documents"] == 0
    assert disagreements["systems"] == {"a": "sys1", "b": "sys2"}
    assert disagreements["threshold"] == 0.5
    assert disagreements["per_label"] == {
        "LOC": {"a_only": 1, "b_only": 0, "both": 0, "neither": 0},
        "PER": {"a_only": 2, "b_only": 0, "both": 0, "neither": 0},
    }
    assert disagreements["total"] == {"a_only": 3, "b_only": 0}
    assert [d["text"] for d in disagreements["shown"]] == ["Ana", "Bram", "Lisbon"]
    assert disagreements["shown"][0] == {
        "direction": "a_only",
        "document": "gold.conll:1",
        "start": 0,
        "end": 1,
        "label": "PER",
        "text": "Ana",
        "left": "",
        "right": "met Bram",
        "predicted_a": [[0, 1, "PER"]],
        "predicted_b": [],
    }


def test_a_strategy_without_a_threshold_compares_and_finds_the_disagreements(tmp_path):
    scoring = ScoringOptions(strategy="exact")
    data = compare(*two_documents(tmp_path), scoring=scoring).to_dict()
    assert data["threshold"] is None and data["disagreements"]["threshold"] is None
    assert data["disagreements"]["total"] == {"a_only": 3, "b_only": 0}


def test_a_comparison_without_the_disagreement_view_has_null_for_it(tmp_path):
    data = compare(*two_documents(tmp_path), disagreements=None).to_dict()
    assert data["disagreements"] is None


def test_the_label_map_and_the_error_records_asked_for_apply_to_both_systems(tmp_path):
    """B misses the three gold spans: two of its errors are kept, as asked; the label map
    renames PER in both systems' scores and in the disagreements."""
    scoring = ScoringOptions(errors=2, label_map={"PER": "PERSON"})
    c = compare(*two_documents(tmp_path), names=("A", "B"), scoring=scoring)
    assert [len(run.main.errors) for run in c.runs] == [0, 2]
    # the documents those records point to come with them, for the page
    assert [bool(run.documents) for run in c.runs] == [False, True]
    data = c.to_dict()
    for system in data["systems"].values():
        assert sorted(system["scores"]["per_label"]) == ["LOC", "PERSON"]
    assert sorted(data["disagreements"]["per_label"]) == ["LOC", "PERSON"]


def test_the_reading_options_reach_every_read_of_the_files(tmp_path):
    """A third column of ``O`` after the tags: read with ``tag_column=1``, for the scores and
    the disagreements alike."""
    for path in two_documents(tmp_path):
        lines = path.read_text(encoding="utf-8").split("\n")
        path.write_text("\n".join(f"{x} O" if x else x for x in lines), encoding="utf-8")
    paths = [tmp_path / name for name in ("gold.conll", "a.conll", "b.conll")]
    data = compare(*paths, reading=ReadingOptions(tag_column=1)).to_dict()
    assert data["systems"]["a"]["scores"]["micro"]["tp"] == 3
    assert data["disagreements"]["total"] == {"a_only": 3, "b_only": 0}


def test_the_disagreements_are_found_at_the_comparisons_main_threshold(tmp_path):
    """A finds one token of a three-token name (IoU 1/3): a match at 0.3, not at 0.5."""
    gold, a, b = (tmp_path / f"{name}.conll" for name in ("gold", "a", "b"))
    gold.write_text("Ana B-PER\nde I-PER\nBerg I-PER\n\n", encoding="utf-8")
    a.write_text("Ana B-PER\nde O\nBerg O\n\n", encoding="utf-8")
    b.write_text("Ana O\nde O\nBerg O\n\n", encoding="utf-8")
    for main, found in ((0.3, 1), (0.5, 0)):
        scoring = ScoringOptions(thresholds=(main, 0.8))
        data = compare(gold, a, b, scoring=scoring).to_dict()
        assert (data["threshold"], data["disagreements"]["threshold"]) == (main, main)
        assert data["disagreements"]["total"] == {"a_only": found, "b_only": 0}


def test_the_report_and_the_comparison_refuse_hierarchy_levels(tmp_path):
    scoring = ScoringOptions(hierarchy=Hierarchy({"coarse": {"PER": "ENT", "LOC": "ENT"}}))
    message = "the report and the comparison do not show hierarchy levels; score them with evaluate"
    with pytest.raises(ValueError, match=f"^{message}$"):
        compare(*two_documents(tmp_path), scoring=scoring)


def test_the_job_refuses_an_unknown_method_naming_the_known_ones(tmp_path):
    message = "unknown method 't-test'; choose one of permutation, bootstrap"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        compare(*two_documents(tmp_path), method="t-test")


def test_two_systems_of_one_name_are_refused(tmp_path):
    with pytest.raises(ValueError, match="the two systems need different names, not 'A' twice"):
        compare(*two_documents(tmp_path), names=("A", "A"))


@pytest.mark.parametrize("resamples", [1, 2, 3, 1000])
def test_two_documents_never_reach_p_below_one_half(resamples):
    """Two documents have four assignments of their systems, two of which (none swapped, both
    swapped) are as extreme as the observed difference: p is at least 1/2, whatever R."""
    a = SpanEvaluator(per_document=True).evaluate(docs(0, ids=("a", "b")))
    b = SpanEvaluator(per_document=True).evaluate(docs(5, ids=("a", "b")))
    test = paired_test(a, b, resamples=resamples, seed=0)
    assert test.micro.difference > 0.5
    for name, d, _ in test.named_rows():
        for f, fd in d.figures.items():
            assert fd.p_value is None or fd.p_value >= 0.5, (name, f)
    assert test.method == "permutation" and test.exact


# -- the report job --------------------------------------------------------------------------
def test_the_report_takes_the_floors_strategy_and_its_options(tmp_path):
    gold, a, _ = two_documents(tmp_path)
    floors = floors_file(tmp_path, {"PER": {"recall": 0.9}}, strategy="overlap", min_gold=0.9)
    run = build_report(gold, a, floors=floors, resamples=0).runs[0]
    assert (run.result.settings.strategy, run.result.settings.min_gold) == ("overlap", 0.9)
    assert run.verdict is not None and run.verdict.strategy == "overlap"


def test_the_report_scores_with_its_settings_and_gates_at_the_floors_threshold(tmp_path):
    """The scoring's other thresholds and the floors' join the grid; the main one stays the
    first; beta, labels, slices and the bootstrap settings reach the system's run."""
    gold, _, b = two_documents(tmp_path)
    floors = floors_file(tmp_path, {"PER": {"recall": 0.9}}, threshold=0.33)
    scoring = ScoringOptions(thresholds=(0.5, 0.37), beta=2.0, labels=("PER",))
    report = build_report(
        gold,
        b,
        floors=floors,
        scoring=scoring,
        resamples=10,
        seed=3,
        confidence=0.9,
        slice_by=["span-length"],
        name="sys",
    )
    run, (intervals,) = report.runs[0], report.intervals
    settings = run.result.settings
    assert {0.33, 0.37} <= set(settings.thresholds) and run.threshold == 0.5
    assert (settings.beta, settings.labels, list(run.main.per_label)) == (2.0, ("PER",), ["PER"])
    assert run.name == "sys" and run.verdict is not None and run.verdict.threshold == 0.33
    assert run.slices["span-length"]["threshold"] == 0.5
    assert [s["slice"] for s in run.slices["span-length"]["slices"]] == ["1", "2", "3", "4-5", "6+"]
    assert intervals is not None
    assert (intervals.resamples, intervals.seed, intervals.confidence) == (10, 3, 0.9)
    assert intervals.threshold == 0.5


def test_floors_without_a_threshold_gate_the_report_at_its_main_threshold(tmp_path):
    gold, a, _ = two_documents(tmp_path)
    floors = floors_file(tmp_path, {"PER": {"recall": 0.9}})
    scoring = ScoringOptions(thresholds=(0.37, 0.5))
    run = build_report(gold, a, floors=floors, scoring=scoring, resamples=0).runs[0]
    assert run.verdict is not None and (run.threshold, run.verdict.threshold) == (0.37, 0.37)


def test_the_report_job_alone_takes_the_apis_defaults(tmp_path):
    api = inspect.signature(report_files).parameters
    gold, a, _ = two_documents(tmp_path)
    (intervals,) = build_report(gold, a).intervals
    assert intervals is not None
    assert (intervals.resamples, intervals.seed, intervals.confidence) == tuple(
        api[k].default for k in ("resamples", "seed", "confidence")
    )


def test_each_field_slice_of_the_report_has_intervals_with_the_reports_bootstrap_settings(
    tmp_path,
):
    text, spans = "Ana met Bram", [{"start": 0, "end": 3, "label": "PER"}]
    gold = tmp_path / "gold.jsonl"
    rows = [{"id": f"d{i}", "text": text, "spans": spans, "meta": {"src": "x"}} for i in (1, 2)]
    gold.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    run = build_report(
        gold, gold, resamples=10, seed=3, confidence=0.9, slice_by=["meta.src"]
    ).runs[0]
    (only,) = run.slices["meta.src"]["slices"]
    assert only["slice"] == "x"
    assert [only["intervals"][k] for k in ("resamples", "seed", "confidence")] == [10, 3, 0.9]


def test_a_report_is_named_by_its_predictions_stem_and_resamples_0_gives_no_intervals(tmp_path):
    gold, _, b = two_documents(tmp_path)
    report = build_report(gold, b, resamples=0)
    assert report.runs[0].name == "b" and report.intervals == [None]


# -- CLI ---------------------------------------------------------------------------------------
def invoke(*args):
    result = runner.invoke(app, ["compare", *map(str, args)])
    assert "Traceback" not in result.output
    return result


def test_cli_text_and_json(btc_files, tmp_path):
    out = invoke(btc_files["gold"], btc_files["good"], btc_files["poor"], "--resamples", 200)
    assert out.exit_code == 0, out.output
    assert "good vs poor" in out.output and "micro" in out.output
    path = tmp_path / "cmp.json"
    out = invoke(
        btc_files["gold"],
        btc_files["good"],
        btc_files["good"],
        "--resamples",
        100,
        "--format",
        "json",
        "-o",
        path,
        "--name-a",
        "x",
        "--name-b",
        "y",
    )
    assert out.exit_code == 0, out.output
    data = json.loads(path.read_text())
    assert data["schema"] == COMPARISON_SCHEMA and data["version"] == 1
    assert set(data["systems"]) == {"x", "y"}
    micro = data["comparison"]["micro"]
    assert micro["difference"] == 0.0 and micro["p_value"] == 1.0
    assert set(data["comparison"]["per_label"]) == set(LABELS)


def test_cli_html_shows_both_systems(btc_files, tmp_path):
    path = tmp_path / "cmp.html"
    out = invoke(
        btc_files["gold"],
        btc_files["good"],
        btc_files["poor"],
        "--resamples",
        100,
        "--format",
        "html",
        "-o",
        path,
        "--errors",
        20,
    )
    assert out.exit_code == 0, out.output
    page = path.read_text(encoding="utf-8")
    assert 'id="comparison"' in page
    assert sum(int(n) for n in re.findall(r'data-records="(\d+)"', page)) == 40
    assert 'data-system="good"' in page and 'data-system="poor"' in page


@pytest.mark.parametrize(
    "args, message",
    [
        (["missing.conll"], "no such file"),
        (["--method", "t-test"], "t-test"),
        (["--confidence", "1.5"], "less than or equal to"),
    ],
)
def test_cli_bad_input_exits_2(btc_files, args, message):
    files = [btc_files["gold"], btc_files["good"], btc_files["poor"]]
    if args[0].endswith(".conll"):
        files[2] = args[0]
        args = []
    out = invoke(*files, *args)
    assert out.exit_code == 2
    assert message in flat(out.output)


@pytest.mark.parametrize("output_format", ["text", "markdown", "html"])
def test_cli_on_two_documents_says_the_sample_is_small(tmp_path, output_format):
    out = invoke(*two_documents(tmp_path), "--format", output_format, "-o", tmp_path / "cmp")
    assert out.exit_code == 0, out.output
    shown = flat((tmp_path / "cmp").read_text(encoding="utf-8"))
    assert "p < 0.001" not in shown and "p = 0.50" in shown
    assert "Only 2 documents" in shown
    assert "permutation test over all 4 ways" in shown
    assert "the centred paired bootstrap" not in shown


@pytest.mark.parametrize(
    "n, p, shown, documents",
    [
        # A finds every span, B none: of the 2^n assignments, none swapped and all swapped
        # are as extreme as the observed one, so p = 2 / 2^n
        (1, 1.0, "p = 1.0", "1 document:"),
        (2, 0.5, "p = 0.50", "2 documents:"),
        (3, 0.25, "p = 0.25", "3 documents:"),
    ],
)  # fmt: skip
def test_cli_on_one_to_three_documents_gives_the_exact_p_value(tmp_path, n, p, shown, documents):
    files = two_documents(tmp_path, n)
    test = json.loads(invoke(*files, "-f", "json").stdout)["comparison"]
    assert test["micro"]["p_value"] == p and test["exact"]
    text = flat(invoke(*files).stdout)
    assert f"Only {documents} a small sample" in text and f"on {documents} 95%" in text
    assert f"recall is 100.0 points higher (95% CI 100.0 to 100.0); {shown}," in text


def test_cli_json_on_two_documents_says_the_sample_is_small(tmp_path):
    out = invoke(*two_documents(tmp_path), "--format", "json")
    assert out.exit_code == 0, out.output
    test = json.loads(out.stdout)["comparison"]
    assert (test["method"], test["exact"], test["small_sample"]) == ("permutation", True, True)
    assert test["micro"]["p_value"] == 0.5


def test_cli_says_nothing_of_a_small_sample_from_30_documents(btc_files):
    out = invoke(btc_files["gold"], btc_files["good"], btc_files["poor"], "--resamples", 100)
    assert out.exit_code == 0, out.output
    assert "small sample" not in flat(out.stdout)


@pytest.mark.parametrize("output_format", ["text", "markdown", "html"])
def test_cli_says_the_bootstrap_null_is_centred_on_zero(btc_files, tmp_path, output_format):
    """The centred bootstrap's null is its differences less the observed one, centred on 0
    (the resampled differences themselves are the ones centred on the observed difference)."""
    files = btc_files["gold"], btc_files["good"], btc_files["poor"]
    path = tmp_path / "cmp"
    args = "--method", "bootstrap", "--resamples", 50, "-f", output_format, "-o", path
    out = invoke(*files, *args)
    assert out.exit_code == 0, out.output
    shown = flat(path.read_text(encoding="utf-8"))
    assert "centred on the observed difference" not in shown
    assert (
        "the centred paired bootstrap (the resampled differences less the observed one: "
        "the null, centred on 0)"
    ) in shown


def test_cli_refuses_the_bootstrap_test_below_30_documents(tmp_path):
    out = invoke(*two_documents(tmp_path), "--method", "bootstrap")
    assert out.exit_code == 2
    assert "the bootstrap test needs at least 30 paired documents, not 2" in flat(out.output)


def scored_docs(seed: int, n_docs: int = 6, shift: float = 0.0) -> list[Document]:
    """Documents with gold spans and scored predictions near them (``shift`` lowers the
    scores of the right ones: a worse ranking)."""
    rng = random.Random(seed)
    out = []
    for d in range(n_docs):
        gold = [(10 * k, 10 * k + 4, rng.choice(LABELS[:2])) for k in range(rng.randint(1, 4))]
        pred = []
        for s, e, lab in gold:
            if rng.random() < 0.8:
                pred.append((s, e + rng.choice((0, 0, 1)), lab, round(rng.random() - shift, 1)))
        for _ in range(rng.randint(0, 2)):
            s = rng.randrange(50)
            pred.append((s, s + 3, rng.choice(LABELS[:2]), round(rng.random(), 1)))
        out.append(
            Document.create(
                id=f"d{d}", gold=gold, pred=[Span(s, e, lab, x) for s, e, lab, x in pred], length=60
            )
        )
    return out


def _like(doc: Document, pred=None, doc_id=None) -> Document:
    """``doc`` with other predictions and id."""
    return Document.create(
        id=doc_id or doc.id, gold=doc.gold, pred=doc.pred if pred is None else pred, length=60
    )


def _swept(docs: list[Document]):
    return SpanEvaluator(sweep=True, per_document=True).evaluate(docs)


def _ap(result, label=None):
    entry = result.sweep[0]
    return entry["map"] if label is None else entry["per_label"][label]["average_precision"]


@pytest.mark.parametrize("seed", range(3))
def test_average_precision_differences_are_the_exact_permutation_test_of_swept_documents(seed):
    """With few documents the permutation test tries every assignment: its p-value for each
    label's AP and for mAP is the share of documents-swapped systems, each swept from scratch,
    whose AP differs at least as much."""
    sys_a, sys_b = scored_docs(seed), scored_docs(seed + 10, shift=0.3)
    sys_b = [_like(a, b.pred) for a, b in zip(sys_a, sys_b, strict=True)]
    test = paired_test(_swept(sys_a), _swept(sys_b), resamples=200, seed=seed)
    assert test.exact and test.average_precision is not None and test.map is not None
    n = len(sys_a)
    swapped = []
    for code in range(1, 1 << n):
        a = [
            b_doc if code >> i & 1 else a_doc
            for i, (a_doc, b_doc) in enumerate(zip(sys_a, sys_b, strict=True))
        ]
        b = [
            a_doc if code >> i & 1 else b_doc
            for i, (a_doc, b_doc) in enumerate(zip(sys_a, sys_b, strict=True))
        ]
        swapped.append((_swept(a), _swept(b)))
    full_a, full_b = _swept(sys_a), _swept(sys_b)
    for label in [*LABELS[:2], None]:
        got = test.map if label is None else test.average_precision[label]
        observed = _ap(full_a, label) - _ap(full_b, label)
        assert got.a == pytest.approx(_ap(full_a, label))
        assert got.difference == pytest.approx(observed)
        extreme = sum(
            abs(_ap(x, label) - _ap(y, label)) >= abs(observed) - 1e-12 for x, y in swapped
        )
        assert got.p_value == pytest.approx((1 + extreme) / (1 + len(swapped))), label
    family = [test.average_precision[k].p_value for k in LABELS[:2]]
    assert [test.average_precision[k].p_holm for k in LABELS[:2]] == holm(family)


def test_average_precision_bootstrap_interval_is_of_resampled_documents():
    """Each bootstrap resample's AP difference is the sweep of the resampled documents (the
    draws of :func:`resample_weights`); the interval is their percentiles."""
    sys_a, sys_b = scored_docs(7, n_docs=5), scored_docs(8, n_docs=5, shift=0.2)
    sys_b = [_like(a, b.pred) for a, b in zip(sys_a, sys_b, strict=True)]
    test = paired_test(_swept(sys_a), _swept(sys_b), resamples=40, seed=3)
    diffs = []
    for block in resample_weights(5, resamples=40, seed=3):
        for row in block:
            picks = [i for i, k in enumerate(row.astype(int)) for _ in range(k)]
            a = [_like(sys_a[i], doc_id=str(j)) for j, i in enumerate(picks)]
            b = [_like(sys_b[i], doc_id=str(j)) for j, i in enumerate(picks)]
            diffs.append(_ap(_swept(a)) - _ap(_swept(b)))
    low, high = np.percentile(diffs, [2.5, 97.5])
    assert (test.map.low, test.map.high) == pytest.approx((low, high))


def test_a_gold_label_neither_system_predicts_has_average_precision_zero_on_both_sides():
    """A label with gold spans and no scored prediction in either system sweeps no event: its
    AP is 0 for both (as each system's own sweep says), not a crash of the paired test."""
    sys_a, sys_b = scored_docs(4), scored_docs(5, shift=0.3)
    unseen = [Span(50, 55, "MISC")]
    sys_a[0] = Document.create(
        id=sys_a[0].id, gold=[*sys_a[0].gold, *unseen], pred=sys_a[0].pred, length=60
    )
    sys_b = [_like(a, b.pred) for a, b in zip(sys_a, sys_b, strict=True)]
    full_a, full_b = _swept(sys_a), _swept(sys_b)
    assert _ap(full_a, "MISC") == _ap(full_b, "MISC") == 0.0
    test = paired_test(full_a, full_b, resamples=50, seed=1)
    assert test.average_precision is not None and test.map is not None
    got = test.average_precision["MISC"]
    assert (got.a, got.b, got.difference) == (0.0, 0.0, 0.0)
    assert test.map.a == pytest.approx(_ap(full_a)) and test.map.b == pytest.approx(_ap(full_b))


def test_cli_compare_sweep_shows_average_precision_in_every_format(tmp_path):
    sys_a, sys_b = scored_docs(1, n_docs=8), scored_docs(2, n_docs=8, shift=0.3)
    files = {}
    for name, docs_ in (("gold", sys_a), ("a", sys_a), ("b", sys_b)):
        rows = [
            {
                "id": d.id,
                "text": "x" * 60,
                "spans": [
                    {"start": s.start, "end": s.end, "label": s.label, "score": s.score}
                    for s in (d.gold if name == "gold" else d.pred)
                ],
            }
            for d in docs_
        ]
        files[name] = tmp_path / f"{name}.jsonl"
        files[name].write_text("".join(json.dumps(r) + "\n" for r in rows))
    args = [files["gold"], files["a"], files["b"], "--sweep"]
    data = json.loads(invoke(*args, "-f", "json").stdout)["comparison"]
    assert set(data["average_precision"]) == set(LABELS[:2])
    assert data["map"]["difference"] == pytest.approx(data["map"]["a"] - data["map"]["b"])
    for output_format in ("text", "markdown"):
        shown = invoke(*args, "-f", output_format).stdout
        assert "Average precision" in shown and "mAP" in shown, output_format
        assert f"{data['map']['difference']:+.4f}" in shown
    assert (
        "average_precision" not in json.loads(invoke(*args[:-1], "-f", "json").stdout)["comparison"]
    )


@pytest.mark.parametrize("unscored", ["a", "b"])
def test_a_prediction_without_a_score_under_sweep_is_an_error_naming_its_systems_file(
    tmp_path, unscored
):
    files = {}
    for name in ("gold", "a", "b"):
        score = {} if name in ("gold", unscored) else {"score": 0.9}
        span = {"start": 0, "end": 5, "label": "PER", **score}
        files[name] = tmp_path / f"{name}.jsonl"
        files[name].write_text(json.dumps({"id": "d1", "text": "Alice met Bob", "spans": [span]}))
    message = f"^{re.escape(str(files[unscored]))}: .* no score \\(the first: document 'd1'"
    with pytest.raises(InvalidInputError, match=message):
        compare(files["gold"], files["a"], files["b"], scoring=ScoringOptions(sweep=True))
