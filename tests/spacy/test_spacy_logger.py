"""The training logger: spaCy's console row, plus per-label tables every N evaluations."""

from __future__ import annotations

import io
import json
import re

import pytest
import spacy
from spacy.language import Language
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


@pytest.mark.parametrize("skipped", [None, 0.5, {"PER": 0.5}])
def test_a_named_score_that_is_no_table_this_time_is_skipped_and_the_next_still_printed(skipped):
    scores = {**SCORES, "spans_per_type": skipped}
    tables = per_type_tables(scores, ["spans_per_type", "missing_per_type", "ents_iou_per_type"])
    assert tables == per_type_tables(SCORES)


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
    ("pipe", "scorer", "setting", "key"),
    [
        (
            "span_ruler",
            "spans",
            {"spans_key": "ruler", "average_precision": True},
            "spans_ruler_ap",
        ),
        ("entity_ruler", "ents", {"slice_by": "source"}, "ents_worst_slice_f"),
    ],
)
@pytest.mark.parametrize(("weight", "shown"), [(None, False), (0.0, True), ("unset", True)])
def test_the_average_precision_and_worst_slice_columns_show_when_a_scorer_writes_them(
    pipe, scorer, setting, key, weight, shown
):
    nlp = spacy.blank("en")
    scorer = {"@scorers": f"spacy_span_eval.{scorer}_scorer.v1", **setting}
    nlp.add_pipe(pipe, config={"scorer": scorer})
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


def test_the_console_shows_the_header_each_row_and_the_per_label_tables_word_for_word():
    """Each column as wide as its name or its minimum (3 for the epoch, 6 for the step, 8 for a
    loss, 6 for a score), two spaces apart, figures right-aligned; then the labels' tables."""
    make = registry.loggers.get("spacy_span_eval.ConsoleLogger.v1")
    out = io.StringIO()
    log_step, finalize = make()(ner_nlp(), out, io.StringIO())
    log_step({**info(4), "losses": {"ner": 1.5}})
    finalize()
    assert out.getvalue().splitlines() == [
        "E    #       LOSS NER  ENTS_F  ENTS_P  ENTS_R  SCORE ",
        "---  ------  --------  ------  ------  ------  ------",
        "  0       4      1.50   50.00       -       -    0.80",
        "Per label, epoch 0, step 4:",
        *per_type_tables(SCORES)[0].splitlines(),
    ]


@pytest.mark.parametrize("every", [2, 2.0])
def test_per_label_tables_print_at_every_nth_evaluation_counted_from_the_first(every):
    make = registry.loggers.get("spacy_span_eval.ConsoleLogger.v1")
    out = io.StringIO()
    log_step, _ = make(every=every)(make_nlp(), out, io.StringIO())
    for step in (0, 100, 200, 300, 400):
        log_step(info(step))
    titles = [line for line in out.getvalue().splitlines() if line.startswith("Per label")]
    assert titles == ["Per label, epoch 0, step 100:", "Per label, epoch 0, step 300:"]


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"every": 0}, "every must be a whole number >= 1, not 0"),
        ({"every": 1.5}, "every must be a whole number >= 1, not 1.5"),
        ({"progress_bar": "all"}, "progress_bar must be 'train', 'eval' or null, not 'all'"),
    ],
)
def test_bad_logger_settings_are_refused_word_for_word(settings, message):
    make = registry.loggers.get("spacy_span_eval.ConsoleLogger.v1")
    with pytest.raises(ValueError) as refused:
        make(**settings)
    assert str(refused.value) == message


def test_without_streams_the_logger_writes_to_the_process_stdout_and_stderr(capsys):
    """(spaCy's training loop passes its own; a caller may not)"""
    nlp = spacy.blank("en")
    nlp.add_pipe("tagger")  # spaCy weights its pos_acc at 0.0, never written: a warning
    make = registry.loggers.get("spacy_span_eval.ConsoleLogger.v1")
    log_step, finalize = make()(nlp)
    log_step({**info(0), "other_scores": {"tag_acc": 0.5}})
    finalize()
    out, err = capsys.readouterr()
    assert out.splitlines()[0].split() == [
        "E",
        "#",
        "LOSS",
        "TAGGER",
        "TAG_ACC",
        "POS_ACC",
        "SCORE",
    ]
    assert out.splitlines()[2].split() == ["0", "0", "-", "50.00", "-", "0.80"]
    assert "pos_acc" in err and "pos_acc" not in out


def _plain(text: str) -> str:
    """Console text without colours and with its lines unwrapped."""
    return " ".join(re.sub(r"\x1b\[[0-9;]*m", "", text).split())


