"""``agree`` (semantics §12): each pairwise F is ``evaluate`` on that pair in both orders
(symmetric under exact; under two_sided it need not be), α is Krippendorff's nominal α (the
``krippendorff`` package on random corpora; hand-worked values), a document an annotator did
not see is missing, not empty, the consensus is a gold file in every format the project
writes, and the command line speaks the agreement in every format."""

from __future__ import annotations

import json
import random
import re
import zipfile
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from spacy.tokens import Doc, DocBin
from spacy.tokens import Span as SpacySpan
from spacy.vocab import Vocab
from typer.testing import CliRunner

from spacy_span_eval.adapters.spacy_docs import DOC_ID_KEY
from spacy_span_eval.api import agree_files
from spacy_span_eval.cli import app
from spacy_span_eval.engine.agreement import nominal_alpha
from spacy_span_eval.engine.bootstrap import bootstrap_intervals
from spacy_span_eval.errors import InvalidInputError
from spacy_span_eval.jobs.agree import agree
from spacy_span_eval.jobs.evaluate import evaluate
from spacy_span_eval.jobs.options import ScoringOptions
from spacy_span_eval.readers.options import ReadingOptions
from spacy_span_eval.render.agreement import render_agreement

from conftest import needs

runner = CliRunner()
LABELS = ["PER", "ORG", "LOC"]
TEXT = "Ann and Bob met Carl at the Dutch bank in Rome on Monday morning."


def _spans(rng: random.Random) -> list[dict[str, object]]:
    out = []
    for _ in range(rng.randint(0, 5)):
        start = rng.randrange(len(TEXT) - 1)
        end = rng.randint(start + 1, min(len(TEXT), start + 12))
        out.append({"start": start, "end": end, "label": rng.choice(LABELS)})
    return out


def _flat(spans: list[dict[str, object]]) -> list[dict[str, object]]:
    """The spans that overlap no span kept before them (one layer, as NER annotations are)."""
    kept: list[dict[str, object]] = []
    for s in spans:
        if all(s["end"] <= k["start"] or k["end"] <= s["start"] for k in kept):  # type: ignore[operator]
            kept.append(s)
    return kept


def _corpus(tmp_path, seed: int, annotators: int = 3, docs: int = 12, missing: float = 0.0):
    """Annotators' JSONL files over one set of documents: the first annotator's spans, the
    others' each kept, moved or relabelled at random; ``missing``: the share of documents an
    annotator (not the first) did not see."""
    rng = random.Random(seed)
    base = {f"d{i}": _spans(rng) for i in range(docs)}
    paths = []
    for k in range(annotators):
        lines = []
        for doc_id, spans in base.items():
            if k and rng.random() < missing:
                continue
            own = [dict(s) for s in spans if k == 0 or rng.random() < 0.8]
            for s in own:
                if k and rng.random() < 0.3:
                    s["label"] = rng.choice(LABELS)
            if k and rng.random() < 0.3:
                own += _spans(rng)[:1]
            lines.append(json.dumps({"id": doc_id, "text": TEXT, "spans": _flat(own)}))
        path = tmp_path / f"ann{k}_{seed}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


@pytest.mark.parametrize("strategy", ["two_sided", "exact"])
@pytest.mark.parametrize("seed", [1, 2])
def test_pairwise_f_is_evaluate_in_both_orders_and_exact_is_symmetric(tmp_path, strategy, seed):
    """Every pair is ``evaluate`` on it, in either order; under ``exact`` A's precision
    against B is B's recall against A (two_sided need not be symmetric: see below)."""
    paths = _corpus(tmp_path, seed)
    scoring = ScoringOptions(strategy=strategy)
    agreement = agree(paths, scoring=scoring)
    names = agreement.annotators
    for i, a in enumerate(paths):
        for j, b in enumerate(paths):
            if i == j:
                continue
            mine = agreement.pairs[(names[i], names[j])]
            theirs = evaluate(a, b, scoring=scoring, details=False).result
            assert mine is not None
            assert mine.scores().micro == theirs.scores().micro
            assert dict(mine.scores().per_label) == dict(theirs.scores().per_label)
            if strategy != "exact":
                continue
            back = agreement.pairs[(names[j], names[i])].scores().micro  # type: ignore[union-attr]
            assert mine.scores().micro.precision() == back.recall()
            assert agreement.pair_f(names[i], names[j]) == agreement.pair_f(names[j], names[i])


def test_pairwise_intervals_are_reports_bootstrap_of_that_pair(tmp_path):
    paths = _corpus(tmp_path, 6, annotators=2, docs=20)
    agreement = agree(paths, resamples=200, seed=3, confidence=0.9)
    a, b = agreement.annotators
    scored = evaluate(paths[1], paths[0], per_document=True).result
    theirs = bootstrap_intervals(scored, resamples=200, seed=3, confidence=0.9)
    assert agreement.intervals[(b, a)] == theirs
    ci = agreement.f_interval(b, a)
    assert ci is not None and ci.low is not None and ci.high is not None
    assert ci.low <= agreement.pair_f(b, a) <= ci.high  # type: ignore[operator]
    data = agreement.to_dict()["pairs"][1]
    assert data["intervals"]["micro"]["f"] == ci.to_dict()
    assert f"[{ci.low:.3f}, {ci.high:.3f}]" in render_agreement(agreement)
    assert "90% percentile bootstrap over documents" in render_agreement(agreement)
    bare = agree(paths, resamples=0)
    assert bare.f_interval(a, b) is None and bare.to_dict()["pairs"][0]["intervals"] is None
    assert "[" not in render_agreement(bare).split("Per label")[0]


def test_f_beta_is_named_where_beta_is_not_1(tmp_path):
    """P = 2/3 and R = 1/2: F2 = 5PR / (4P + R) = 10/19; the report says which F it shows."""
    files = [
        _write(tmp_path / "a.jsonl", [_doc("d1", ALICE, BOB, PARIS), _doc("d2", ALICE)]),
        _write(tmp_path / "b.jsonl", [_doc("d1", ALICE, PARIS_ORG), _doc("d2", ALICE)]),
    ]
    agreement = agree(files, scoring=ScoringOptions(beta=2.0), resamples=0)
    assert agreement.pair_f("a", "b") == pytest.approx(10 / 19)
    assert agreement.to_dict()["settings"]["beta"] == 2.0
    assert "char unit; every F is F2" in render_agreement(agreement)
    assert "every F" not in render_agreement(agree(files, resamples=0))


