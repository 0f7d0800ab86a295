"""The project workflow writes the report before the gate, and the gate step runs once: a
breached floor fails the workflow with the breach on the console, and the report is there.

The first tests read project.yml as data; the last runs the workflow's steps after ``train``
with weasel, as ``weasel run all`` does, on a tiny rule-based pipeline and failing floors."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import spacy
import srsly
from spacy.tokens import Doc, DocBin

ROOT = Path(__file__).resolve().parents[2]


def project() -> dict:
    return srsly.read_yaml(ROOT / "project.yml")


def scripts(name: str) -> list[str]:
    (command,) = [c for c in project()["commands"] if c["name"] == name]
    return command["script"]


def test_the_report_is_written_before_the_gate_and_the_gate_is_last():
    steps = project()["workflows"]["all"]
    assert steps[-1] == "gate"
    assert steps.index("report") < steps.index("gate")
    assert steps == ["convert", "train", "evaluate", "report", "gate"]


def test_no_step_before_the_gate_can_fail_on_a_breached_floor():
    steps = project()["workflows"]["all"]
    for step in steps[: steps.index("gate")]:
        for line in scripts(step):
            assert "--floors" not in line, (step, line)  # report/evaluate --floors exit 1


def test_the_gate_step_runs_the_gate_once_and_writes_its_json_verdict():
    (line,) = scripts("gate")
    words = line.split()
    assert words[:4] == ["python", "-m", "spacy_span_eval", "gate"]
    assert words[words.index("--format") + 1] == "json"
    assert words[words.index("--output") + 1] == "metrics/gate.json"
    assert "--floors" in words
    (command,) = [c for c in project()["commands"] if c["name"] == "gate"]
    assert command["outputs"] == ["metrics/gate.json"]
    assert "${vars.floors}" in command["deps"]


# -- the steps after train, run as weasel runs them ----------------------------------------------
TEXTS = ["Jo Smith met Al in Rome", "Bo went to Oslo", "Ann stayed in Rome"]
GOLD = [
    ["B-PER", "I-PER", "O", "B-PER", "O", "B-LOC"],
    ["B-PER", "O", "O", "B-LOC"],
    ["B-PER", "O", "O", "B-LOC"],
]


def tiny_project(tmp_path: Path) -> Path:
    """project.yml and configs, a test split and a 'trained' pipeline (a ruler that finds the
    places and one person), as the train step leaves them."""
    root = tmp_path / "project"
    root.mkdir()
    shutil.copy(ROOT / "project.yml", root)
    shutil.copytree(ROOT / "configs", root / "configs")
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("entity_ruler")
    ruler.add_patterns(
        [{"label": "LOC", "pattern": p} for p in ("Rome", "Oslo")]
        + [{"label": "PER", "pattern": "Smith"}]
    )
    (root / "training").mkdir()
    nlp.to_disk(root / "training" / "model-best")
    docs = DocBin()
    for text, tags in zip(TEXTS, GOLD, strict=True):
        docs.add(Doc(nlp.vocab, words=text.split(), ents=tags))
    (root / "corpus").mkdir()
    docs.to_disk(root / "corpus" / "test.spacy")
    floors = {
        "gate": {"strategy": "two_sided", "threshold": 0.5},
        "floors": {"PER": {"recall": 0.9}, "LOC": {"recall": 0.5}},
    }
    (root / "configs" / "floors_fail.json").write_text(json.dumps(floors), encoding="utf-8")
    return root


@pytest.mark.slow
def test_a_breached_gate_fails_the_workflow_after_the_report_is_written(tmp_path):
    root = tiny_project(tmp_path)
    steps = project()["workflows"]["all"]
    ran = {}
    for step in steps[steps.index("train") + 1 :]:
        proc = subprocess.run(
            [sys.executable, "-m", "weasel", "run", step, str(root)]
            + ["--vars.floors", "configs/floors_fail.json"],
            capture_output=True,
            text=True,
            timeout=600,
        )
        ran[step] = proc
        if proc.returncode:
            break  # as `weasel run all` stops
    assert list(ran) == ["evaluate", "report", "gate"]
    assert [p.returncode for p in ran.values()] == [0, 0, 1], {
        s: p.stderr[-2000:] for s, p in ran.items()
    }
    html = (root / "reports" / "report.html").read_text(encoding="utf-8")
    assert "<svg" in html
    gate = ran["gate"]
    assert "Gate failed" in gate.stderr
    assert "PER recall 0.2500 < floor 0.9" in gate.stderr  # one run names the breach
    assert gate.stdout.count("Running command:") == 1
    verdict = srsly.read_json(root / "metrics" / "gate.json")
    assert verdict["gate"]["passed"] is False
