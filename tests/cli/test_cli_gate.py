"""The gate command (exit 0 pass, 1 breached, 2 bad input) and the built-in demo."""

from __future__ import annotations

import json
import random
import re
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from spacy_span_eval import load_label_map
from spacy_span_eval.api import report_files, run_demo
from spacy_span_eval.cli import app
from spacy_span_eval.jobs.evaluate import demo_floors_path

from conftest import cli, data_path, floors_file, jsonl, write_pair

runner = CliRunner()

# PII-like sentences: SSN found 3 of 4 (recall 0.75), EMAIL 2 of 2, one spurious PHONE.
GOLD = [
    {
        "id": "a",
        "text": "SSN 123-45-6789 of ana@x.org",
        "spans": [
            {"start": 4, "end": 15, "label": "SSN"},
            {"start": 19, "end": 28, "label": "EMAIL"},
        ],
    },
    {
        "id": "b",
        "text": "SSN 987-65-4321 and 111-22-3333",
        "spans": [
            {"start": 4, "end": 15, "label": "SSN"},
            {"start": 20, "end": 31, "label": "SSN"},
        ],
    },
    {
        "id": "c",
        "text": "Write to bo@y.org, SSN 555-44-3333",
        "spans": [
            {"start": 9, "end": 17, "label": "EMAIL"},
            {"start": 23, "end": 34, "label": "SSN"},
        ],
    },
]
PRED = [
    {"id": "a", "text": GOLD[0]["text"], "spans": GOLD[0]["spans"]},
    {
        "id": "b",
        "text": GOLD[1]["text"],
        "spans": [
            {"start": 4, "end": 15, "label": "SSN"},
            {"start": 20, "end": 31, "label": "PHONE"},
        ],
    },
    {"id": "c", "text": GOLD[2]["text"], "spans": GOLD[2]["spans"]},
]


@pytest.fixture
def inputs(tmp_path):
    return write_pair(tmp_path, jsonl(*GOLD), jsonl(*PRED), ".jsonl")


def gate(*args):
    return cli("gate", *args)


def says(out: str, text: str) -> bool:
    """``text`` in ``out``, not merely as the start of a longer number ("floor 0.95" is not
    found in "floor 0.9500000000000001")."""
    return re.search(re.escape(text) + r"(?![\d.])", out) is not None


def test_floors_that_hold_exit_0(tmp_path, inputs):
    floors = floors_file(
        tmp_path,
        {"SSN": {"recall": 0.75, "min_support": 4}, "EMAIL": {"recall": 1.0, "precision": 1.0}},
        strategy="exact",
    )
    code, out = gate(*inputs, "--floors", floors)
    assert code == 0, out
    assert "Gate passed" in out and "SSN" in out


def test_a_breached_floor_exits_1_naming_label_figure_and_floor(tmp_path, inputs):
    floors = floors_file(tmp_path, {"SSN": {"recall": 0.9}, "EMAIL": {"recall": 0.9}})
    code, out = gate(*inputs, "--floors", floors, "--strategy", "exact")
    assert code == 1, out
    assert "Gate failed: 1 of 2 floors and 0 of 2 support checks" in out
    assert says(out, "SSN recall 0.7500 < floor 0.9")
    assert "EMAIL recall 1.0000 < floor" not in out


def test_a_floor_on_a_label_without_gold_spans_fails(tmp_path, inputs):
    floors = floors_file(tmp_path, {"SSN": {"recall": 0.5}, "PHONE": {"precision": 0.0}})
    code, out = gate(*inputs, "--floors", floors)
    assert code == 1, out
    assert "PHONE support 0 < floor 1 (no gold spans: missing evidence is not a pass)" in out


@pytest.mark.parametrize(
    "suffix,text",
    [
        (".yaml", "gate:\n  strategy: exact\nfloors:\n  SSN:\n    recall: 0.95\n"),
        (".cfg", '[gate]\nstrategy = "exact"\n\n[floors]\n\n[floors.SSN]\nrecall = 0.95\n'),
    ],
)
def test_yaml_and_cfg_floors(tmp_path, inputs, suffix, text):
    path = tmp_path / f"floors{suffix}"
    path.write_text(text)
    code, out = gate(*inputs, "--floors", path)
    assert code == 1 and says(out, "SSN recall 0.7500 < floor 0.95")