@pytest.mark.parametrize(
    ("a", "b", "strategy", "f_ab", "f_ba"),
    [
        # B splits A's span in three: jointly they cover it (IoU 1) as predictions; as gold
        # each is a third of A (IoU <= 0.4 < 0.5), so none is found.
        ([(0, 10)], [(0, 3), (3, 6), (6, 10)], "two_sided", 1.0, 0.0),
        # B's [0, 8) lies inside its own [0, 10): not credited as a prediction (a minimal
        # cover leaves it out), found as gold (IoU 0.8 with A's span).
        ([(0, 10)], [(0, 10), (0, 8)], "two_sided", 2 / 3, 1.0),
        ([(0, 10)], [(0, 5), (5, 10)], "two_sided", 1.0, 1.0),
        ([(0, 10)], [(0, 10), (0, 8)], "exact", 2 / 3, 2 / 3),
    ],
)
def test_two_sided_pairwise_f_need_not_be_symmetric(tmp_path, a, b, strategy, f_ab, f_ba):
    for name, spans in (("a", a), ("b", b)):
        row = {
            "id": "d",
            "text": TEXT,
            "spans": [{"start": s, "end": e, "label": "PER"} for s, e in spans],
        }
        (tmp_path / f"{name}.jsonl").write_text(json.dumps(row) + "\n")
    paths = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]
    agreement = agree(paths, scoring=ScoringOptions(strategy=strategy), resamples=0)
    assert agreement.pair_f("a", "b") == pytest.approx(f_ab)
    assert agreement.pair_f("b", "a") == pytest.approx(f_ba)


def _reliability(paths, labels) -> tuple[np.ndarray, np.ndarray]:
    """Coders × characters, label-set codes (nan: not seen), and per label 0/1 (nan)."""
    rows = [
        {r["id"]: r["spans"] for r in map(json.loads, p.read_text().splitlines())} for p in paths
    ]
    ids = sorted({i for r in rows for i in r})
    sets: dict[frozenset[str], int] = {}
    overall = np.full((len(paths), len(ids) * len(TEXT)), np.nan)
    per_label = np.full((len(labels), *overall.shape), np.nan)
    for k, row in enumerate(rows):
        for d, doc_id in enumerate(ids):
            if doc_id not in row:
                continue
            for pos in range(len(TEXT)):
                here = frozenset(s["label"] for s in row[doc_id] if s["start"] <= pos < s["end"])
                overall[k, d * len(TEXT) + pos] = sets.setdefault(here, len(sets))
                for li, label in enumerate(labels):
                    per_label[li, k, d * len(TEXT) + pos] = label in here
    return overall, per_label


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_alpha_equals_the_krippendorff_package(tmp_path, seed):
    krippendorff = needs("krippendorff", "the test extra")
    paths = _corpus(tmp_path, seed, annotators=4, missing=0.25)
    agreement = agree(paths)
    labels = agreement.labels()
    overall, per_label = _reliability(paths, labels)
    expected = krippendorff.alpha(reliability_data=overall, level_of_measurement="nominal")
    assert agreement.alpha == pytest.approx(expected, abs=1e-9)
    for li, label in enumerate(labels):
        want = krippendorff.alpha(reliability_data=per_label[li], level_of_measurement="nominal")
        assert agreement.label_alpha[label] == pytest.approx(want, abs=1e-9)


_ = -1  # (no value)


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        # Krippendorff (2011), "Computing Krippendorff's alpha-reliability", the nominal
        # example: 4 observers, 12 units, missing values.
        (
            [
                [1, 2, 3, 3, 2, 1, 4, 1, 2, _, _, _],
                [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, _, 3],
                [_, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, _],
                [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, _],
            ],
            0.7434210526315789,
        ),
        # n = 8 values: o00 = 2, o01 = o10 = 1, o11 = 4; 1 - 7 * 2 / (64 - 9 - 25) = 8/15.
        ([[0, 0, 1, 1], [0, 1, 1, 1]], 8 / 15),
        ([[0, 1, 0, 1], [0, 1, 0, 1]], 1.0),
        # one disagreement in two units of one category each: o01 = o10 = 1 of n = 4.
        ([[0, 1], [1, 1]], 1 - 3 * 2 / (16 - 1 - 9)),
        ([[0, 0, 0], [0, 0, 0]], None),  # one category: undefined
        ([[0, _, 1], [_, 1, _]], None),  # no unit with two values
    ],
)
def test_nominal_alpha_hand_worked(values, expected):
    got = nominal_alpha(np.array(values))
    assert got == (None if expected is None else pytest.approx(expected, abs=1e-12))


@pytest.mark.parametrize(
    ("values", "exact"),
    [
        # 2 coders, 4 units of "none", 8 of PER, 2 split: 1 - 27 * 4 / (784 - 100 - 324)
        ([[0] * 4 + [1] * 8 + [0] * 2, [0] * 4 + [1] * 8 + [1] * 2], Fraction(7, 10)),
        # a unit of three values weighs each pair 1/2: 1 - 8 * (2 + 2) / (81 - 16 - 25), where
        # summing the weighted pairs as floats gave 0.19999999999999996
        ([[1, _, _, 0], [0, 0, 1, _], [1, 0, 1, 1]], Fraction(1, 5)),
    ],
)
def test_nominal_alpha_is_the_exact_value_rounded_once(values, exact):
    """So an α that meets a floor exactly reads as meeting it (the gate compares the decimal
    written with the float it rounds to)."""
    assert nominal_alpha(np.array(values)) == float(exact)


def test_an_alpha_exactly_at_its_floor_passes(tmp_path):
    """PER alpha is exactly 0.7 (the first case above, in characters of one document)."""
    text = "Alice met Bob."
    files = [
        _write(tmp_path / f"{n}.jsonl", [{"id": "d", "text": text, "spans": spans}])
        for n, spans in (
            ("a", [{"start": 4, "end": 12, "label": "PER"}]),
            ("b", [{"start": 4, "end": 14, "label": "PER"}]),
        )
    ]
    agreement = agree(files, floors={"PER": Decimal("0.7")}, resamples=0)
    assert agreement.label_alpha["PER"] == 0.7 and agreement.passed, agreement.breaches


