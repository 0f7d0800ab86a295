"""The project workflow on a span-group corpus: re3d's overlapping entities,
spancat, by ``--vars`` alone — convert reads re3d's folders, train uses configs/spancat.cfg,
and evaluate, gate and report score ``doc.spans["sc"]``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import srsly

from conftest import copy_project, data_path


def re3d_source_counts(folder: Path) -> tuple[int, int]:
    """Documents and entities of one re3d source, from its raw files."""
    docs = (folder / "documents.json").read_text(encoding="utf-8").splitlines()
    ents = (folder / "entities.json").read_text(encoding="utf-8").splitlines()
    return len([d for d in docs if d.strip()]), len([e for e in ents if e.strip()])


@pytest.mark.slow
def test_workflow_runs_spancat_on_re3d_by_vars_alone(tmp_path):
    re3d = data_path("re3d")
    project = copy_project(tmp_path)
    config = project / "configs" / "spancat.cfg"  # and spancat's scores swept each evaluation
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("average_precision = false", "average_precision = true"))
    splits = {
        "train": re3d / "CENTCOM",
        "dev": re3d / "Australian_Department_of_Foreign_Affairs",
        "test": re3d / "US_State_Department",
    }
    args = [f"--vars.{split}={path}" for split, path in splits.items()]
    # A short run: configs/floors_re3d.json holds floors such a run clears, so this checks
    # the plumbing (and the gate's exit code), not the model's quality.
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "weasel",
            "run",
            "all",
            str(project),
            *args,
            "--vars.config",
            "configs/spancat.cfg",
            "--vars.spans_key",
            "sc",
            "--vars.floors",
            "configs/floors_re3d.json",
            "--vars.max_steps",
            "200",
            "--vars.eval_frequency",
            "100",
        ],
        capture_output=True,
        text=True,
        timeout=1500,
    )
    log = run.stdout + run.stderr
    assert run.returncode == 0, log[-4000:]
    n_docs, n_spans = re3d_source_counts(splits["test"])
    assert f"{n_docs:,} documents, {n_spans:,} spans -> corpus/test.spacy" in log
    assert "relations ignored" in log
    header = next(line for line in run.stdout.splitlines() if line.startswith("E "))
    assert "SPANS_SC_IOU_F" in header and "SPANS_SC_IOU_P" in header and "..." not in header
    # unweighted, shown because it is written; ("LOSS SPANCAT" is one column, two words)
    ap = header.split().index("SPANS_SC_AP") - header.count("LOSS ")
    rows = [line.split() for line in run.stdout.splitlines() if line[:3].strip().isdigit()]
    assert len(rows) >= 2 and all(0 <= float(r[ap]) <= 100 for r in rows), run.stdout
    meta = srsly.read_json(project / "training" / "model-best" / "meta.json")
    for figure in ("p", "r", "f"):
        assert isinstance(meta["performance"][f"spans_sc_iou_{figure}"], float)
    spacy_metrics = srsly.read_json(project / "metrics" / "spacy_metrics.json")
    assert isinstance(spacy_metrics["spans_sc_iou_f"], float)
    ours = srsly.read_json(project / "metrics" / "span_eval.json")
    assert ours["inputs"]["gold"]["spans"] == n_spans  # every gold span, overlapping ones too
    runs = ours["result"]["levels"]["labels"]
    assert [r["threshold"] for r in runs] == [0.5, 0.75, 1.0]
    assert runs[0]["micro"]["num_annotated"] == n_spans
    assert runs[0]["micro"]["num_predicted"] > 0
    gate = srsly.read_json(project / "metrics" / "gate.json")
    assert gate["gate"]["passed"] is True
    assert "Gate passed" in run.stderr  # a message: stderr (semantics §7)
    html = (project / "reports" / "report.html").read_text(encoding="utf-8")
    assert "Organisation" in html and "<svg" in html
    assert gate["command"] == "gate"
