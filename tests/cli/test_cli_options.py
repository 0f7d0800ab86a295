"""The options model: ReadingOptions, ScoringOptions and RunOptions, filled from flags declared
once."""

from __future__ import annotations

from typing import Annotated

import attrs
import pytest
import typer
from typer.testing import CliRunner

from spacy_span_eval.cli.option_sets import (
    COMPARE_READING_FLAGS,
    READING_FLAGS,
    RUN_FLAGS,
    SCORING_FLAGS,
)
from spacy_span_eval.cli.typer_app import Flags, takes_options
from spacy_span_eval.engine.gates import Floor, Floors
from spacy_span_eval.jobs.options import RunOptions, ScoringOptions
from spacy_span_eval.readers.options import PER_SIDE_STATE, ReadingOptions

runner = CliRunner()


def test_every_option_field_has_a_flag_on_evaluate():
    assert list(READING_FLAGS.flags) == [
        f.name for f in attrs.fields(ReadingOptions) if f.name not in PER_SIDE_STATE
    ]
    assert list(SCORING_FLAGS.flags) == [f.name for f in attrs.fields(ScoringOptions)]
    assert list(RUN_FLAGS.flags) == [f.name for f in attrs.fields(RunOptions)]


def test_flags_name_fields_of_their_dataclass():
    with pytest.raises(TypeError, match="no field speed"):
        Flags(ReadingOptions, speed=int)


def test_a_command_gets_its_dataclasses_with_plain_values():
    seen = {}
    app = typer.Typer()

    @app.command()
    @takes_options
    def score(
        *,
        scoring: Annotated[ScoringOptions, SCORING_FLAGS],
        reading: Annotated[ReadingOptions, COMPARE_READING_FLAGS],
    ) -> None:
        seen.update(scoring=scoring, reading=reading)

    def run(*args: str) -> tuple[ScoringOptions, ReadingOptions]:
        result = runner.invoke(app, list(args))
        assert result.exit_code == 0, result.output
        return seen["scoring"], seen["reading"]

    scoring, reading = run()
    assert scoring == ScoringOptions(strategy="two_sided")  # no --threshold: (0.5,)
    assert reading == ReadingOptions()  # no --n-process flag here: the field's default
    scoring, reading = run(
        "-s",
        "exact",
        "-t",
        "0.5",
        "-t",
        "0.75",
        "--scheme",
        "BIO",
        "--spans-key",
        "sc",
        "--pred-tag-column",
        "-2",
    )
    assert scoring.strategy == "exact" and type(scoring.strategy) is str
    assert scoring.thresholds == (0.5, 0.75)
    assert (reading.scheme, reading.source, reading.pred_tag_column) == ("BIO", "sc", -2)
    assert runner.invoke(app, ["--n-process", "2"]).exit_code == 2


def test_each_side_reads_its_own_tag_column():
    reading = ReadingOptions(scheme="IOBES", tag_column=-2, pred_tag_column=-1)
    gold, pred = reading.for_side("gold"), reading.for_side("predicted")
    assert (gold.tag_column, gold.side, gold.scheme) == (-2, "gold", "IOBES")
    assert (pred.tag_column, pred.side, pred.scheme) == (-1, "predicted", "IOBES")
    assert ReadingOptions(tag_column=3).for_side("predicted").tag_column == 3


def test_scoring_options_decide_the_strategy_and_threshold():
    floors = Floors((Floor("PER", recall=0.5),), strategy="exact")
    assert ScoringOptions().strategy_for() == "two_sided"
    assert ScoringOptions().strategy_for(floors) == "exact"
    assert ScoringOptions(strategy="overlap").strategy_for(floors) == "overlap"
    assert ScoringOptions(thresholds=0.75).thresholds == (0.75,)  # type: ignore[arg-type]
    assert ScoringOptions(thresholds=(0.75, 0.5)).threshold == 0.75


def test_labels_take_commas_or_repeats():
    assert ScoringOptions(labels="PER, LOC,,PER").labels == ("PER", "LOC")
    assert ScoringOptions(labels=("PER", "ORG,LOC")).labels == ("PER", "ORG", "LOC")