def test_a_document_not_seen_is_missing_not_empty(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    doc = {"id": "d1", "text": "Ann met Bob.", "spans": [{"start": 0, "end": 3, "label": "PER"}]}
    other = {"id": "d2", "text": "Carl ran.", "spans": [{"start": 0, "end": 4, "label": "PER"}]}
    a.write_text(json.dumps(doc) + "\n" + json.dumps(other) + "\n", encoding="utf-8")
    b.write_text(json.dumps(doc) + "\n", encoding="utf-8")
    seen = agree([a, b])
    assert seen.alpha == 1.0 and seen.pair_f("a", "b") == 1.0
    assert seen.pairs[("a", "b")].n_documents == 1  # type: ignore[union-attr]
    assert seen.n_documents == 2
    b.write_text(json.dumps(doc) + "\n" + json.dumps({**other, "spans": []}) + "\n")
    empty = agree([a, b])  # (an empty d2 is a disagreement)
    assert empty.alpha is not None and empty.alpha < 1.0
    assert empty.queue[0]["id"] == "d2" and empty.queue[0]["contested"] == 1


def test_the_queue_holds_contested_documents_alone_in_every_format(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    doc = {"id": "d1", "text": "Ann met Bob.", "spans": [{"start": 0, "end": 3, "label": "PER"}]}
    a.write_text(json.dumps(doc) + "\n" + json.dumps({**doc, "id": "d2"}) + "\n")
    b.write_text(json.dumps(doc) + "\n" + json.dumps({**doc, "id": "d2", "spans": []}) + "\n")
    out = runner.invoke(app, ["agree", str(a), str(b), "-f", "json"])
    assert [d["id"] for d in json.loads(out.stdout)["queue"]] == [
        "d2"
    ]  # (d1: nothing to adjudicate)


def test_the_queue_lists_each_annotators_spans(tmp_path):
    paths = _corpus(tmp_path, 6, docs=6)
    agreement = agree(paths, queue=0)
    contested = [d["contested"] for d in agreement.queue]
    assert contested == sorted(contested, reverse=True) and 0 not in contested
    first = agreement.queue[0]
    assert set(first["spans"]) == set(agreement.annotators)
    start, end, label, text = first["spans"]["ann0_6"][0]
    assert text == TEXT[start:end] and label in LABELS


def test_cli_agree_json_text_and_bad_input(tmp_path):
    paths = [str(p) for p in _corpus(tmp_path, 7)]
    out = runner.invoke(app, ["agree", *paths, "-f", "json", "--names", "x,y,z"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["schema"] == "spacy-span-eval/agreement" and data["annotators"] == ["x", "y", "z"]
    assert len(data["pairs"]) == 6 and set(data["alpha"]["per_label"]) <= set(LABELS)
    text = runner.invoke(app, ["agree", *paths, "-s", "exact"])
    assert text.exit_code == 0 and "Krippendorff's alpha" in text.stdout
    assert "exact," in text.stdout  # (no threshold for exact)
    one = runner.invoke(app, ["agree", paths[0]])
    assert one.exit_code == 2 and "at least two" in one.output
    api = agree_files(*paths, output_format="markdown", output=tmp_path / "agree.md")
    assert (tmp_path / "agree.md").read_text().startswith("## Annotator agreement")
    assert api.annotators == ["ann0_7", "ann1_7", "ann2_7"]


@pytest.mark.parametrize("flag", ["--sweep", "--map-thresholds"])
def test_agree_offers_no_score_sweep(tmp_path, flag):
    """Annotators' spans carry no scores and agree shows no sweep: the flag is not offered."""
    paths = [str(p) for p in _corpus(tmp_path, 7, annotators=2)]
    assert flag not in runner.invoke(app, ["agree", "--help"]).stdout
    out = runner.invoke(app, ["agree", *paths, flag])
    assert out.exit_code == 2 and "No such option" in out.output


def test_names_are_trimmed_and_a_blank_one_is_refused(tmp_path):
    paths = [str(p) for p in _corpus(tmp_path, 7, annotators=2)]
    out = runner.invoke(app, ["agree", *paths, "--names", "x, y", "-f", "json"])
    assert out.exit_code == 0 and json.loads(out.stdout)["annotators"] == ["x", "y"]
    blank = runner.invoke(app, ["agree", *paths, "--names", "x,"])
    assert blank.exit_code == 2 and "one distinct name each" in blank.stderr


def test_the_html_page_shows_the_heatmap_alpha_and_each_annotators_spans(tmp_path):
    """``--output x.html`` writes the page (``-f`` wins): the pairwise F as a heatmap, α per
    label, and a card per contested document with every annotator's spans on its text."""
    paths = [str(p) for p in _corpus(tmp_path, 8)]
    out = runner.invoke(app, ["agree", *paths, "-o", str(tmp_path / "a.html"), "--names", "x,y,z"])
    assert out.exit_code == 0, out.output
    page = (tmp_path / "a.html").read_text()
    agreement = agree(paths, names=["x", "y", "z"])
    assert page == render_agreement(agreement, "html") + "\n"
    assert page.startswith("<!DOCTYPE html>") and "pairwise F heatmap" in page
    assert f">{agreement.pair_f('x', 'y'):.2f}</text>" in page
    for label, alpha in agreement.label_alpha.items():
        assert f"<td>{label}</td><td>{alpha:.4f}</td>" in page
    cards = [d for d in agreement.queue if d["contested"]]
    assert page.count('<div class="error-card">') == len(cards) > 0
    for name, spans in cards[0]["spans"].items():
        for _, _, label, _ in spans:
            assert f"{name}: {label}" in page
    assert "error-list" not in page  # (the report's error browser is not on it)
    md = runner.invoke(app, ["agree", *paths, "-o", str(tmp_path / "a.html"), "-f", "markdown"])
    assert md.exit_code == 0 and (tmp_path / "a.html").read_text().startswith("## Annotator")


SAY = "Alice met Bob in Paris."
SAID = {"alice": [(0, 5, "PER"), (10, 13, "PER"), (17, 22, "LOC")], "bob": [(0, 5, "PER")]}


def _prodigy_answer(annotator: str, doc: int, spans) -> dict[str, object]:
    return {
        "text": SAY,
        "_input_hash": doc,
        "_task_hash": 1000 + doc,
        "spans": [{"start": s, "end": e, "label": lab} for s, e, lab in spans],
        "answer": "accept",
        "_view_id": "ner_manual",
        "_annotator_id": f"news-{annotator}",
        "_session_id": f"news-{annotator}",
    }


def test_a_prodigy_db_out_of_three_annotators(tmp_path):
    """carol saw document 2 only; alice and carol agree there, bob missed two spans."""
    rows = [
        _prodigy_answer("alice", 1, SAID["alice"]),
        _prodigy_answer("bob", 1, SAID["bob"]),
        _prodigy_answer("alice", 2, SAID["alice"]),
        _prodigy_answer("bob", 2, SAID["alice"]),
        _prodigy_answer("carol", 2, SAID["alice"]),
    ]
    path = tmp_path / "db_out.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    names = ["news-alice", "news-bob", "news-carol"]
    agreement = agree([path], annotators=names)
    assert agreement.annotators == names
    assert agreement.pairs[("news-alice", "news-carol")].n_documents == 1  # type: ignore[union-attr]
    assert agreement.pair_f("news-alice", "news-carol") == 1.0
    assert agreement.pair_f("news-alice", "news-bob") == pytest.approx(2 * 4 / (6 + 4))
    assert agreement.queue[0]["id"] == "1" and agreement.queue[0]["contested"] == 2
    assert agreement.queue[0]["annotators"] == ["news-alice", "news-bob"]
    assert 0 < agreement.alpha < 1  # type: ignore[operator]
    listed = agree([path])  # (without --annotators: every annotator the export lists)
    assert listed.annotators == names and listed.to_dict() == agreement.to_dict()


@pytest.mark.parametrize("named", [[], ["--annotators", "news-alice,news-bob"]])
def test_annotator_is_refused_where_agree_reads_every_annotator_of_one_export(tmp_path, named):
    """``--annotator`` chooses one annotator's answers of each file; of one export agree reads
    every annotator (or those ``--annotators`` names), so it would be ignored."""
    rows = [_prodigy_answer(who, 1, SAID[who]) for who in ("alice", "bob")]
    path = tmp_path / "db_out.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = runner.invoke(app, ["agree", str(path), *named, "--annotator", "news-alice"])
    assert out.exit_code == 2 and "--annotators NAME,NAME" in out.stderr, out.output


def test_a_prodigy_db_out_with_session_ids_only(tmp_path):
    """Exports from before Prodigy wrote ``_annotator_id`` name each annotator's answers by
    ``_session_id`` only: those are the annotators then, listed or named."""
    rows = [
        {k: v for k, v in _prodigy_answer(who, doc, SAID[said]).items() if k != "_annotator_id"}
        for who, doc, said in (("alice", 1, "alice"), ("bob", 1, "bob"), ("bob", 2, "bob"))
    ]
    path = tmp_path / "db_out.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    agreement = agree([path], resamples=0)
    assert agreement.annotators == ["news-alice", "news-bob"]
    assert agreement.pair_f("news-alice", "news-bob") == pytest.approx(2 * 1 / (3 + 1))
    named = agree([path], annotators=["news-bob", "news-alice"], resamples=0)
    assert named.pair_f("news-bob", "news-alice") == agreement.pair_f("news-alice", "news-bob")


@pytest.mark.parametrize("carols", [{}, {"_annotator_id": None}])
def test_an_answer_without_an_annotator_id_is_its_sessions(tmp_path, carols):
    """An answer without ``_annotator_id`` (or null) is its ``_session_id``'s, listed as such
    beside the annotator ids of the others (never left out of every annotator's reading)."""
    rows = [_prodigy_answer(who, 1, SAID[who]) for who in ("alice", "bob")]
    carol = {k: v for k, v in _prodigy_answer("carol", 1, []).items() if k != "_annotator_id"}
    rows.append({**carol, **carols})
    path = tmp_path / "db_out.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert agree([path], resamples=0).annotators == ["news-alice", "news-bob", "news-carol"]


@pytest.mark.parametrize(
    ("name", "rows", "where"),
    [
        (
            "db_out.jsonl",
            [
                {"text": SAY, "_input_hash": 1, "spans": [], "_annotator_id": "news-alice"},
                {"text": SAY, "_input_hash": 1, "spans": []},
            ],
            "line 2",
        ),
        (
            "export.json",
            [
                {
                    "id": 7,
                    "data": {"text": SAY},
                    "annotations": [{"completed_by": 1, "result": []}, {"result": []}],
                }
            ],
            "task 7",
        ),
        (
            "min.json",
            [
                {"id": 7, "text": SAY, "label": [], "annotator": "a@x.org", "annotation_id": 1},
                {"id": 7, "text": SAY, "label": [], "annotation_id": 2},
            ],
            "line 1",
        ),
    ],
)
def test_an_answer_of_no_annotator_is_an_error_naming_it(tmp_path, name, rows, where):
    """agree reads a multi-annotator export once per annotator it lists: an answer that names
    no annotator would be in no one's reading, so it is refused, naming the file and where."""
    path = tmp_path / name
    text = json.dumps(rows) if name.endswith(".json") else "\n".join(map(json.dumps, rows))
    path.write_text(text, encoding="utf-8")
    fmt = {"min.json": "labelstudio-min"}.get(name)
    with pytest.raises(InvalidInputError, match=f"{name} .*{where}.*no annotator"):
        agree([path], reading=ReadingOptions(input_format=fmt), resamples=0)


def _ls_annotation(user: int, spans) -> dict[str, object]:
    return {
        "id": user * 100 + len(spans),
        "was_cancelled": False,
        "completed_by": {"id": user, "email": f"u{user}@example.com"},
        "result": [
            {
                "id": f"r{user}{start}",
                "from_name": "label",
                "to_name": "text",
                "type": "labels",
                "value": {"start": start, "end": end, "text": SAY[start:end], "labels": [label]},
            }
            for start, end, label in spans
        ],
    }


def test_a_label_studio_export_of_two_annotations_per_task(tmp_path):
    tasks = [
        {
            "id": i,
            "data": {"text": SAY},
            "annotations": [_ls_annotation(1, SAID["alice"]), _ls_annotation(2, spans)],
            "predictions": [],
        }
        for i, spans in ((1, SAID["bob"]), (2, SAID["alice"]))
    ]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(tasks), encoding="utf-8")
    out = runner.invoke(
        app, ["agree", str(path), "--annotators", "u1@example.com,u2@example.com", "-f", "json"]
    )
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    first = data["pairs"][0]
    assert first["documents"] == 2 and first["micro"]["tp"] == 4 and first["micro"]["fn"] == 2
    assert [d["contested"] for d in data["queue"]] == [2]
    listed = runner.invoke(app, ["agree", str(path), "-f", "json"])
    assert listed.exit_code == 0 and json.loads(listed.stdout) == data
    two = runner.invoke(app, ["agree", str(path), str(path), "--annotators", "a,b"])
    assert two.exit_code == 2 and "one file" in two.output


def test_a_doccano_zip_lists_its_users_and_one_file_of_one_annotator_is_refused(tmp_path):
    lines = {
        user: "".join(
            json.dumps({"id": i, "text": SAY, "label": [list(s) for s in spans]}) + "\n"
            for i, spans in enumerate((SAID["alice"], said), 1)
        )
        for user, said in (("ann", SAID["alice"]), ("ben", SAID["bob"]))
    }
    path = tmp_path / "export.zip"
    with zipfile.ZipFile(path, "w") as zf:
        for user, text in lines.items():
            zf.writestr(f"{user}.jsonl", text)
    listed = agree([path])
    assert listed.annotators == ["ann", "ben"]
    assert listed.to_dict() == agree([path], annotators=["ann", "ben"]).to_dict()
    assert listed.pair_f("ann", "ben") == pytest.approx(2 * 4 / (6 + 4))
    one = tmp_path / "ann.jsonl"
    one.write_text(lines["ann"])
    with pytest.raises(InvalidInputError, match="at least two annotators"):
        agree([one])


def _write(path, docs) -> str:
    path.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    return str(path)


def _doc(doc_id, *spans):
    return {
        "id": doc_id,
        "text": SAY,
        "spans": [{"start": s, "end": e, "label": lab} for s, e, lab in spans],
    }


ALICE, BOB, PARIS, PARIS_ORG = (0, 5, "PER"), (10, 13, "PER"), (17, 22, "LOC"), (17, 22, "ORG")


def test_consensus_keeps_the_majority_and_lists_ties(tmp_path):
    """d1: three annotators (ALICE 3/3, BOB 2/3 kept; PARIS and PARIS_ORG 1/3 dropped); d2:
    only two saw it, and they split on PARIS's label: both are ties, listed, neither kept."""
    files = [
        _write(tmp_path / "a.jsonl", [_doc("d1", ALICE, BOB, PARIS), _doc("d2", PARIS)]),
        _write(tmp_path / "b.jsonl", [_doc("d1", ALICE, BOB), _doc("d2", PARIS_ORG)]),
        _write(tmp_path / "c.jsonl", [_doc("d1", ALICE, PARIS_ORG)]),
    ]
    out = tmp_path / "consensus.jsonl"
    result = runner.invoke(app, ["agree", *files, "--write-consensus", str(out)])
    assert result.exit_code == 0, result.output
    assert "Saved the consensus of 2 documents" in result.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    spans = {r["id"]: [(s["start"], s["end"], s["label"]) for s in r["spans"]] for r in rows}
    assert spans == {"d1": [ALICE, BOB], "d2": []}
    assert [(r["contested"], r["ties"]) for r in rows] == [(3, 0), (2, 2)]
    listed = agree_files(*files, output_format="json").to_dict()["ties"]
    ties = [(t["id"], t["start"], t["end"], t["label"], t["votes"], t["of"]) for t in listed]
    assert ties == [("d2", *PARIS, 1, 2), ("d2", *PARIS_ORG, 1, 2)]
    # the consensus is a gold file every command reads
    scored = evaluate(out, files[0], scoring=ScoringOptions(strategy="exact")).result
    assert (scored.micro.tp, scored.micro.fp, scored.micro.fn) == (2, 2, 0)


def test_a_pair_that_gave_no_span_on_its_shared_documents_has_no_f(tmp_path):
    """b and c saw only d2 together, where neither gave a span: their F is undefined (as for a
    pair without a document in common), the others are still scored; when no pair gave a span
    at all, the run is refused as an empty evaluation is."""
    files = [
        _write(tmp_path / "a.jsonl", [_doc("d1", ALICE)]),
        _write(tmp_path / "b.jsonl", [_doc("d1", ALICE), _doc("d2")]),
        _write(tmp_path / "c.jsonl", [_doc("d2")]),
    ]
    agreement = agree(files, resamples=10)
    assert agreement.pair_f("a", "b") == 1.0
    assert agreement.pairs[("b", "c")] is None and agreement.pair_f("c", "b") is None
    assert agreement.intervals[("b", "c")] is None
    assert agreement.mean_f("c") is None and agreement.mean_f("b") == 1.0
    result = runner.invoke(app, ["agree", *files, "--resamples", "0"])
    assert result.exit_code == 0, result.output
    assert re.search(r"\nc +- +- *\n", result.stdout)  # (its row of the matrix)
    empty = [_write(tmp_path / f"{n}.jsonl", [_doc("d2")]) for n in ("x", "y")]
    with pytest.raises(InvalidInputError, match="nothing to evaluate"):
        agree(empty)


def test_one_document_and_one_span_are_counted_in_the_singular(tmp_path):
    files = [
        _write(tmp_path / "a.jsonl", [_doc("d1", ALICE)]),
        _write(tmp_path / "b.jsonl", [_doc("d1", ALICE, BOB)]),
    ]
    agreement = agree(files, resamples=0)
    assert render_agreement(agreement).startswith("2 annotators, 1 document; ")
    assert "a: 1 span; b: 2 spans" in render_agreement(agreement, "html")
    out = runner.invoke(app, ["agree", *files, "--write-consensus", str(tmp_path / "c.jsonl")])
    assert "consensus of 1 document to " in out.stderr and "(1 tied span listed" in out.stderr


def test_the_consensus_and_the_report_never_share_an_output(tmp_path):
    files = [_write(tmp_path / f"{n}.jsonl", [_doc("d1", ALICE)]) for n in "ab"]
    out = str(tmp_path / "out.txt")
    same = runner.invoke(app, ["agree", *files, "-o", out, "--write-consensus", out])
    assert (
        same.exit_code == 2 and "--write-consensus and --output name the same file" in same.stderr
    )
    assert not (tmp_path / "out.txt").exists()
    both = runner.invoke(app, ["agree", *files, "--write-consensus", "-"])
    assert both.exit_code == 2 and "report goes to stdout too" in both.stderr
    alone = runner.invoke(app, ["agree", *files, "--write-consensus", "-", "--silent"])
    assert alone.exit_code == 0 and json.loads(alone.stdout)["spans"] == [
        {"start": 0, "end": 5, "label": "PER"}
    ]


@pytest.mark.parametrize(
    ("floors", "code", "said"),
    [
        ({"PER": 0.5}, 0, "Agreement gate passed: 1 alpha floor(s) hold"),
        ({"alpha": {"PER": 0.5, "LOC": 0.9}}, 1, "LOC alpha"),
        ({"PER": 0.5, "MISC": 0.1}, 1, "MISC alpha undefined"),
    ],
)
def test_alpha_floors_gate_naming_the_label(tmp_path, floors, code, said):
    files = [
        _write(tmp_path / "a.jsonl", [_doc("d1", ALICE, BOB, PARIS)]),
        _write(tmp_path / "b.jsonl", [_doc("d1", ALICE, BOB, PARIS_ORG)]),
    ]
    floors_file = tmp_path / "floors.json"
    floors_file.write_text(json.dumps(floors), encoding="utf-8")
    result = runner.invoke(app, ["agree", *files, "--floors", str(floors_file), "-f", "json"])
    assert result.exit_code == code, result.output
    assert said in result.stderr
    gate = json.loads(result.stdout)["gate"]
    assert gate["passed"] is (code == 0) and len(gate["breaches"]) == code
    for shown in ("text", "markdown"):  # (the saved report says it too, as the page does)
        result = runner.invoke(app, ["agree", *files, "--floors", str(floors_file), "-f", shown])
        assert result.exit_code == code and said in result.stdout, shown


@pytest.mark.parametrize("floor", [1.5, -0.1, float("nan"), True, "x"])
def test_alpha_floors_given_in_python_are_checked_as_a_files_are(tmp_path, floor):
    files = [_write(tmp_path / f"{n}.jsonl", [_doc("d1", ALICE)]) for n in "ab"]
    with pytest.raises(InvalidInputError, match="alpha floor of 'PER' must be a number in"):
        agree(files, floors={"PER": floor}, resamples=0)


def test_token_files_pair_as_evaluate_pairs_them_and_ties_are_shown(tmp_path):
    """CoNLL files without ids pair by position, in token unit, each pair as ``evaluate``
    scores it (which reads two column files on its own road)."""
    tags = {
        "a": ("B-PER O B-PER O B-LOC", "B-PER O"),
        "b": ("B-PER O O O B-ORG", "B-PER O"),
    }
    words = ("Alice met Bob in Paris", "Carol ran")
    files = []
    for name, doc_tags in tags.items():
        blocks = [
            "\n".join(f"{w} {t}" for w, t in zip(ws.split(), ts.split(), strict=True))
            for ws, ts in zip(words, doc_tags, strict=True)
        ]
        files.append(tmp_path / f"{name}.conll")
        files[-1].write_text("\n\n".join(blocks) + "\n", encoding="utf-8")
    agreement = agree(files)
    assert agreement.settings["unit"] == "token"
    for a, b in (("a", "b"), ("b", "a")):
        theirs = evaluate(tmp_path / f"{a}.conll", tmp_path / f"{b}.conll").result
        assert agreement.pairs[(a, b)].scores().micro == theirs.micro  # type: ignore[union-attr]
    assert [(t["id"], t["start"], t["end"], t["label"]) for t in agreement.ties] == [
        ("#1", 10, 13, "PER"),
        ("#1", 17, 22, "LOC"),
        ("#1", 17, 22, "ORG"),
    ]
    shown = runner.invoke(app, ["agree", *map(str, files), "-f", "markdown"])
    assert "| #1 | 10 | 13 | PER | 1 of 2 |" in shown.stdout


def test_spans_off_the_first_annotators_tokens_are_counted_not_lost(tmp_path):
    """b's "York" cannot be placed on a's tokens ("New York" is one): scored as an unmatched
    prediction against a, and left out of alpha, the queue and the consensus, counted."""
    files = []
    for name, words, (start, end) in (
        ("a", ["New York", "."], (0, 1)),
        ("b", ["New", "York", "."], (1, 2)),
    ):
        docbin = DocBin()
        doc = Doc(Vocab(), words=words, spaces=[True] * (len(words) - 2) + [False, False])
        doc.user_data[DOC_ID_KEY] = "d1"
        doc.ents = [SpacySpan(doc, start, end, label="LOC")]
        docbin.add(doc)
        files.append(tmp_path / f"{name}.spacy")
        docbin.to_disk(files[-1])
    agreement = agree(files, reading=ReadingOptions(unit="token"), resamples=0)
    assert agreement.pairs[("a", "b")].scores().micro.fp == 1  # type: ignore[union-attr]
    assert agreement.queue[0]["spans"] == {"a": [[0, 1, "LOC", "New York"]], "b": []}
    assert agreement.unplaced == {"b": 1} and agreement.to_dict()["unplaced"] == {"b": 1}
    assert "1 span of b not placed on the tokens" in render_agreement(agreement)


WORDS = ["Ann", "Bob", "met", "the", "Dutch", "bank", "in", "Rome", "on", "Monday", "at", "noon"]


def _brat_project(root, seed: int, annotators: int = 3, docs: int = 8, flat: bool = False):
    """A brat project as bratiaa lays it out (annotation.conf at the root, a folder per
    annotator, every document in each) of spans on whitespace-token bounds: the first
    annotator's at random, the others' kept, relabelled, moved by a token or added.
    ``flat``: no two spans of one label overlap in an annotator's document."""
    rng = random.Random(seed)
    root.mkdir()
    (root / "annotation.conf").write_text("[entities]\n" + "\n".join(LABELS) + "\n")
    texts = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 14))) for _ in range(docs)]
    tokens = [[(m.start(), m.end()) for m in re.finditer(r"\S+", t)] for t in texts]

    def span(n: int) -> tuple[int, int, str]:
        first = rng.randrange(n)
        return first, min(n, first + rng.randint(1, 3)), rng.choice(LABELS)

    base = [[span(len(tok)) for _ in range(rng.randint(1, 4))] for tok in tokens]
    for k in range(annotators):
        folder = root / f"a{k + 1}"
        folder.mkdir()
        for d, (text, tok) in enumerate(zip(texts, tokens, strict=True)):
            own = [s for s in base[d] if k == 0 or rng.random() < 0.8]
            if k:
                own = [
                    (max(0, a - (rng.random() < 0.2)), b, lab if rng.random() < 0.8 else "PER")
                    for a, b, lab in own
                ] + [span(len(tok)) for _ in range(rng.random() < 0.4)]
            own = list(dict.fromkeys(own))
            if flat:
                own = [
                    s
                    for i, s in enumerate(own)
                    if all(t[2] != s[2] or t[1] <= s[0] or s[1] <= t[0] for t in own[:i])
                ]
            (folder / f"d{d}.txt").write_text(text)
            lines = [
                f"T{i}\t{lab} {tok[a][0]} {tok[b - 1][1]}\t{text[tok[a][0] : tok[b - 1][1]]}\n"
                for i, (a, b, lab) in enumerate(own, 1)
            ]
            (folder / f"d{d}.ann").write_text("".join(lines))
    return sorted(p for p in root.iterdir() if p.is_dir())