def test_gate_json_report_carries_the_verdict(tmp_path, inputs):
    floors = floors_file(tmp_path, {"SSN": {"recall": 0.9}}, threshold=0.9)
    result = runner.invoke(
        app, ["gate", *map(str, inputs), "--floors", floors, "--format", "json", "-t", "0.5"]
    )
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["command"] == "gate" and report["gate"]["passed"] is False
    assert report["gate"]["threshold"] == 0.9  # the floors' threshold is scored too
    assert [r["threshold"] for r in report["result"]["levels"]["labels"]] == [0.5, 0.9]
    (breach,) = [c for c in report["gate"]["checks"] if not c["passed"]]
    assert (breach["label"], breach["figure"], breach["floor"]) == ("SSN", "recall", 0.9)


# -- floors in every slice (semantics §10) -----------------------------------------------------
# SSN by jurisdiction: EU 1 of 1 (document a), US 2 of 3 (b, c); pooled 3 of 4.
JURISDICTIONS = {"a": "EU", "b": "US", "c": "US"}


@pytest.fixture
def by_jurisdiction(tmp_path):
    gold = [{**g, "meta": {"jurisdiction": JURISDICTIONS[g["id"]]}} for g in GOLD]
    return write_pair(tmp_path, jsonl(*gold), jsonl(*PRED), ".jsonl")


@pytest.mark.parametrize(
    ("floor", "code", "breaches"),
    [
        ({"recall": 0.6}, 0, []),
        ({"recall": 0.7}, 1, ["SSN recall 0.6667 < floor 0.7 in meta.jurisdiction=US"]),
        (
            {"recall": 0.6, "min_slice_support": 2},
            1,
            [
                "SSN support 1 < floor 2 in meta.jurisdiction=EU (too few gold spans: "
                "missing evidence is not a pass)"
            ],
        ),
        ({"recall": 0.6, "min_slice_support": 1, "precision": 1.0}, 0, []),
    ],
)
def test_a_floor_in_every_jurisdiction_fails_naming_the_slice(
    tmp_path, by_jurisdiction, floor, code, breaches
):
    floors = floors_file(tmp_path, {"SSN": {**floor, "every": "meta.jurisdiction"}})
    found, out = gate(*by_jurisdiction, "--floors", floors, "--strategy", "exact")
    assert found == code, out
    assert [b for b in breaches if says(out, b)] == breaches
    assert out.count(" < floor ") == len(breaches)
    # the pooled recall 0.75 meets each of these floors: only slices breach them
    assert "SSN recall 0.7500" not in out.split("Gate")[-1]


def test_floors_per_slice_are_in_the_json_verdict(tmp_path, by_jurisdiction):
    floors = floors_file(tmp_path, {"SSN": {"recall": 0.7, "every": "meta.jurisdiction"}})
    result = runner.invoke(
        app, ["gate", *map(str, by_jurisdiction), "--floors", floors, "-f", "json"]
    )
    checks = json.loads(result.stdout)["gate"]["checks"]
    assert result.exit_code == 1 and [
        (c["figure"], c.get("slice"), c["passed"]) for c in checks
    ] == [
        ("support", None, True),
        ("recall", None, True),
        ("support", "meta.jurisdiction=EU", True),
        ("recall", "meta.jurisdiction=EU", True),
        ("support", "meta.jurisdiction=US", True),
        ("recall", "meta.jurisdiction=US", False),
    ]


def test_floors_in_every_slice_with_chosen_thresholds_are_refused_naming_the_option(tmp_path):
    gold = [{**g, "meta": {"jurisdiction": JURISDICTIONS[g["id"]]}} for g in GOLD]
    pred = [{**p, "spans": [{**s, "score": 0.9} for s in p["spans"]]} for p in PRED]
    files = write_pair(tmp_path, jsonl(*gold), jsonl(*pred), ".jsonl")
    floors = floors_file(tmp_path, {"SSN": {"recall": 0.6, "every": "meta.jurisdiction"}})
    asked = ["--floors", floors, "--choose-thresholds", str(tmp_path / "t.json")]
    code, out = gate(*files, *asked)
    assert code == 2
    assert (
        "--choose-thresholds: the floors for 'SSN' hold in every slice of 'meta.jurisdiction', "
        "read with every prediction kept"
    ) in out


