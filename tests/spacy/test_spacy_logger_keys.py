"""The training logger refuses, at setup, names of scores that no component writes: a
``per_type_keys`` typo (else no per-label table, silently) and a score weight above 0 (else a
weighted score of 0 at every evaluation, silently); and a short ``spacy train`` in replace mode
selects on the two-sided F with the shipped score weights."""

from __future__ import annotations

import io
import json
import random
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import spacy
from spacy.tokens import Doc, DocBin
from spacy.util import registry

from spacy_span_eval.adapters.training_logger import written_keys

ROOT = Path(__file__).resolve().parents[2]
LOGGER = "spacy_span_eval.ConsoleLogger.v1"


def ruler_nlp(**weights):
    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler", config={"scorer": {"@scorers": "spacy_span_eval.ents_scorer.v1"}})
    nlp.config["training"]["score_weights"].update(weights)
    return nlp


def setup(nlp, **settings):
    out, err = io.StringIO(), io.StringIO()
    registry.loggers.get(LOGGER)(**settings)(nlp, out, err)
    return out.getvalue(), err.getvalue()


def test_written_keys_are_every_key_of_every_scorer():
    keys = written_keys(ruler_nlp())
    assert keys is not None
    assert {"ents_f", "ents_per_type", "ents_iou_f", "ents_iou_per_type", "speed"} <= keys
    assert {"token_acc", "ents_unannotated"} <= keys


def test_an_unknown_per_type_key_is_an_error_at_setup_naming_the_keys_that_exist():
    with pytest.raises(ValueError, match="per_type_keys: 'ents_iuo_per_type'") as info:
        setup(ruler_nlp(), per_type_keys=["ents_iuo_per_type"])
    message = str(info.value)
    assert "did you mean 'ents_iou_per_type'" in message
    assert "written: ents_iou_per_type, ents_per_type" in message


def test_a_per_type_key_of_a_pipeline_that_writes_no_table_is_refused_saying_none_is_written():
    with pytest.raises(ValueError) as info:
        setup(spacy.blank("en"), per_type_keys=["ents_per_type"])
    assert str(info.value) == (
        "per_type_keys: 'ents_per_type' is not a score any component of this pipeline "
        "writes; written: none"
    )


def test_a_score_that_is_not_a_per_type_table_is_refused_too():
    with pytest.raises(ValueError, match="per_type_keys: 'ents_iou_f'"):
        setup(ruler_nlp(), per_type_keys=["ents_iou_f"])


def test_known_per_type_keys_pass():
    out, err = setup(ruler_nlp(), per_type_keys=["ents_iou_per_type", "ents_per_type"])
    assert "SCORE" in out and err == ""


def test_a_weighted_score_no_component_writes_stops_training_at_setup():
    with pytest.raises(ValueError, match=r"score_weights\] 'ents_iuo_f' is not a score") as info:
        setup(ruler_nlp(ents_iuo_f=1.0))
    message = str(info.value)
    assert "did you mean 'ents_iou_f'" in message and "ents_iou_r" in message


def test_the_hint_names_the_three_closest_keys_closest_first():
    with pytest.raises(ValueError) as info:
        setup(ruler_nlp(ents_iou_x=1.0))
    assert "(did you mean 'ents_iou_r', 'ents_iou_p', 'ents_iou_f'?)" in str(info.value)


def test_a_score_shown_at_weight_zero_that_is_never_written_is_a_warning():
    # spaCy's own tagger weights pos_acc at 0.0, which only components setting POS write
    nlp = spacy.blank("en")
    nlp.add_pipe("tagger")
    assert nlp.config["training"]["score_weights"]["pos_acc"] == 0.0
    out, err = setup(nlp)
    assert "pos_acc" in err and "POS_ACC" in out  # a column of '-', as spaCy shows it


def test_null_weights_are_not_checked():
    # a null weight names a score that is neither weighted nor shown: no error, no warning
    # (a weight of 0.0 on the same unwritten key warns, above), and no column
    out, err = setup(ruler_nlp(ents_not_a_score=None))
    assert err == ""
    assert "SCORE" in out and "ENTS_NOT_A_SCORE" not in out.upper()


def test_a_scorer_that_cannot_score_nothing_leaves_the_keys_unknown():
    class Picky:
        def score(self, examples, **kwargs):
            if not examples:
                raise ZeroDivisionError
            return {}

    nlp = ruler_nlp(anything=1.0)
    nlp.add_pipe("span_eval")
    nlp.get_pipe("span_eval").score = Picky().score  # type: ignore[method-assign]
    assert written_keys(nlp) is None
    setup(nlp, per_type_keys=["whatever_per_type"])  # nothing can be checked: no error


class _Scorer:
    def __init__(self, *keys: str) -> None:
        self.keys = keys

    def score(self, examples, **kwargs):
        return dict.fromkeys(self.keys)