def _as_docbin(folder, out):
    """The annotator's brat folder as a DocBin of the texts' whitespace tokens, the spans
    (on token bounds) in the span group ``sc``."""
    vocab, docs = Vocab(), DocBin(store_user_data=True)
    for txt in sorted(folder.glob("*.txt")):
        doc = Doc(vocab, words=txt.read_text().split(" "))
        spans = []
        for line in (folder / f"{txt.stem}.ann").read_text().splitlines():
            label, start, end = line.split("\t")[1].split()
            spans.append(doc.char_span(int(start), int(end), label=label))
        doc.spans["sc"] = spans
        docs.add(doc)
    docs.to_disk(out)
    return out


def _bratiaa_equals(agreement, theirs) -> None:
    """bratiaa's pairwise F1 matrix, and its mean over the pairs per label, are ours."""
    names = agreement.annotators
    matrix = theirs.compute_total_f1_matrix()
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if i != j:
                assert agreement.pair_f(a, b) == pytest.approx(matrix[i][j], abs=1e-12)
    means, _ = theirs.mean_sd_per_label()
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    for label, mean in zip(theirs.labels, means, strict=True):
        if not np.isnan(mean):
            ours = [agreement.pair_f(a, b, label) for a, b in pairs]
            assert np.mean(ours) == pytest.approx(mean, abs=1e-12)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_instance_and_token_f1_equal_bratiaa(tmp_path, seed):
    """bratiaa's instance-level F1 (exact (label, offsets) matches of each annotator pair's
    sets of spans) is the exact strategy's F; its token-level F1 (each span cut into the
    whitespace tokens it touches, (label, token) pairs matched) is the token strategy's in
    token unit, on those tokens, where no two spans of a label overlap in one annotator's
    document (bratiaa then counts the shared tokens twice, we once)."""
    bratiaa = needs("bratiaa", "the test extra")
    from bratiaa.utils import tokenize

    folders = _brat_project(tmp_path / "instances", seed)
    instances = agree(folders, scoring=ScoringOptions(strategy="exact"), resamples=0)
    _bratiaa_equals(instances, bratiaa.compute_f1_agreement(str(tmp_path / "instances")))
    folders = _brat_project(tmp_path / "tokens", seed, flat=True)
    files = [_as_docbin(f, tmp_path / f"{f.name}.spacy") for f in folders]
    tokens = agree(
        files,
        reading=ReadingOptions(unit="token", source="sc"),
        scoring=ScoringOptions(strategy="token"),
        resamples=0,
    )
    theirs = bratiaa.compute_f1_agreement(str(tmp_path / "tokens"), token_func=tokenize)
    _bratiaa_equals(tokens, theirs)