def test_floors_in_every_slice_at_a_coarser_level_hold_on_that_levels_ledgers(
    tmp_path, by_jurisdiction
):
    # at level kind the SSN read as PHONE in b is a hit: PII 4 of 4 in US (SSN 2 of 3)
    (tmp_path / "h.yaml").write_text("kind: {SSN: PII, EMAIL: PII, PHONE: PII}\n")
    floors = floors_file(
        tmp_path, {"PII": {"recall": 1.0, "every": "meta.jurisdiction"}}, level="kind"
    )
    asked = ["--floors", floors, "--hierarchy", tmp_path / "h.yaml", "-f", "json"]
    result = runner.invoke(app, ["gate", *map(str, [*by_jurisdiction, *asked])])
    assert result.exit_code == 0, result.output
    checks = json.loads(result.stdout)["gate"]["checks"]
    assert [(c["figure"], c.get("slice"), c["value"]) for c in checks] == [
        ("support", None, 6),
        ("recall", None, 1.0),
        ("support", "meta.jurisdiction=EU", 2),
        ("recall", "meta.jurisdiction=EU", 1.0),
        ("support", "meta.jurisdiction=US", 4),
        ("recall", "meta.jurisdiction=US", 1.0),
    ]


def test_the_verdict_table_escapes_slice_values_in_its_cells(tmp_path):
    # a tab escaped only in the finished text pushes its row out of line; a | splits a cell
    gold = [{**g, "meta": {"j": "E\tU" if g["id"] == "a" else "U|S"}} for g in GOLD]
    files = write_pair(tmp_path, jsonl(*gold), jsonl(*PRED), ".jsonl")
    floors = floors_file(tmp_path, {"SSN": {"recall": 0.6, "every": "meta.j"}})
    text = runner.invoke(app, ["gate", *map(str, files), "--floors", floors]).stdout
    table = text.strip("\n").split("\n\n")[-1].strip("\n").splitlines()
    assert len(table) == 8 and len({len(ln) for ln in table}) == 1, table
    markdown = runner.invoke(app, ["gate", *map(str, files), "--floors", floors, "-f", "markdown"])
    verdict = markdown.stdout.split("### Gate")[1]
    rows = [ln for ln in verdict.splitlines() if ln.startswith("| SSN | ")]
    assert len(rows) == 6 and {ln.replace("\\|", "").count("|") for ln in rows} == {6}


def test_report_gates_and_scores_per_slice_too(tmp_path, by_jurisdiction):
    floors = floors_file(tmp_path, {"SSN": {"recall": 0.7, "every": "meta.jurisdiction"}})
    page = tmp_path / "r.html"
    asked = ("--slice-by", "meta.jurisdiction", "--resamples", "20", "--strategy", "exact")
    code, out = cli("report", *by_jurisdiction, "-o", page, "--floors", floors, *asked)
    assert code == 1 and says(out, "SSN recall 0.6667 < floor 0.7 in meta.jurisdiction=US")
    report = report_files(*by_jurisdiction, slice_by=["meta.jurisdiction"], resamples=20)
    run = report.runs[0].slices["meta.jurisdiction"]
    us = next(s for s in run["slices"] if s["slice"] == "US")
    assert us["documents"] == 2 and us["per_label"]["SSN"]["tp"] == 2
    assert us["intervals"]["documents"] == 2


# Recall 19/20 against a floor of 0.95 written in each settings format (semantics §6: the floor is
# the
# decimal written, so 19/20 meets it exactly).
NINETEEN_OF_TWENTY = (
    jsonl(
        {
            "id": "d",
            "text": "x" * 200,
            "spans": [{"start": 10 * i, "end": 10 * i + 5, "label": "SSN"} for i in range(20)],
        }
    ),
    jsonl(
        {
            "id": "d",
            "text": "x" * 200,
            "spans": [{"start": 10 * i, "end": 10 * i + 5, "label": "SSN"} for i in range(19)],
        }
    ),
)


@pytest.mark.parametrize(
    "suffix,text",
    [
        (".json", '{"floors": {"SSN": {"recall": 0.95}}}'),
        (".yaml", "floors:\n  SSN:\n    recall: 0.95\n"),
        (".cfg", "[floors]\n\n[floors.SSN]\nrecall = 0.95\n"),
    ],
)
def test_a_floor_is_the_decimal_written(tmp_path, suffix, text):
    gold, pred = write_pair(tmp_path, *NINETEEN_OF_TWENTY, ".jsonl")
    path = tmp_path / f"floors{suffix}"
    path.write_text(text)
    code, out = gate(gold, pred, "--floors", path, "--strategy", "exact")
    assert code == 0, out
    assert "Gate passed" in out
    assert says(out, "0.95") and "0.9500000000000001" not in out


