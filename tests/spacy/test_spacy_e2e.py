"""End to end through the real CLIs, as a user runs them (no ``--code``): ``spacy convert`` a BTC
slice, ``spacy train`` a small NER with ``configs/ner.cfg``, ``spacy evaluate`` in both key
modes, then the ``span_eval`` component on the trained pipeline."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import spacy
from spacy.scorer import get_ner_prf
from spacy.training import Corpus, Example

from spacy_span_eval import SpanEvaluator

from conftest import REPO, data_path
from spacy_doc_factory import examples_to_documents

pytestmark = pytest.mark.slow

CONFIGS = REPO / "configs"
# Small enough for two CPU cores: a few hundred steps of a narrow, shallow CNN.
TRAIN_OVERRIDES = [
    "--training.max_steps",
    "200",
    "--training.eval_frequency",
    "100",
    "--training.logger.every",
    "1",
    "--components.tok2vec.model.encode.width",
    "64",
    "--components.tok2vec.model.encode.depth",
    "2",
]


def spacy_cli(*args: str | Path, cwd: Path = REPO) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "spacy", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, f"spacy {args[0]} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def write_slice(src: Path, dst: Path, n_sentences: int) -> None:
    """The first ``n_sentences`` well-formed sentences (a few BTC tokens are whitespace, which
    ``spacy convert`` cannot read)."""
    kept = []
    for block in src.read_text(encoding="utf-8").split("\n\n"):
        rows = [line.split("\t") for line in block.split("\n") if line]
        if rows and all(len(r) == 2 and r[0] and not any(c.isspace() for c in r[0]) for r in rows):
            kept.append("\n".join("\t".join(r) for r in rows))
        if len(kept) == n_sentences:
            break
    dst.write_text("\n\n".join(kept) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("btc")
    out = {}
    for split, n in (("train", 1500), ("dev", 400)):
        write_slice(data_path("btc", f"btc.{split}"), root / f"{split}.conll", n)
        spacy_cli("convert", root / f"{split}.conll", root, "--converter", "ner", "--n-sents", "10")
        out[split] = root / f"{split}.spacy"
        assert out[split].exists()
    return out


@pytest.fixture(scope="module")
def trained(corpus, tmp_path_factory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("model")
    log = spacy_cli(
        "train",
        CONFIGS / "ner.cfg",
        "--output",
        out,
        "--paths.train",
        corpus["train"],
        "--paths.dev",
        corpus["dev"],
        *TRAIN_OVERRIDES,
    )
    return out / "model-best", log


@pytest.fixture(scope="module")
def add_mode_scores(trained, corpus, tmp_path_factory) -> dict:
    model, _ = trained
    path = tmp_path_factory.mktemp("eval") / "add.json"
    spacy_cli("evaluate", model, corpus["dev"], "--output", path)
    return json.loads(path.read_text(encoding="utf-8"))


def table_rows(log: str) -> tuple[list[str], list[list[str]]]:
    """Header and rows of spaCy's per-evaluation training table."""
    lines = log.splitlines()
    at = next(
        i for i, line in enumerate(lines) if line.lstrip().startswith("E ") and "SCORE" in line
    )
    header = re.split(r"\s{2,}", lines[at].strip())
    rows = [
        line.split()
        for line in lines[at + 2 :]
        if re.match(r"^\s*\d+\s+\d+\s", line) and len(line.split()) == len(header)
    ]
    return header, rows


def test_training_table_has_two_sided_columns_with_real_numbers(trained):
    model, log = trained
    header, rows = table_rows(log)
    for col in ("ENTS_IOU_F", "ENTS_IOU_P", "ENTS_IOU_R", "ENTS_F"):
        assert col in header, header
    assert [r[1] for r in rows] == ["0", "100", "200"]
    last = dict(zip(header, rows[-1], strict=True))
    assert float(last["ENTS_IOU_F"]) > 5.0  # a model learning, not a column of zeros
    assert float(last["SCORE"]) == pytest.approx(float(last["ENTS_IOU_F"]) / 100, abs=0.006)
    # the wrapped logger's per-label table, once per evaluation
    assert log.count("ents_iou_per_type") == 3
    assert re.search(r"^PER\s+[\d.-]+\s+[\d.]+\s+[\d.]+\s+\d+", log, re.M)
    meta = json.loads((model / "meta.json").read_text(encoding="utf-8"))
    assert isinstance(meta["performance"]["ents_iou_f"], float)
    assert "ents_iou_per_type" in meta["performance"]