# bratiaa's documented example layout (its README; the package ships no project): two annotators,
# doc-1 seen by the first only, doc-4 by the second only, doc-3 and second/doc-2 by both (the
# agreement documents); our own texts and spans: some alike, one moved, one relabelled, extras.
EXAMPLE_TEXTS = {
    "doc-1": "Maria Lopez flew from Madrid to Berlin on Friday .",
    "second/doc-2": "The Red Cross opened an office in Quito with Juan Perez .",
    "doc-3": "Anna Berg of Nordbank met Paul Weber in Oslo last week .",
    "doc-4": "Acme Corp hired Lena Roth in Vienna .",
}
EXAMPLE_SPANS = {  # (first token, end token, label) per annotator
    "annotator-1": {
        "doc-1": [(0, 2, "PER"), (4, 5, "LOC"), (6, 7, "LOC")],
        "second/doc-2": [(1, 3, "ORG"), (7, 8, "LOC"), (9, 11, "PER")],
        "doc-3": [(0, 2, "PER"), (3, 4, "ORG"), (5, 7, "PER"), (8, 9, "LOC")],
    },
    "annotator-2": {
        "second/doc-2": [(0, 3, "ORG"), (7, 8, "LOC"), (9, 11, "PER"), (10, 11, "MISC")],
        "doc-3": [(0, 2, "PER"), (3, 4, "LOC"), (5, 7, "PER"), (8, 9, "LOC"), (9, 11, "MISC")],
        "doc-4": [(0, 2, "ORG"), (3, 5, "PER"), (6, 7, "LOC")],
    },
}


