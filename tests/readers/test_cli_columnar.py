"""``evaluate`` through the columnar readers gives the report the reference route gives.

The reference route (records -> pairs -> ``Document`` objects -> columns) is forced by
switching the columnar readers off; every CoNLL corpus under ``../shared/data`` and the
character-offset sets are scored both ways: the same JSON report (ledgers, confusion cells,
error records with their context) and the same text.
"""

from __future__ import annotations

import json
import random

import pytest
from test_cli_corpora import perturb_chars, read_re3d, write_perturbed_copy
from test_readers_conll_columns import CORPORA

import spacy_span_eval.readers.source as source
from spacy_span_eval.api import evaluate_files
from spacy_span_eval.readers.columnar import ColumnPair
from spacy_span_eval.render.report import render_report

from conftest import data_path, span_records


def both_routes(monkeypatch, gold, pred, runs):
    """``{name: (json, text)}`` per run, once columnar and once by the reference route."""

    def go():
        out = {}
        for name, options in runs.items():
            report = evaluate_files(gold, pred, errors=25, **options)
            out[name] = (
                json.dumps(report.to_dict(), sort_keys=True),
                render_report(report, "text", errors=25),
            )
        return out

    fast = go()
    with monkeypatch.context() as m:
        m.setattr(source, "column_pair", lambda *a, **k: None)
        slow = go()
    return fast, slow


def test_the_columnar_route_is_taken(tmp_path, monkeypatch):
    gold = tmp_path / "g.conll"
    gold.write_text("a\tB-X\n")
    seen = []
    real = ColumnPair.read
    monkeypatch.setattr(
        ColumnPair, "read", lambda self, *a, **k: seen.append(1) or real(self, *a, **k)
    )
    evaluate_files(gold, gold)
    assert seen == [1]
    monkeypatch.setattr(source, "pair_records", None)  # would fail if the generic road were taken
    evaluate_files(gold, gold, strategy="exact")


@pytest.mark.slow  # every shared corpus: the random-file tests cover the local loop
@pytest.mark.parametrize("corpus,name,scheme", CORPORA)
def test_every_conll_corpus_gives_the_reference_report(tmp_path, monkeypatch, corpus, name, scheme):
    gold = data_path(corpus, *name.split("/"))
    pred = tmp_path / "predictions"
    write_perturbed_copy(gold, pred, scheme, seed=11, newline="\r\n")
    runs = {
        "exact": {"strategy": "exact", "scheme": scheme},
        "two_sided": {"thresholds": (0.5, 1.0), "scheme": scheme},
        "char": {"unit": "char", "scheme": scheme},
        "other": {
            "strategy": "exact",
            "scheme": "IOB1" if scheme == "IOB2" else "IOB2",
            "repair": "discard",
        },
    }
    fast, slow = both_routes(monkeypatch, gold, pred, runs)
    assert fast == slow
    report = json.loads(fast["other"][0])
    assert report["inputs"]["gold"]["documents"] > 100
    assert report["inputs"]["gold"]["repaired"] > 0  # repairs still counted, per side


def test_presidio_and_jsonl_give_the_reference_report(tmp_path, monkeypatch):
    gold = data_path("presidio_synth", "synth_dataset_v2.json")
    records = json.loads(gold.read_text(encoding="utf-8"))
    labels = sorted({s["entity_type"] for r in records for s in r["spans"]})
    rng = random.Random(9)
    pred = tmp_path / "pred.jsonl"
    pred.write_text(
        "".join(
            json.dumps(
                {
                    "text": r["full_text"],
                    "spans": [
                        {"start": s, "end": e, "label": lab}
                        for s, e, lab in perturb_chars(
                            [
                                (x["start_position"], x["end_position"], x["entity_type"])
                                for x in r["spans"]
                            ],
                            r["full_text"],
                            labels,
                            rng,
                        )
                    ],
                }
            )
            + "\n"
            for r in records
        ),
        encoding="utf-8",
    )
    runs = {"exact": {"strategy": "exact"}, "two_sided": {"thresholds": (0.5, 0.9)}}
    fast, slow = both_routes(monkeypatch, gold, pred, runs)
    assert fast == slow
    assert json.loads(fast["exact"][0])["inputs"]["gold"]["format"] == "presidio"


def test_re3d_paired_by_id_gives_the_reference_report(tmp_path, monkeypatch):
    docs = read_re3d()
    labels = sorted({lab for _, _, spans in docs for *_, lab in spans})
    rng = random.Random(3)
    gold, pred = tmp_path / "gold.jsonl", tmp_path / "pred.json"
    gold.write_text(span_records(docs), encoding="utf-8")
    shuffled = [
        {
            "id": i,
            "text": t,
            "spans": [
                {"start": s, "end": e, "label": lab}
                for s, e, lab in perturb_chars(spans, t, labels, rng)
            ],
        }
        for i, t, spans in docs
    ]
    rng.shuffle(shuffled)
    pred.write_text(json.dumps(shuffled, indent=2), encoding="utf-8")
    runs = {"exact": {"strategy": "exact"}, "two_sided": {"thresholds": (0.5,)}}
    fast, slow = both_routes(monkeypatch, gold, pred, runs)
    assert fast == slow
