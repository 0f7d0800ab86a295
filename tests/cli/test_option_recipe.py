"""The "new option" recipe of docs/architecture.md: a field of its option set, its keyword in
the set's TypedDict and a flag in its ``Flags`` set. A toy set goes through the mechanism the
commands use (``takes_options``); the real sets are held to the recipe (their keywords are
held equal to their fields by tests/api/test_api_types.py, the API's reach of every flag by
tests/api/test_api_reaches_cli_options.py)."""

from __future__ import annotations

from typing import Annotated, TypedDict

import attrs
import pytest
import typer
from typer.testing import CliRunner

from spacy_span_eval.cli import option_sets as cli_options
from spacy_span_eval.cli.typer_app import Flags, flag, takes_options
from spacy_span_eval.jobs.options import RunOptions, ScoringOptions
from spacy_span_eval.readers.options import PER_SIDE_STATE, ReadingOptions


@attrs.frozen
class ToyOptions:
    """A toy option set, with the option the recipe adds: ``volume``."""

    loud: bool = False
    volume: int = attrs.field(default=3, validator=attrs.validators.ge(0))


class ToyKeywords(TypedDict, total=False):
    loud: bool
    volume: int


TOY_FLAGS = Flags(
    ToyOptions,
    loud=flag(bool, "--loud", help="Shout"),
    volume=flag(int, "--volume", help="How loud"),
)

app = typer.Typer()


@app.command()
@takes_options
def say(word: str, *, toy: Annotated[ToyOptions, TOY_FLAGS]) -> None:
    typer.echo(f"{word}: {toy!r}")


def test_a_toy_option_is_a_field_a_keyword_and_a_flag():
    assert set(ToyKeywords.__annotations__) == {f.name for f in attrs.fields(ToyOptions)}
    runner = CliRunner()
    given = runner.invoke(app, ["hi", "--volume", "7", "--loud"])
    assert given.exit_code == 0, given.output
    assert given.output == "hi: ToyOptions(loud=True, volume=7)\n"
    left_out = runner.invoke(app, ["hi"])
    assert left_out.output == "hi: ToyOptions(loud=False, volume=3)\n"
    refused = runner.invoke(app, ["hi", "--volume", "-1"])  # the set's own check, as exit 2
    assert refused.exit_code == 2 and "volume" in refused.output
    shown = runner.invoke(app, ["--help"], env={"COLUMNS": "200"})
    assert "--volume" in shown.output and "How loud" in shown.output


def test_a_flag_set_refuses_a_flag_without_its_field():
    with pytest.raises(TypeError, match="ToyOptions has no field pitch"):
        Flags(ToyOptions, pitch=flag(int, "--pitch"))


@pytest.mark.parametrize("options", [ReadingOptions, ScoringOptions, RunOptions])
def test_every_field_of_the_real_option_sets_has_a_flag(options):
    sets = [v for v in vars(cli_options).values() if isinstance(v, Flags)]
    flagged = {name for s in sets if s.target is options for name in s.flags}
    unflagged = [f.name for f in attrs.fields(options) if f.name not in flagged]
    assert unflagged == (list(PER_SIDE_STATE) if options is ReadingOptions else [])