def _example_project(root):
    """The project as brat folders, and each annotator's documents as a DocBin of the texts'
    whitespace tokens (ids: the documents' paths, the spans in the group ``sc``)."""
    (root / "annotation.conf").parent.mkdir(parents=True)
    (root / "annotation.conf").write_text("[entities]\nPER\nORG\nLOC\nMISC\n")
    vocab, bins = Vocab(), []
    for name, docs in EXAMPLE_SPANS.items():
        docbin = DocBin(store_user_data=True)
        for doc_id, spans in docs.items():
            text = EXAMPLE_TEXTS[doc_id]
            doc = Doc(vocab, words=text.split(" "))
            doc.user_data[DOC_ID_KEY] = doc_id
            doc.spans["sc"] = [SpacySpan(doc, a, b, label=label) for a, b, label in spans]
            lines = [
                f"T{i}\t{s.label_} {s.start_char} {s.end_char}\t{s.text}\n"
                for i, s in enumerate(doc.spans["sc"], 1)
            ]
            (root / name / doc_id).parent.mkdir(parents=True, exist_ok=True)
            (root / name / f"{doc_id}.txt").write_text(text)
            (root / name / f"{doc_id}.ann").write_text("".join(lines))
            docbin.add(doc)
        bins.append(root / f"{name}.spacy")
        docbin.to_disk(bins[-1])
    return [root / name for name in EXAMPLE_SPANS], bins


