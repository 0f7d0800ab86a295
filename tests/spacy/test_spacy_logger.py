"""The training logger: spaCy's console row, plus per-label tables every N evaluations."""

from __future__ import annotations

import io
import json

import pytest
import spacy
from spacy.util import registry

from spacy_span_eval.adapters.training_logger import per_type_tables

SCORES = {
    "ents_f": 0.5,
    "ents_per_type": {"LOC": {"p": 0.0, "r": 0.0, "f": 0.0}},  # spaCy's own: no counts
    "ents_iou_f": 0.8,
    "ents_iou_per_type": {
        "PER": {
            "p": 1.0,
            "r": 0.5,
            "f": 2 / 3,
            "num_annotated": 2.0,
            "num_predicted": 1.0,
            "tp": 1.0,
            "fn": 1.0,
            "credited": 1.0,
            "fp": 0.0,
        },
        "LOC": {
            "p": None,
            "r": 0.0,
            "f": 0.0,
            "num_annotated": 3.0,
            "num_predicted": 0.0,
            "tp": 0.0,
            "fn": 3.0,
            "credited": 0.0,
            "fp": 0.0,
        },
    },
}


def test_tables_show_ratios_in_percent_counts_as_integers_and_undefined_as_dash():
    (rendered,) = per_type_tables(SCORES)
    lines = rendered.splitlines()
    assert lines[0] == "ents_iou_per_type"
    loc = next(line.split() for line in lines if line.startswith("LOC"))
    per = next(line.split() for line in lines if line.startswith("PER"))
    assert loc == ["LOC", "-", "0.00", "0.00", "3", "0", "0", "3", "0", "0"]
    assert per == ["PER", "100.00", "50.00", "66.67", "2", "1", "1", "1", "1", "0"]


def test_a_count_not_given_reads_as_a_dash():
    row = {**SCORES["ents_iou_per_type"]["PER"], "credited": None}
    (rendered,) = per_type_tables({"spans_per_type": {"PER": row}})
    per = next(line.split() for line in rendered.splitlines() if line.startswith("PER"))
    assert per == ["PER", "100.00", "50.00", "66.67", "2", "1", "1", "1", "-", "0"]


def test_a_table_is_its_score_name_then_the_table_with_no_blank_line_around_it():
    assert per_type_tables(SCORES) == [
        "\n".join(
            [
                "ents_iou_per_type",
                "LABEL        P       R       F   GOLD   PRED   TP   FN   CREDITED   FP",
                "-----   ------   -----   -----   ----   ----   --   --   --------   --",
                "LOC          -    0.00    0.00      3      0    0    3          0    0",
                "PER     100.00   50.00   66.67      2      1    1    1          1    0",
            ]
        )
    ]


def test_only_per_type_scores_with_counts_are_picked_unless_named():
    assert [t.splitlines()[0] for t in per_type_tables(SCORES)] == ["ents_iou_per_type"]
    assert per_type_tables(SCORES, ["missing_per_type"]) == []


def make_nlp():
    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler", config={"scorer": {"@scorers": "spacy_span_eval.ents_scorer.v1"}})
    return nlp


def info(step: int) -> dict:
    return {
        "epoch": 0,
        "step": step,
        "score": 0.8,
        "other_scores": SCORES,
        "losses": {},
        "checkpoints": [],
        "seconds": 1,
        "words": 10,
    }


def test_logger_wraps_the_console_logger_and_prints_every_n_evaluations():
    make = registry.loggers.get("spacy_span_eval.ConsoleLogger.v1")
    out = io.StringIO()
    log_step, finalize = make(every=2)(make_nlp(), out, io.StringIO())
    header = out.getvalue()
    assert "ENTS_F" in header and "SCORE" in header  # spaCy's own table header
    for step in (0, 100, 200, 300):
        log_step(info(step))
        log_step(None)  # steps between evaluations print nothing
    finalize()
    text = out.getvalue()
    assert text.count("ents_iou_per_type") == 2
    assert "Per label, epoch 0, step 100:" in text and "Per label, epoch 0, step 300:" in text
    assert "step 0:" not in text and "step 200:" not in text
    rows = [line for line in text.splitlines() if line.strip().startswith("0 ")]
    assert len(rows) == 4  # one stock row per evaluation
    assert rows[0].split()[-1] == "0.80"


def ner_nlp():
    """A pipeline with a trainable component, whose loss gets a column."""
    nlp = spacy.blank("en")
    nlp.add_pipe("ner", config={"scorer": {"@scorers": "spacy_span_eval.ents_scorer.v1"}})
    nlp.config["training"]["eval_frequency"] = 4
    return nlp


def test_a_loss_not_reported_reads_as_a_dash_and_a_reported_one_with_two_decimals():
    make = registry.loggers.get("spacy_span_eval.ConsoleLogger.v1")
    out = io.StringIO()
    log_step, _ = make(per_type_keys=[])(ner_nlp(), out, io.StringIO())
    log_step(info(0))
    log_step({**info(4), "losses": {"ner": 1.234}})
    header, _, first, second = out.getvalue().splitlines()
    assert header.split()[:4] == ["E", "#", "LOSS", "NER"]
    assert first.split()[:3] == ["0", "0", "-"] and second.split()[:3] == ["0", "4", "1.23"]