@pytest.mark.parametrize(
    ("nlp", "expected"),
    [
        (SimpleNamespace(), {"speed"}),
        (SimpleNamespace(pipeline=[("ner", _Scorer("ents_f"))]), {"speed", "ents_f"}),
        (SimpleNamespace(tokenizer=_Scorer("token_acc")), {"speed", "token_acc"}),
        (
            SimpleNamespace(components=[("ner", _Scorer("ents_f"))], pipeline=[]),
            {"speed", "ents_f"},
        ),
        (SimpleNamespace(pipeline=[("ner", object())]), {"speed"}),
    ],
)
def test_written_keys_of_a_stand_in_pipeline_read_what_it_has(nlp, expected):
    """(the components, else the enabled pipeline, and the tokenizer where there is one; a
    component without ``score`` writes nothing)"""
    assert written_keys(nlp) == expected


# -- spacy train in replace mode ---------------------------------------------------------------
NAMES = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank"]
PLACES = ["Paris", "Berlin", "Rome", "Madrid", "Oslo", "Vienna"]


def corpus(path: Path, n: int, seed: int) -> Path:
    rng = random.Random(seed)
    nlp = spacy.blank("en")
    docs = DocBin()
    for _ in range(n):
        name, place = rng.choice(NAMES), rng.choice(PLACES)
        words = [name, "flew", "to", place, "today"]
        docs.add(Doc(nlp.vocab, words=words, ents=["B-PER", "O", "O", "B-LOC", "O"]))
    docs.to_disk(path)
    return path


@pytest.mark.slow
def test_spacy_train_in_replace_mode_selects_on_the_two_sided_f(tmp_path):
    train, dev = corpus(tmp_path / "train.spacy", 60, 0), corpus(tmp_path / "dev.spacy", 20, 1)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "spacy",
            "train",
            str(ROOT / "configs" / "ner.cfg"),
            "--output",
            str(tmp_path / "out"),
            "--paths.train",
            str(train),
            "--paths.dev",
            str(dev),
            "--components.ner.scorer.mode",
            "replace",
            "--training.max_steps",
            "60",
            "--training.eval_frequency",
            "20",
            "--components.tok2vec.model.encode.width",
            "32",
            "--components.tok2vec.model.encode.depth",
            "1",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    meta = json.loads((tmp_path / "out" / "model-best" / "meta.json").read_text())
    performance = meta["performance"]
    assert performance["ents_iou_f"] > 0.5, performance
    assert performance["ents_iou_f"] == performance["ents_f"]  # replace: the same figures
    rows = [line.split() for line in proc.stdout.splitlines() if line.strip()[:1].isdigit()]
    assert rows and float(rows[-1][-1]) > 0.5  # SCORE: the two-sided F, weight 1.0


RULER_SCALARS = (
    "ents_f, ents_iou_f, ents_iou_p, ents_iou_r, ents_kept_gold, ents_p, ents_r, "
    "ents_unaligned, ents_unaligned_gold, ents_unannotated, speed, token_acc, token_f, "
    "token_p, token_r"
)


def test_a_weighted_score_no_component_writes_is_refused_word_for_word():
    with pytest.raises(ValueError) as info:
        setup(ruler_nlp(ents_iuo_f=0.5))
    assert str(info.value) == (
        "[training.score_weights] 'ents_iuo_f' is not a score any component of this pipeline "
        "writes (did you mean 'ents_iou_f', 'ents_iou_r', 'ents_iou_p'?); written: "
        f"{RULER_SCALARS}. spaCy would count it as 0 at every evaluation, so the model kept "
        "as best would not depend on it"
    )


def test_the_warning_for_a_score_shown_at_weight_zero_reads_word_for_word_on_stderr_only(capsys):
    nlp = spacy.blank("en")
    nlp.add_pipe("tagger")
    out, err = setup(nlp)
    plain = " ".join(re.sub(r"\x1b\[[0-9;]*m", "", err).split())
    assert plain == (
        "⚠ [training.score_weights] 'pos_acc' is not a score any component of this pipeline "
        "writes (did you mean 'token_acc'?); written: speed, tag_acc, token_acc, token_f, "
        "token_p, token_r; its column shows -"
    )
    assert "pos_acc" not in capsys.readouterr().out  # (printed once, where it was asked)


def test_a_disabled_components_scores_are_written():
    """spaCy's training disables frozen components around the logger's setup and evaluates
    them all the same."""
    nlp = ruler_nlp()
    nlp.add_pipe("span_eval")
    nlp.disable_pipe("span_eval")
    keys = written_keys(nlp)
    assert keys is not None and {"span_eval_iou_f", "span_eval_per_type"} <= keys
    out, _ = setup(nlp, per_type_keys=["span_eval_iou_per_type"])
    assert "SCORE" in out