def test_instance_and_token_f1_equal_bratiaa_on_its_example_project(tmp_path):
    """Instance level: the agreement documents share 5 spans of 7 and 9 (F = 10/16); token
    level: the spans cut into whitespace tokens (no two spans of a label overlap)."""
    bratiaa = needs("bratiaa", "the test extra")
    from bratiaa.utils import tokenize

    folders, bins = _example_project(tmp_path / "example-project")
    instances = agree(folders, scoring=ScoringOptions(strategy="exact"), resamples=0)
    assert instances.pairs[("annotator-1", "annotator-2")].n_documents == 2
    assert instances.pair_f("annotator-1", "annotator-2") == pytest.approx(10 / 16)
    _bratiaa_equals(instances, bratiaa.compute_f1_agreement(str(tmp_path / "example-project")))
    tokens = agree(
        bins,
        reading=ReadingOptions(unit="token", source="sc"),
        scoring=ScoringOptions(strategy="token"),
        resamples=0,
    )
    theirs = bratiaa.compute_f1_agreement(str(tmp_path / "example-project"), token_func=tokenize)
    _bratiaa_equals(tokens, theirs)


def _exports(tmp_path) -> dict[str, tuple[object, list[str]]]:
    """The Prodigy db-out of three annotators (carol saw document 2 only) and the Label
    Studio export of two annotations per task, with their annotators."""
    answers = [
        _prodigy_answer("alice", 1, SAID["alice"]),
        _prodigy_answer("bob", 1, SAID["bob"]),
        _prodigy_answer("alice", 2, SAID["alice"]),
        _prodigy_answer("bob", 2, SAID["alice"]),
        _prodigy_answer("carol", 2, SAID["alice"]),
    ]
    prodigy = tmp_path / "db_out.jsonl"
    prodigy.write_text("".join(json.dumps(r) + "\n" for r in answers), encoding="utf-8")
    tasks = [
        {
            "id": i,
            "data": {"text": SAY},
            "annotations": [_ls_annotation(1, SAID["alice"]), _ls_annotation(2, spans)],
            "predictions": [],
        }
        for i, spans in ((1, SAID["bob"]), (2, [*SAID["bob"], (17, 22, "ORG")]))
    ]
    studio = tmp_path / "export.json"
    studio.write_text(json.dumps(tasks), encoding="utf-8")
    return {
        "prodigy": (prodigy, ["news-alice", "news-bob", "news-carol"]),
        "labelstudio": (studio, ["u1@example.com", "u2@example.com"]),
    }


