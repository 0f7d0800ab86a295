"""A new input format is one module and one registry line (docs/architecture.md): with the toy
format of :mod:`toy_format` registered, every command reads it — evaluate, gate, report,
compare, convert — and ``--n-process 2`` gives the one-process numbers."""

from __future__ import annotations

import json

import pytest
from toy_format import TOY
from typer.testing import CliRunner

from spacy_span_eval.api import compare_files, evaluate_files, gate_files, report_files
from spacy_span_eval.cli import app
from spacy_span_eval.jobs.convert import convert_split
from spacy_span_eval.readers.detect import sniff
from spacy_span_eval.readers.formats import FORMATS, register_format
from spacy_span_eval.readers.source import open_pair

GOLD = [
    ("d1", "Barack Obama met Angela Merkel in Paris", "0:12:PER,17:30:PER,34:39:LOC"),
    ("d2", "Apple hired Tim Cook", "0:5:ORG,12:20:PER"),
    ("d3", "Nothing here", ""),
    ("d4", "Berlin and Rome are cities", "0:6:LOC,11:15:LOC"),
]
# d1: PER exact, PER partial (IoU 6/13), LOC missed; d2: ORG as PER (wrong label), PER exact;
# d3: a spurious LOC; d4: LOC exact, Rome missed.
PRED = [
    ("d1", GOLD[0][1], "0:12:PER,24:30:PER"),
    ("d2", GOLD[1][1], "0:5:PER,12:20:PER"),
    ("d3", GOLD[2][1], "0:7:LOC"),
    ("d4", GOLD[3][1], "0:6:LOC"),
]


def write(path, rows):
    path.write_text("".join(f"{i}\t{t}\t{s}\n" for i, t, s in rows), encoding="utf-8")
    return path


@pytest.fixture
def toy(tmp_path):
    register_format(TOY)  # the one registry line
    try:
        yield write(tmp_path / "gold.toy", GOLD), write(tmp_path / "pred.toy", PRED)
    finally:
        del FORMATS["toy"]


def test_a_name_is_registered_once():
    with pytest.raises(ValueError, match="already registered"):
        register_format(type(TOY)("conll", TOY.reader))


def test_a_registered_format_is_found_by_its_suffix_and_read_on_the_generic_road(toy):
    gold, pred = toy
    assert sniff(gold) == "toy"
    source = open_pair(gold, pred)
    assert source.unit == "char" and source.parts is None
    assert sum(len(batch) for batch in source.batches()) == 4
    assert source.info["gold"].to_dict()["spans"] == 7


def test_evaluate_scores_it_with_hand_worked_numbers(toy):
    gold, pred = toy
    report = evaluate_files(gold, pred, strategy="exact")
    micro = report.result.scores().micro
    assert (micro.num_annotated, micro.num_predicted) == (7, 6)
    assert micro.precision() == pytest.approx(3 / 6) and micro.recall() == pytest.approx(3 / 7)
    two_sided = evaluate_files(gold, pred, thresholds=(0.4,)).result.scores().micro
    assert two_sided.recall() == pytest.approx(4 / 7)  # the partial PER counts at IoU 0.46
    assert report.inputs["gold"]["format"] == report.inputs["predicted"]["format"] == "toy"


def test_two_processes_give_the_one_process_numbers(toy):
    gold, pred = toy
    one = evaluate_files(gold, pred, errors=10).to_dict()
    two = evaluate_files(gold, pred, errors=10, n_process=2).to_dict()
    assert json.dumps(one, sort_keys=True) == json.dumps(two, sort_keys=True)


def test_the_command_line_reads_it_in_two_processes(toy):
    gold, pred = toy
    out = CliRunner().invoke(
        app, ["evaluate", str(gold), str(pred), "-f", "json", "--n-process", "2"]
    )
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["inputs"]["gold"]["format"] == "toy"


def test_gate_report_and_compare_read_it(toy, tmp_path):
    gold, pred = toy
    floors = tmp_path / "floors.json"
    floors.write_text(json.dumps({"floors": {"PER": {"recall": 0.9}}}))
    verdict = gate_files(gold, pred, floors=floors, strategy="exact").verdict
    assert verdict is not None and not verdict.passed  # PER recall 2/3
    page = report_files(gold, pred, output=tmp_path / "r.html", resamples=0)
    assert page.runs[0].inputs["gold"]["format"] == "toy"
    assert {e.document for e in page.runs[0].errors} <= set(page.runs[0].documents)
    comparison = compare_files(gold, pred, gold, resamples=10, n_process=2)
    assert comparison.runs[1].main.micro.f() == 1.0


def test_convert_writes_its_documents(toy, tmp_path):
    gold, _ = toy
    out = tmp_path / "train.spacy"
    report = convert_split(str(gold), out)
    assert (report.documents, report.spans) == (4, 7) and out.exists()