def test_each_row_reaches_the_file_at_once(tmp_path):
    """(a run's output followed with ``tail -f`` shows each evaluation as it ends)"""
    make = registry.loggers.get("spacy_span_eval.ConsoleLogger.v1")
    path = tmp_path / "train.log"
    with open(path, "w", encoding="utf-8") as out:
        log_step, _ = make(per_type_keys=[])(make_nlp(), out, io.StringIO())
        assert "ENTS_F" in path.read_text(encoding="utf-8")
        log_step(info(100))
        assert path.read_text(encoding="utf-8").splitlines()[-1].split()[:2] == ["0", "100"]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_bar_goes_to_stderr_and_leaves_no_line_behind():
    make = registry.loggers.get("spacy_span_eval.ConsoleLogger.v1")
    out, err = io.StringIO(), _Terminal()
    log_step, finalize = make(progress_bar="eval", per_type_keys=[])(ner_nlp(), out, err)
    log_step(info(0))
    log_step(None)
    log_step(info(4))
    finalize()
    assert "Epoch 1:" in err.getvalue() and "\n" not in err.getvalue()
    assert "it/s" not in out.getvalue()


@pytest.mark.parametrize(
    "kind, shown",
    [("train", ["Last Eval Epoch: 2:", " 4/20 "]), ("eval", ["Epoch 3:", " 0/4 "])],
)
def test_the_progress_bar_counts_over_the_whole_run_or_to_the_next_evaluation(kind, shown):
    """``train``: from the step reached to ``max_steps``, named by the last evaluation's epoch;
    ``eval``: from 0 to ``eval_frequency``, named by the epoch under way."""
    make = registry.loggers.get("spacy_span_eval.ConsoleLogger.v1")
    nlp = ner_nlp()
    nlp.config["training"]["max_steps"] = 20
    err = _Terminal()
    log_step, finalize = make(progress_bar=kind, per_type_keys=[])(nlp, io.StringIO(), err)
    log_step({**info(4), "epoch": 2})
    finalize()
    assert all(text in err.getvalue() for text in shown), err.getvalue()


def test_the_jsonl_log_has_a_record_per_evaluation_with_null_for_an_undefined_score(tmp_path):
    make = registry.loggers.get("spacy_span_eval.ConsoleLogger.v1")
    path = tmp_path / "log.jsonl"
    log_step, finalize = make(per_type_keys=[], output_file=str(path))(
        ner_nlp(), io.StringIO(), io.StringIO()
    )
    log_step({**info(4), "losses": {"ner": 1.5}})
    finalize()
    assert json.loads(path.read_text(encoding="utf-8")) == {
        "epoch": 0,
        "step": 4,
        "losses": {"ner": 1.5},
        "scores": {"ents_f": 50.0, "ents_p": None, "ents_r": None},
        "score": 0.8,
    }


def test_logger_settings_are_checked():
    make = registry.loggers.get("spacy_span_eval.ConsoleLogger.v1")
    with pytest.raises(ValueError, match="every"):
        make(every=0)
    out = io.StringIO()
    log_step, _ = make(console_output=False)(make_nlp(), out, io.StringIO())
    log_step(info(0))
    assert out.getvalue() == ""


def test_an_empty_per_type_keys_list_prints_no_table():
    make = registry.loggers.get("spacy_span_eval.ConsoleLogger.v1")
    out = io.StringIO()
    log_step, _ = make(per_type_keys=[])(make_nlp(), out, io.StringIO())
    log_step(info(0))
    assert "Per label" not in out.getvalue() and "_per_type" not in out.getvalue()


def test_per_label_tables_print_control_characters_escaped():
    make = registry.loggers.get("spacy_span_eval.ConsoleLogger.v1")
    out = io.StringIO()
    scores = dict(SCORES)
    scores["ents_iou_per_type"] = {"\x1b]0;pwned\x07": SCORES["ents_iou_per_type"]["PER"]}
    log_step, finalize = make(every=1)(make_nlp(), out, io.StringIO())
    log_step({**info(100), "other_scores": scores})
    finalize()
    assert "\x1b]0" not in out.getvalue() and "\\x1b]0;pwned\\x07" in out.getvalue()


@pytest.mark.parametrize(
    ("setting", "key"),
    [({"average_precision": True}, "ents_ap"), ({"slice_by": "source"}, "ents_worst_slice_f")],
)
@pytest.mark.parametrize(("weight", "shown"), [(None, False), (0.0, True), ("unset", True)])
def test_the_average_precision_and_worst_slice_columns_show_when_a_scorer_writes_them(
    setting, key, weight, shown
):
    nlp = spacy.blank("en")
    scorer = {"@scorers": "spacy_span_eval.ents_scorer.v1", **setting}
    nlp.add_pipe("entity_ruler", config={"scorer": scorer})
    if weight != "unset":  # null hides a column, as in spaCy's logger
        nlp.config["training"]["score_weights"][key] = weight
    make = registry.loggers.get("spacy_span_eval.ConsoleLogger.v1")
    out = io.StringIO()
    log_step, _ = make()(nlp, out, io.StringIO())
    log_step({**info(0), "other_scores": {**SCORES, key: 0.625}})
    header, rule, row = out.getvalue().splitlines()[:3]
    assert (key.upper() in header) == shown and ("62.50" in row.split()) == shown
    # the rule under the header: one run of dashes as wide as each column's name or more
    assert set(rule.split()) <= {"-" * n for n in range(3, 30)}
    assert [len(d) >= len(h) for d, h in zip(rule.split(), header.split(), strict=True)] == [
        True
    ] * len(header.split())