SWAPPED = {"num_annotated": "num_predicted", "tp": "credited", "fn": "fp"}  # gold side: pred side


@pytest.mark.parametrize("export", ["prodigy", "labelstudio"])
@pytest.mark.parametrize("suffix", [".jsonl", ".spacy"])
def test_the_consensus_scored_against_each_annotator_gives_the_pages_figures(
    tmp_path, export, suffix
):
    """The consensus file, in each format the project writes, is a gold file: ``evaluate`` of
    an annotator against it (on the documents the annotator saw) is the F the page shows.
    (Label Studio's annotations are read as gold only: there the annotator is the gold side
    and the consensus the predictions, under exact matching, whose F is symmetric.)"""
    path, names = _exports(tmp_path)[export]
    strategy = "exact" if export == "labelstudio" else "two_sided"
    written = tmp_path / f"consensus{suffix}"
    args = ["agree", str(path), "--strategy", strategy]
    out = runner.invoke(app, [*args, "--write-consensus", str(written)])
    assert out.exit_code == 0, out.output
    agreement = agree([path], scoring=ScoringOptions(strategy=strategy))
    assert agreement.annotators == names
    page = render_agreement(agreement, "text")
    records = agreement.consensus
    assert [r["id"] for r in records] == ["1", "2"]
    if suffix == ".spacy":  # the same spans as the JSON Lines consensus
        docs = list(DocBin().from_disk(written).get_docs(Vocab()))
        spans = [[(s.start_char, s.end_char, s.label_) for s in d.spans["sc"]] for d in docs]
        assert spans == [[(s["start"], s["end"], s["label"]) for s in r["spans"]] for r in records]
    seen_by = {d["id"]: d["annotators"] for d in agreement.queue}
    for name in names:
        # (a document out of the queue is uncontested: here every annotator saw it)
        saw = {r["id"] for r in records if name in seen_by.get(r["id"], names)}
        gold = written
        if len(saw) < len(records):  # (evaluate pairs every document: the ones it saw)
            gold = tmp_path / f"{name}.jsonl"
            gold.write_text("".join(json.dumps(r) + "\n" for r in records if r["id"] in saw))
        want = agreement.against_consensus[name].micro.to_dict()
        if export == "labelstudio":
            scored = evaluate(
                path, gold, reading=ReadingOptions(annotator=name), scoring=ScoringOptions(strategy)
            ).result
            raw = scored.micro.to_dict()  # (the roles swapped back)
            swapped = {**SWAPPED, **{v: k for k, v in SWAPPED.items()}}
            got = {k: raw[swapped.get(k, k)] for k in raw}
            got["precision"], got["recall"] = raw["recall"], raw["precision"]
        else:
            got = evaluate(
                gold, path, reading=ReadingOptions(annotator=name)
            ).result.micro.to_dict()
        assert got == want, name
        assert re.search(rf"{re.escape(name)} +\S+ +{want['f']:.4f}", page), name
    shown = json.loads(runner.invoke(app, [*args, "-f", "json"]).stdout)
    assert shown["against_consensus"][names[0]]["f"] == agreement.consensus_f(names[0])