def test_the_jsonl_log_is_announced_and_its_folders_made(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    make = registry.loggers.get("spacy_span_eval.ConsoleLogger.v1")
    out = io.StringIO()
    log_step, finalize = make(per_type_keys=[], output_file="logs/run/log.jsonl")(
        make_nlp(), out, io.StringIO()
    )
    log_step(info(0))
    log_step(info(100))
    finalize()
    assert _plain(out.getvalue().splitlines()[0]) == "ℹ Saving results to logs/run/log.jsonl"
    lines = (tmp_path / "logs/run/log.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["step"] for line in lines] == [0, 100]


def test_a_jsonl_log_that_exists_is_kept_and_nothing_is_logged(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "log.jsonl").write_text("earlier run\n", encoding="utf-8")
    make = registry.loggers.get("spacy_span_eval.ConsoleLogger.v1")
    out = io.StringIO()
    log_step, finalize = make(per_type_keys=[], output_file="log.jsonl")(
        make_nlp(), out, io.StringIO()
    )
    log_step(info(0))
    finalize()
    head, _ = out.getvalue().split("E    #", 1)
    assert _plain(head) == "⚠ Saving logs is disabled because log.jsonl already exists."
    assert (tmp_path / "log.jsonl").read_text(encoding="utf-8") == "earlier run\n"


@Language.component("test_logger_passthrough")
def _passthrough(doc):
    return doc


def test_only_trainable_components_get_a_loss_column():
    """(a function component has no ``is_trainable``: it trains nothing)"""
    nlp = ner_nlp()
    nlp.add_pipe("test_logger_passthrough")
    nlp.add_pipe("entity_ruler", name="ruler")
    make = registry.loggers.get("spacy_span_eval.ConsoleLogger.v1")
    out = io.StringIO()
    make(per_type_keys=[])(nlp, out, io.StringIO())
    assert out.getvalue().split()[:5] == ["E", "#", "LOSS", "NER", "ENTS_F"]


@pytest.mark.parametrize(("value", "kind"), [(SCORES["ents_iou_per_type"], "dict"), ("0.5", "str")])
def test_a_shown_score_that_is_no_number_is_refused_naming_it_and_the_way_out(value, kind):
    nlp = make_nlp()
    nlp.config["training"]["score_weights"]["ents_iou_per_type"] = 0.0  # shown, not weighted
    make = registry.loggers.get("spacy_span_eval.ConsoleLogger.v1")
    log_step, _ = make(per_type_keys=[])(nlp, io.StringIO(), io.StringIO())
    with pytest.raises(ValueError) as refused:
        log_step({**info(0), "other_scores": {**SCORES, "ents_iou_per_type": value}})
    assert str(refused.value) == (
        f"score 'ents_iou_per_type' is a {kind}; only numbers can be columns of the training "
        "table (give it weight null)"
    )


def test_speed_shows_as_it_is_and_the_other_scores_in_percent(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    nlp = make_nlp()
    nlp.config["training"]["score_weights"]["speed"] = 0.0
    make = registry.loggers.get("spacy_span_eval.ConsoleLogger.v1")
    out = io.StringIO()
    log_step, finalize = make(per_type_keys=[], output_file="log.jsonl")(nlp, out, io.StringIO())
    log_step({**info(0), "other_scores": {**SCORES, "speed": 1234.5}})
    finalize()
    header, _, row = out.getvalue().splitlines()[1:4]
    assert header.split()[2:] == ["ENTS_F", "ENTS_P", "ENTS_R", "SPEED", "SCORE"]
    assert row.split()[2:] == ["50.00", "-", "-", "1234.50", "0.80"]
    scores = json.loads((tmp_path / "log.jsonl").read_text(encoding="utf-8"))["scores"]
    assert scores == {"ents_f": 50.0, "ents_p": None, "ents_r": None, "speed": 1234.5}


def test_the_eval_progress_bar_counts_each_step_between_evaluations(monkeypatch):
    clock = iter(range(10**6))  # a second per reading: tqdm redraws at every update
    monkeypatch.setattr("tqdm.std.time", lambda: float(next(clock)))
    make = registry.loggers.get("spacy_span_eval.ConsoleLogger.v1")
    err = _Terminal()
    log_step, finalize = make(progress_bar="eval", per_type_keys=[])(ner_nlp(), io.StringIO(), err)
    log_step(info(0))
    log_step(None)
    log_step(None)
    finalize()
    assert " 1/4 " in err.getvalue() and " 2/4 " in err.getvalue()
    assert " 3/4 " not in err.getvalue() and " 4/4 " not in err.getvalue()


def test_no_progress_bar_is_drawn_where_stderr_is_not_a_terminal():
    make = registry.loggers.get("spacy_span_eval.ConsoleLogger.v1")
    err = io.StringIO()
    log_step, finalize = make(progress_bar="eval", per_type_keys=[])(ner_nlp(), io.StringIO(), err)
    log_step(info(0))
    log_step(None)
    finalize()
    assert err.getvalue() == ""