def test_evaluate_add_mode_json_holds_exact_and_two_sided_keys(add_mode_scores):
    for key in (
        "ents_p",
        "ents_r",
        "ents_f",
        "ents_per_type",
        "ents_iou_p",
        "ents_iou_r",
        "ents_iou_f",
        "ents_iou_per_type",
        "ents_unaligned",
        "ents_unannotated",
    ):
        assert key in add_mode_scores, key
    assert set(add_mode_scores["ents_iou_per_type"]) <= {"PER", "ORG", "LOC"}
    assert add_mode_scores["ents_iou_f"] >= add_mode_scores["ents_f"]


def test_evaluate_replace_mode_prints_the_two_sided_per_label_table(
    trained, corpus, add_mode_scores, tmp_path
):
    model, _ = trained
    replaced = tmp_path / "model-replace"
    shutil.copytree(model, replaced)
    config = replaced / "config.cfg"
    text = config.read_text(encoding="utf-8")
    assert text.count('mode = "add"') == 1
    config.write_text(text.replace('mode = "add"', 'mode = "replace"'), encoding="utf-8")
    out = spacy_cli("evaluate", replaced, corpus["dev"])
    two_sided = add_mode_scores["ents_iou_per_type"]
    section = out[out.index("NER (per type)") :]
    for label, row in two_sided.items():
        shown = re.search(rf"^{label}\s+(\S+)\s+(\S+)\s+(\S+)", section, re.M)
        assert shown, (label, section)
        for cell, k in zip(shown.groups(), "prf", strict=True):
            expected = "None" if row[k] is None else f"{row[k] * 100:.2f}"
            assert cell == expected, (label, k)
    ner_f = re.search(r"^NER F\s+(\S+)", out, re.M)
    assert ner_f and ner_f.group(1) == f"{add_mode_scores['ents_iou_f'] * 100:.2f}"


def test_component_on_the_trained_pipeline_matches_the_engine(trained, corpus):
    model, _ = trained
    nlp = spacy.load(model)
    nlp.add_pipe("span_eval", config={"thresholds": [0.5, 0.75]})
    examples = list(Corpus(str(corpus["dev"]))(nlp))
    scores = nlp.evaluate(examples)
    # the same predicted docs nlp.evaluate makes: copies of the corpus' predicted side
    predicted = [
        Example(doc, eg.reference)
        for doc, eg in zip(nlp.pipe(eg.predicted.copy() for eg in examples), examples, strict=True)
    ]
    direct = SpanEvaluator(thresholds=(0.5, 0.75)).evaluate(examples_to_documents(predicted))
    for tau, key in ((0.5, "span_eval"), (0.75, "span_eval_iou75")):
        run = direct.scores(tau)
        assert scores[f"{key}_f"] == pytest.approx(run.micro.f(), abs=1e-12)
        assert {
            label: (row["tp"], row["fn"], row["credited"], row["fp"])
            for label, row in scores[f"{key}_per_type"].items()
        } == {
            label: (ledger.tp, ledger.fn, ledger.credited, ledger.fp)
            for label, ledger in run.per_label.items()
        }
    # the component reports what the trained ner's own scorer reports; in add mode that
    # scorer's exact keys are spaCy's own figures, computed by spaCy (same tokenization on
    # both sides here, so the component's exact figures agree with them)
    assert scores["span_eval_f"] == scores["ents_iou_f"]
    assert scores["span_eval_exact_f"] == pytest.approx(scores["ents_f"], abs=1e-12)
    spacys = get_ner_prf(predicted)
    assert {k: scores[k] for k in spacys} == spacys


@pytest.mark.parametrize("name", ["ner.cfg", "spancat.cfg"])
def test_shipped_cnn_configs_pass_spacy_debug_config(name, corpus):
    out = spacy_cli(
        "debug",
        "config",
        CONFIGS / name,
        "--paths.train",
        corpus["train"],
        "--paths.dev",
        corpus["dev"],
    )
    assert "Config is valid" in out


@pytest.mark.transformers
def test_transformer_config_passes_spacy_debug_config(corpus):
    out = spacy_cli(
        "debug",
        "config",
        CONFIGS / "ner_transformer.cfg",
        "--paths.train",
        corpus["train"],
        "--paths.dev",
        corpus["dev"],
    )
    assert "Config is valid" in out
