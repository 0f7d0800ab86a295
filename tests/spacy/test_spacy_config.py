"""Configs in spaCy's terms: bad scorer, component and logger settings end
in spaCy's config validation block naming the config path; every shipped config keeps the
two-sided P, R and F in meta.json; the training table's headers are whole and an undefined
figure reads the same in the table, the JSONL log and the per-label table."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from types import SimpleNamespace

import pydantic
import pytest
import spacy
from confection import Config
from spacy.util import registry
from thinc.api import ConfigValidationError

from spacy_span_eval.adapters import config_types

from conftest import REPO

CONFIGS = sorted((REPO / "configs").glob("*.cfg"))


def bad_copy(tmp_path, name: str, **replacements: str):
    text = (REPO / "configs" / name).read_text(encoding="utf-8")
    for old, new in replacements.items():
        assert old in text, old
        text = text.replace(old, new)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_spacy_debug_config_names_each_bad_scorer_setting_by_its_path(tmp_path):
    config = bad_copy(
        tmp_path,
        "ner.cfg",
        **{
            'strategy = "two_sided"': 'strategy = "bogus"',
            'mode = "add"': 'mode = "x"',
            "thresholds = [0.5]": "thresholds = [0.5, 0]",
            'unit = "char"': 'unit = "chars"',
        },
    )
    run = subprocess.run(
        [sys.executable, "-m", "spacy", "debug", "config", str(config)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert "Traceback" not in out
    assert "Config validation" in out  # spaCy's section title
    assert "Config error for 'spacy_span_eval.ents_scorer.v1'" in out
    lines = {line.split("\t")[0]: line for line in out.splitlines() if "\t" in line}
    assert "'bogus' is not" in lines["ner.scorer -> strategy"]
    assert "two_sided" in lines["ner.scorer -> strategy"]  # the choices, from the registry
    assert "'x' is not" in lines["ner.scorer -> mode"]
    assert "0 is not an IoU threshold in (0, 1]" in lines["ner.scorer -> thresholds"]
    assert "'chars' is not" in lines["ner.scorer -> unit"]


@pytest.mark.parametrize(
    ("name", "old", "new", "path", "problem"),
    [
        (
            "spancat.cfg",
            'mode = "add"',
            'mode = "replace_all"',
            "spancat.scorer -> mode",
            "'replace_all' is not",
        ),
        (
            "spancat.cfg",
            "beta = 1.0",
            "beta = 0",
            "spancat.scorer -> beta",
            "0 is not a positive F-beta weight",
        ),
        (
            "spancat.cfg",
            "thresholds = [0.5]",
            "thresholds = [1.01]",
            "spancat.scorer -> thresholds",
            "1.01 is not an IoU threshold in (0, 1]",
        ),
        (
            "ner.cfg",
            'mode = "add"',
            'mode = "add"\naverage_precision = true',
            "ner.scorer -> average_precision",
            "True is not possible: Doc.ents carry no scores",
        ),
        ("ner.cfg", "every = 5", "every = 0", "logger -> every", "0 is not a whole number >= 1"),
        (
            "ner.cfg",
            "progress_bar = null",
            'progress_bar = "always"',
            "logger -> progress_bar",
            "'always' is not",
        ),
    ],
)
def test_a_bad_value_is_a_config_validation_error_naming_its_path(
    tmp_path, name, old, new, path, problem
):
    config = Config().from_disk(bad_copy(tmp_path, name, **{old: new}))
    with pytest.raises(ConfigValidationError) as caught:
        nlp = spacy.util.load_model_from_config(config, auto_fill=True)
        registry.resolve(nlp.config["training"], validate=True)  # the logger's settings
    text = str(caught.value)
    line = next((ln for ln in text.splitlines() if ln.startswith(path)), None)
    assert line is not None, text
    assert problem in line


def test_the_span_eval_component_settings_are_checked_by_the_config_system():
    nlp = spacy.blank("en")
    with pytest.raises(ConfigValidationError) as caught:
        nlp.add_pipe(
            "span_eval", config={"strategy": "bogus", "thresholds": [0.5, 1.5], "unit": "word"}
        )
    text = str(caught.value)
    assert "span_eval -> strategy" in text and "span_eval -> unit" in text
    assert "1.5 is not an IoU threshold in (0, 1]" in text
    nlp.add_pipe("span_eval", config={"strategy": "exact", "thresholds": [1.0]})  # fine


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("IoUThreshold", "an IoU threshold in (0, 1]"),
        ("Beta", "a positive F-beta weight"),
        ("PositiveCount", "a whole number >= 1"),
        # the base of the bounded types has no rule: it reads as the class it is
        ("_Bounded", "<class 'spacy_span_eval.adapters.config_types._Bounded'>"),
    ],
)
def test_a_bounded_type_reads_as_its_rule_where_confection_prints_the_annotation(name, shown):
    bounded = getattr(config_types, name)
    assert repr(bounded) == str(bounded) == shown


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("IoUThreshold", 0, "0 is not an IoU threshold in (0, 1]"),
        ("Beta", -1, "-1 is not a positive F-beta weight"),
        ("PositiveCount", 2.5, "2.5 is not a whole number >= 1"),
        # a truth value is an int to Python, and a list no number at all
        ("IoUThreshold", True, "True is not a number"),
        ("IoUThreshold", [0.5], "[0.5] is not a number"),
        # a quoted number: confection would pass the string itself on to the scorer
        ("IoUThreshold", "0.5", "'0.5' is not a number"),
        ("PositiveCount", "2", "'2' is not a number"),
    ],
)
def test_pydantic_refuses_a_bad_bounded_number_saying_which_rule_it_breaks(name, value, message):
    adapter = pydantic.TypeAdapter(getattr(config_types, name))
    with pytest.raises(pydantic.ValidationError) as caught:
        adapter.validate_python(value)
    assert caught.value.errors()[0]["msg"] == f"Value error, {message}"


@pytest.mark.parametrize(
    ("name", "value", "read"), [("IoUThreshold", 0.5, 0.5), ("PositiveCount", 3, 3.0)]
)
def test_pydantic_reads_a_good_bounded_number_as_a_float(name, value, read):
    assert pydantic.TypeAdapter(getattr(config_types, name)).validate_python(value) == read


def test_a_quoted_threshold_is_a_config_validation_error_not_a_failure_mid_run():
    with pytest.raises(ConfigValidationError, match=r"thresholds\tat 0: '0.5' is not an IoU"):
        spacy.blank("en").add_pipe("span_eval", config={"thresholds": ["0.5"]})


def test_a_threshold_of_true_is_a_config_validation_error_not_a_threshold_of_one():
    with pytest.raises(ConfigValidationError, match=r"thresholds\tat 0: True is not an IoU"):
        spacy.blank("en").add_pipe("span_eval", config={"thresholds": [True]})


def scorer_attrs(config: Config) -> list[str]:
    """The key prefix of each of this package's scorers in a config (``ents``,
    ``spans_sc``)."""
    attrs = []
    for component in config["components"].values():
        scorer = component.get("scorer", {})
        if scorer.get("@scorers") == "spacy_span_eval.ents_scorer.v1":
            attrs.append("ents")
        elif scorer.get("@scorers") == "spacy_span_eval.spans_scorer.v1":
            attrs.append(f"spans_{scorer.get('spans_key') or component['spans_key']}")
    return attrs


@pytest.mark.parametrize("path", CONFIGS, ids=[p.name for p in CONFIGS])
def test_every_shipped_config_keeps_the_two_sided_p_r_f_in_meta_json(path):
    config = Config().from_disk(path, interpolate=False)
    attrs = scorer_attrs(config)
    assert attrs, f"{path.name} uses no spacy-span-eval scorer"
    weights = config["training"]["score_weights"]
    for attr in attrs:
        for figure in ("p", "r", "f"):
            # spaCy's update_meta writes every key named in score_weights (weighted or null)
            assert f"{attr}_iou_{figure}" in weights, (path.name, attr, figure)
        assert weights[f"{attr}_iou_f"] == 1.0  # selected on the two-sided F
        assert f"{attr}_iou_per_type" in weights


def make_nlp(weights: dict):
    """A spancat pipeline whose training config weighs ``weights`` exactly (spaCy's own
    ``nlp.config`` would mix in the components' default weights)."""
    nlp = spacy.blank("en")
    nlp.add_pipe(
        "spancat",
        config={"spans_key": "sc", "scorer": {"@scorers": "spacy_span_eval.spans_scorer.v1"}},
    )
    training = {"score_weights": weights, "max_steps": 1000, "eval_frequency": 200}
    return SimpleNamespace(pipeline=nlp.pipeline, config={"training": training})


WEIGHTS = {
    "spans_sc_iou_f": 1.0,
    "spans_sc_iou_p": 0.0,
    "spans_sc_iou_r": 0.0,
    "spans_sc_f": 0.0,
    "spans_sc_iou_per_type": None,
}


def evaluation(step: int, **scores) -> dict:
    # spaCy's training loop drops None scores before calling the logger: an undefined
    # precision arrives as a missing key.
    other = {k: v for k, v in scores.items() if v is not None}
    return {
        "epoch": 1,
        "step": step,
        "score": 0.25,
        "other_scores": other,
        "losses": {"spancat": 12.345},
        "checkpoints": [],
        "seconds": 1,
        "words": 10,
    }


def test_training_table_headers_are_whole_and_undefined_is_a_dash_and_null(tmp_path):
    make = registry.loggers.get("spacy_span_eval.ConsoleLogger.v1")
    out = io.StringIO()
    log_file = tmp_path / "log" / "train.jsonl"
    log_step, finalize = make(every=1, output_file=str(log_file))(
        make_nlp(WEIGHTS), out, io.StringIO()
    )
    per_type = {
        "ORG": {
            "p": None,
            "r": 0.0,
            "f": 0.0,
            "num_annotated": 4.0,
            "num_predicted": 0.0,
            "tp": 0.0,
            "fn": 4.0,
            "credited": 0.0,
            "fp": 0.0,
        }
    }
    log_step(
        evaluation(
            0,
            spans_sc_iou_f=0.0,
            spans_sc_iou_p=None,
            spans_sc_iou_r=0.0,
            spans_sc_f=0.0,
            spans_sc_iou_per_type=per_type,
        )
    )
    log_step(None)
    log_step(
        evaluation(
            200, spans_sc_iou_f=0.5, spans_sc_iou_p=0.75, spans_sc_iou_r=0.375, spans_sc_f=0.25
        )
    )
    finalize()
    lines = out.getvalue().splitlines()
    assert "Saving results to" in lines[0]
    header = next(line.split() for line in lines if line.startswith("E "))
    assert header == [
        "E",
        "#",
        "LOSS",
        "SPANCAT",
        "SPANS_SC_IOU_F",
        "SPANS_SC_IOU_P",
        "SPANS_SC_IOU_R",
        "SPANS_SC_F",
        "SCORE",
    ]
    assert "..." not in out.getvalue()
    first = lines[lines.index(next(ln for ln in lines if ln.startswith("E "))) + 2].split()
    assert first == ["1", "0", "12.35", "0.00", "-", "0.00", "0.00", "0.25"]
    org = next(line.split() for line in lines if line.startswith("ORG"))
    assert org[1] == "-"  # the per-label table says the same
    second = next(line.split() for line in lines if line.split()[:2] == ["1", "200"])
    assert second == ["1", "200", "12.35", "50.00", "75.00", "37.50", "25.00", "0.25"]
    records = [json.loads(line) for line in log_file.read_text().splitlines()]
    assert records[0]["scores"] == {
        "spans_sc_iou_f": 0.0,
        "spans_sc_iou_p": None,
        "spans_sc_iou_r": 0.0,
        "spans_sc_f": 0.0,
    }
    assert records[1]["scores"]["spans_sc_iou_p"] == 75.0
    assert records[1]["losses"] == {"spancat": 12.345}
    assert [r["step"] for r in records] == [0, 200]


def test_an_existing_log_file_is_not_overwritten(tmp_path):
    make = registry.loggers.get("spacy_span_eval.ConsoleLogger.v1")
    log_file = tmp_path / "train.jsonl"
    log_file.write_text("keep\n")
    out = io.StringIO()
    log_step, finalize = make(output_file=str(log_file))(make_nlp(WEIGHTS), out, io.StringIO())
    log_step(evaluation(0, spans_sc_iou_f=0.5))
    finalize()
    assert log_file.read_text() == "keep\n"
    assert "already exists" in out.getvalue()