def test_a_strategy_conflict_is_a_usage_error(tmp_path, inputs):
    floors = floors_file(tmp_path, {"SSN": {"recall": 0.5}}, strategy="exact")
    code, out = gate(*inputs, "--floors", floors, "--strategy", "overlap")
    assert code == 2 and "floors are for the 'exact' strategy" in out


def test_output_file_and_markdown(tmp_path, inputs):
    floors = floors_file(tmp_path, {"SSN": {"recall": 0.5}})
    out_path = tmp_path / "report.md"
    code, out = gate(*inputs, "--floors", floors, "--format", "markdown", "--output", out_path)
    assert code == 0 and "Saved the markdown report" in out
    text = out_path.read_text()
    assert "| label | gold | pred | P | R | F1 |" in text
    assert "| SSN | 4 | 3 | 1.0000 | 0.7500 | 0.8571 |" in text
    assert "### Gate" in text and "| SSN | recall | 0.7500 | 0.5 | pass |" in text


def test_demo_runs_offline_and_passes_its_gate():
    result = runner.invoke(app, ["demo"])
    assert result.exit_code == 0, result.output
    for piece in ("IoU >= 0.5", "IoU >= 0.75", "IoU >= 1", "any entity", "Gate passed"):
        assert piece in result.output
    assert demo_floors_path().is_file()


def test_demo_with_stricter_floors_fails(tmp_path):
    floors = floors_file(tmp_path, {"EMAIL": {"recall": 0.99}}, threshold=1.0)
    report = run_demo(floors=floors)
    assert not report.verdict.passed
    (breach,) = report.verdict.breaches
    assert breach.label == "EMAIL" and report.verdict.threshold == 1.0
    result = runner.invoke(app, ["demo", "--floors", floors])
    assert result.exit_code == 1 and "EMAIL recall" in result.output


# --choose-thresholds (semantics §9) on presidio's synthetic PII with seeded scores: a gold span
# is found 9 times in 10 (scores mostly high), and false alarms come at mostly low scores.
CHOSEN_FLOORS = {
    "PERSON": {"recall": 0.8, "precision": 0.5},
    "STREET_ADDRESS": {"recall": 0.85},
    "GPE": {"recall": 0.7},
    "ORGANIZATION": {"recall": 0.6, "precision": 0.3},
}


def _scored_presidio(tmp_path, seed=0):
    records = json.loads(data_path("presidio_synth", "synth_dataset_v2.json").read_bytes())[:400]
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps(records))
    rng, labels = random.Random(seed), sorted(CHOSEN_FLOORS)
    for record in records:
        spans = [dict(s, score=round(rng.uniform(0.3, 1.0), 2)) for s in record["spans"]]
        spans = [s for s in spans if rng.random() < 0.9]
        for _ in range(rng.randint(0, 2)):  # false alarms
            start = rng.randrange(max(1, len(record["full_text"]) - 8))
            spans.append(
                {
                    "entity_type": rng.choice(labels),
                    "start_position": start,
                    "end_position": start + rng.randint(1, 8),
                    "score": round(rng.uniform(0.0, 0.7), 2),
                }
            )
        record["spans"] = spans
    return gold, records


def _recalls(tmp_path, gold, records, at):
    """Each label's recall (a fraction) with its predictions below ``at[label]`` left out."""
    kept = [
        {
            "full_text": r["full_text"],
            "spans": [s for s in r["spans"] if s["score"] >= at.get(s["entity_type"], 0)],
        }
        for r in records
    ]
    pred = tmp_path / "kept.json"
    pred.write_text(json.dumps(kept))
    code, out = cli("evaluate", gold, pred, "--format", "json", "--output", tmp_path / "r.json")
    assert code == 0, out
    per_label = json.loads((tmp_path / "r.json").read_text())["result"]["levels"]["labels"][0]
    return {k: Fraction(v["tp"], v["num_annotated"]) for k, v in per_label["per_label"].items()}


