"""The command line reads well: --version, readable value names in --help, help text printed
as written (no markup eaten), one-sentence summaries, --labels and the label-map hint."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from spacy_span_eval.about import __version__
from spacy_span_eval.cli import app
from spacy_span_eval.engine.settings import STRATEGY_NAMES

runner = CliRunner()
COMMANDS = ("evaluate", "gate", "report", "compare", "demo", "convert", "demo-corpus")

# Sentence 1: PER found, the city predicted as GPE (gold says LOC); sentence 2: ORG found.
GOLD = "John B-PER\nin O\nParis B-LOC\n\nAcme B-ORG\nsold O\n"
PRED = "John B-PER\nin O\nParis B-GPE\n\nAcme B-ORG\nsold O\n"


def help_of(*command: str) -> str:
    result = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "200"}, terminal_width=200)
    assert result.exit_code == 0, result.output
    return result.output


def test_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout.strip() == f"spacy-span-eval {__version__}"


@pytest.mark.parametrize("command", [(), *((c,) for c in COMMANDS)])
def test_no_unreadable_value_names(command):
    text = help_of(*command)
    for unreadable in (
        "<bool>",
        "<list[float]>",
        "<list[str]>",
        "<int range>",
        "<str>",
        "<float>",
        "<int>",
    ):
        assert unreadable not in text, (command, unreadable)


def test_value_names_say_what_to_give():
    text = help_of("evaluate")
    for flag, name in (
        ("--threshold", "TAU"),
        ("--label-map", "FILE"),
        ("--errors", "N"),
        ("--labels", "LABEL,..."),
        ("--output", "FILE"),
    ):
        (line,) = [ln for ln in text.splitlines() if ln.startswith(f"│ {flag} ")]
        assert name in line, (flag, line)
    (silent,) = [ln for ln in text.splitlines() if "--silent" in ln]
    assert re.search(r"--silent\s+Print nothing", silent)


def test_help_text_is_printed_as_written():
    assert 'pip install -e ".[dask]"' in " ".join(help_of("evaluate").replace("│", " ").split())


@pytest.mark.parametrize(
    ("command", "usage"),
    [
        ("evaluate", "evaluate [OPTIONS] GOLD [PRED]"),
        ("gate", "gate [OPTIONS] GOLD [PRED]"),
        ("report", "report [OPTIONS] GOLD [PRED]"),
        ("compare", "compare [OPTIONS] GOLD PRED_A PRED_B"),
        ("convert", "convert [OPTIONS] GOLD OUTPUT"),
        ("demo-corpus", "demo-corpus [OPTIONS] [FOLDER]"),
        ("demo", "demo [OPTIONS]"),
    ],
)
def test_usage_lines_read_as_a_user_types_them(command, usage):
    (line,) = [ln.strip() for ln in help_of(command).splitlines() if "Usage:" in ln]
    assert line.endswith(usage), line


def test_the_summary_and_every_strategy_flag_name_every_strategy():
    others = ", ".join(name for name in STRATEGY_NAMES if name != "two_sided")
    assert f"two-sided IoU counting (or {others})." in " ".join(help_of().split())
    assert "semeval" in others
    for command in ("evaluate", "gate", "report", "compare"):
        assert f"<{'|'.join(STRATEGY_NAMES)}>" in help_of(command), command


@pytest.mark.parametrize(
    ("command", "says"),
    [
        ("convert", "Input format of the gold file (default: from its file name"),
        ("evaluate", "Input format of both files (default: from each file name"),
        ("compare", "Input format of the three files (default: from each file name"),
    ],
)
def test_input_format_help_counts_the_command_s_files(command, says):
    assert says in " ".join(help_of(command).replace("│", " ").split())


def test_command_summaries_are_whole_sentences():
    text = help_of()
    rows = {}
    for line in text.splitlines():
        m = re.match(r"│ ([a-z-]+)\s{2,}(.*?)\s*│$", line)
        if m and m.group(1) in COMMANDS:
            rows[m.group(1)] = m.group(2)
    assert set(rows) == set(COMMANDS)
    for name, summary in rows.items():
        assert summary.endswith(")") or summary.endswith("."), (name, summary)


@pytest.fixture
def files(tmp_path):
    gold, pred = tmp_path / "gold.conll", tmp_path / "pred.conll"
    gold.write_text(GOLD)
    pred.write_text(PRED)
    return str(gold), str(pred)


def test_labels_scores_a_subset(files):
    result = runner.invoke(app, ["evaluate", *files, "--labels", "PER,LOC", "-f", "json"])
    assert result.exit_code == 0, result.output
    run = json.loads(result.stdout)["result"]["levels"]["labels"][0]
    assert sorted(run["per_label"]) == ["LOC", "PER"]
    assert (run["micro"]["num_annotated"], run["micro"]["num_predicted"]) == (2, 1)
    # Repeated flags do the same; a label map names the labels --labels picks.
    again = runner.invoke(
        app, ["evaluate", *files, "--labels", "PER", "--labels", "LOC", "-f", "json"]
    )
    assert json.loads(again.stdout)["result"]["levels"]["labels"][0] == run


def test_labels_select_after_the_label_map(files, tmp_path):
    label_map = tmp_path / "map.json"
    label_map.write_text('{"GPE": "LOC"}')
    result = runner.invoke(
        app, ["evaluate", *files, "--label-map", str(label_map), "--labels", "LOC", "-f", "json"]
    )
    run = json.loads(result.stdout)["result"]["levels"]["labels"][0]
    assert list(run["per_label"]) == ["LOC"] and run["micro"]["tp"] == 1


def test_hint_when_predicted_labels_never_occur_in_gold(files):
    result = runner.invoke(app, ["evaluate", *files])
    assert result.exit_code == 0
    assert "--label-map" not in result.stdout
    assert "Predicted labels never found in gold" in result.stderr
    # (a text table counts no confusion cells: which gold label GPE covers is not known)
    assert "GPE (1 span)" in result.stderr and '{"GPE": "GOLD_LABEL"}' in result.stderr
    # JSON on stdout stays JSON; the hint is on stderr, with the gold label GPE covers.
    as_json = runner.invoke(app, ["evaluate", *files, "-f", "json"])
    json.loads(as_json.stdout)
    assert '--label-map (e.g. {"GPE": "LOC"}' in as_json.stderr
    assert runner.invoke(app, ["evaluate", *files, "--silent"]).stderr == ""


def test_no_hint_when_every_predicted_label_is_in_gold(files, tmp_path):
    label_map = tmp_path / "map.json"
    label_map.write_text('{"GPE": "LOC"}')
    result = runner.invoke(app, ["evaluate", *files, "--label-map", str(label_map)])
    assert result.exit_code == 0 and "hint" not in result.stderr


def test_a_chosen_label_found_nowhere_is_named(files):
    result = runner.invoke(app, ["evaluate", *files, "--labels", "PER,MONEY"])
    assert result.exit_code == 0 and "--labels: MONEY found in neither" in result.stderr
