"""The entry point builds only the command it runs (typer would build every command's
parameters on each start); help, usage errors and "No such command" stay the whole app's."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from spacy_span_eval.cli import app
from spacy_span_eval.cli.typer_app import app_for

COMMANDS = [c.name for c in app.registered_commands]


def names(built) -> list[str]:
    return [c.name for c in built.registered_commands]


@pytest.mark.parametrize("name", COMMANDS)
def test_a_command_named_first_is_built_alone(name):
    assert names(app_for([name, "gold.conll", "--strategy", "exact"])) == [name]
    assert names(app_for(["--debug", name])) == [name]


@pytest.mark.parametrize(
    "args",
    [
        pytest.param([], id="nothing"),
        pytest.param(["--help"], id="--help"),
        pytest.param(["--help", "evaluate"], id="--help before the command"),
        pytest.param(["--version"], id="--version"),
        pytest.param(["--debug"], id="--debug alone"),
        pytest.param(["evaluat", "x"], id="misspelt"),
        pytest.param(["gold.conll", "evaluate"], id="a file first"),
    ],
)
def test_anything_else_gets_the_whole_app(args):
    assert app_for(args) is app


def test_the_shared_app_keeps_every_command():
    app_for(["evaluate"])
    assert names(app) == COMMANDS
    assert len(COMMANDS) > 1


@pytest.mark.parametrize("name", COMMANDS)
def test_help_and_usage_errors_read_the_same(name):
    runner = CliRunner()
    for args in ([name, "--help"], [name, "--no-such-flag"]):
        whole = runner.invoke(app, args, prog_name="spacy-span-eval")
        alone = runner.invoke(app_for(args), args, prog_name="spacy-span-eval")
        assert (alone.exit_code, alone.output) == (whole.exit_code, whole.output)
        assert whole.output