def test_chosen_thresholds_meet_every_recall_floor_when_rescored_at_them(tmp_path):
    gold, records = _scored_presidio(tmp_path)
    pred = tmp_path / "pred.json"
    pred.write_text(json.dumps(records))
    floors = floors_file(tmp_path, CHOSEN_FLOORS)
    chosen = tmp_path / "thresholds.json"
    code, out = gate(gold, pred, "--floors", floors, "--choose-thresholds", chosen, "--quiet")
    assert code == 0, out
    assert f"Saved the score thresholds of 4 labels to {chosen}" in out
    written = json.loads(chosen.read_text())
    assert written["schema"] == "spacy-span-eval/thresholds" and written["iou_threshold"] == 0.5
    at = {label: v["threshold"] for label, v in written["score_thresholds"].items()}
    assert sorted(at) == sorted(CHOSEN_FLOORS)
    recalls = _recalls(tmp_path, gold, records, at)
    for label, floor in CHOSEN_FLOORS.items():
        assert recalls[label] >= Fraction(Decimal(str(floor["recall"]))), label
        assert float(recalls[label]) == written["score_thresholds"][label]["recall"]
    # the highest such threshold: at each label's next score up, its recall falls short
    scores = {(s["entity_type"], s["score"]) for r in records for s in r["spans"]}
    above = {k: min(s for lab, s in scores if lab == k and s > t) for k, t in at.items()}
    recalls = _recalls(tmp_path, gold, records, above)
    for label, floor in CHOSEN_FLOORS.items():
        assert recalls[label] < Fraction(Decimal(str(floor["recall"]))), label


def test_with_a_label_map_the_thresholds_are_keyed_by_the_mapped_labels(tmp_path):
    """The floors' names, which one threshold serves for every source name mapped to it
    (docs/cli.md: look a prediction up by its mapped label)."""
    text, gold, pred = "Ana met Bo today", tmp_path / "gold.jsonl", tmp_path / "pred.jsonl"
    spans = [{"start": 0, "end": 3, "label": "PER"}, {"start": 8, "end": 10, "label": "PER"}]
    gold.write_text("".join(json.dumps({"text": text, "spans": spans}) + "\n" for _ in range(6)))
    records = [  # PERSON scored 0.0 to 0.5, PERSON_NAME 0.5 to 1.0
        {
            "full_text": text,
            "spans": [
                {"entity_type": "PERSON", "start_position": 0, "end_position": 3, "score": i / 10},
                {
                    "entity_type": "PERSON_NAME",
                    "start_position": 8,
                    "end_position": 10,
                    "score": (i + 5) / 10,
                },
            ],
        }
        for i in range(6)
    ]
    pred.write_text(json.dumps(records))
    (tmp_path / "map.yaml").write_text("PER: [PERSON, PERSON_NAME]\n")
    chosen, floors = tmp_path / "t.json", floors_file(tmp_path, {"PER": {"recall": 0.5}})
    code, out = gate(
        gold,
        pred,
        "--floors",
        floors,
        "--label-map",
        tmp_path / "map.yaml",
        "--choose-thresholds",
        chosen,
    )
    assert code == 0, out
    at = json.loads(chosen.read_text())["score_thresholds"]
    to_label = load_label_map(tmp_path / "map.yaml")
    assert sorted(at) == ["PER"]
    kept = [
        s
        for r in records
        for s in r["spans"]
        if s["score"] >= at[to_label(s["entity_type"])]["threshold"]
    ]
    assert at["PER"]["threshold"] == 0.5 and at["PER"]["recall"] == len(kept) / 12 == 7 / 12


def test_a_recall_floor_out_of_reach_exits_1_naming_the_label_and_its_best_recall(tmp_path):
    gold, records = _scored_presidio(tmp_path)
    pred = tmp_path / "pred.json"
    pred.write_text(json.dumps(records))
    floors = floors_file(tmp_path, {**CHOSEN_FLOORS, "PERSON": {"recall": 0.99}})
    chosen = tmp_path / "thresholds.json"
    code, out = gate(gold, pred, "--floors", floors, "--choose-thresholds", chosen, "--quiet")
    best = _recalls(tmp_path, gold, records, {})["PERSON"]  # every prediction kept
    assert code == 1
    assert re.search(
        rf"PERSON recall {float(best):.4f} < floor 0.99 at score >= [\d.]+ "
        r"\(the best recall at any score threshold\)",
        out,
    ), out
    assert sorted(json.loads(chosen.read_text())["score_thresholds"]) == [
        "GPE",
        "ORGANIZATION",
        "STREET_ADDRESS",
    ]


@pytest.mark.parametrize("target", ["pred", "floors"])
def test_chosen_thresholds_never_overwrite_an_input(tmp_path, inputs, target):
    floors = floors_file(tmp_path, {"SSN": {"recall": 0.5}})
    path = {"pred": inputs[1], "floors": floors}[target]
    before = Path(path).read_text(encoding="utf-8")
    code, out = gate(*inputs, "--floors", floors, "--choose-thresholds", path)
    assert code == 2 and "refusing to overwrite an input" in out
    assert Path(path).read_text(encoding="utf-8") == before
