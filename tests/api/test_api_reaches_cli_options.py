"""Every command-line option is reachable from the API: the test walks each scoring command's
options and calls the API function of the same name with each one set (to a value other than
its default where one exists), on a small pair, and checks the value arrived where it acts."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest
import typer.main

from spacy_span_eval import api
from spacy_span_eval.cli import app
from spacy_span_eval.errors import InvalidInputError, UnknownLabelError
from spacy_span_eval.readers.options import CHOICES

COMMANDS = {
    "evaluate": api.evaluate_files,
    "gate": api.gate_files,
    "report": api.report_files,
    "compare": api.compare_files,
}
#: Options whose API keyword has another shape.
RENAMED = {"name_a": "names", "name_b": "names"}
ARGUMENTS = {"gold", "pred", "pred_a", "pred_b"}

GOLD = "John B-PER\nSmith I-PER\nlives O\nin O\nParis B-LOC\n\nAcme B-ORG\nhired O\nMary B-PER\n"
PRED = "John B-PER\nSmith O\nlives O\nin O\nParis B-PER\n\nAcme B-ORG\nhired O\nMary B-PER\n"


def cli_options(command: str) -> list[str]:
    group = typer.main.get_command(app)
    return [p.name for p in group.commands[command].params if p.name not in ARGUMENTS]


def keywords_of(function) -> set[str]:
    """Its named parameters and the keys of its ``**keywords: Unpack[...]`` TypedDict."""
    parameters = inspect.signature(function).parameters.values()
    names = {p.name for p in parameters if p.kind is not p.VAR_KEYWORD}
    for p in parameters:
        if p.kind is p.VAR_KEYWORD:  # (annotated "Unpack[SomeKeywords]")
            typed = getattr(api, p.annotation.removeprefix("Unpack[").removesuffix("]"))
            names |= set(typed.__annotations__)
    return names


@pytest.mark.parametrize("command", COMMANDS)
def test_every_option_of_the_command_is_a_keyword_of_its_api_function(command):
    keywords = keywords_of(COMMANDS[command])
    missing = [o for o in cli_options(command) if RENAMED.get(o, o) not in keywords]
    assert missing == []


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("pair")
    (root / "gold.conll").write_text(GOLD)
    (root / "pred.conll").write_text(PRED)
    (root / "map.json").write_text(json.dumps({"PERSON": "PER"}))
    (root / "hierarchy.json").write_text(
        json.dumps({"entity": {"PER": "ENT", "LOC": "ENT", "ORG": "ENT"}})
    )
    (root / "floors.json").write_text(json.dumps({"floors": {"PER": {"recall": 0.5}}}))
    (root / "code.py").write_text("X = 1\n")
    import spacy

    spacy.blank("en").to_disk(root / "blank_model")
    return root


def values(root: Path, tmp: Path) -> dict[str, object]:
    """A value for each option (not its default where one can be given here)."""
    return {
        "model": str(root / "blank_model"),
        "strategy": "exact",
        "thresholds": (0.5, 1.0),
        "strategy_options": ("coverage=pooled",),
        "threshold": 0.75,
        "beta": 2.0,
        "label_map": root / "map.json",
        "strict_labels": True,
        "hierarchy": root / "hierarchy.json",
        "errors": 3,
        "labels": ("PER",),
        "sweep": True,
        "map_thresholds": True,
        "choose_thresholds": tmp / "thresholds.json",
        "output_format": "json",
        "wide": True,
        "output": tmp / "out.txt",
        "per_document": tmp / "docs.jsonl",
        "slice_by": ("document",),
        "input_format": "conll",
        "unit": "char",
        "scheme": "IOB1",
        "repair": "discard",
        "tag_column": 1,
        "pred_tag_column": -1,
        "delimiter": "space",
        "source": "ents",
        "align": "position",
        "align_share": 0.5,
        "model_version": "v1",
        "annotator": "news-alice",
        "session": "news-alice",
        "gold_annotator": "news-alice",
        "pred_annotator": "news-bob",
        "gold_session": "news-alice",
        "pred_session": "news-bob",
        "pairs": "gold",
        "grounding": "caseless",
        "similarity": 0.8,
        "occurrence": "first",
        "snap": "expand",
        "n_process": 2,
        "batch_size": 7,
        "code": str(root / "code.py"),
        "gpu_id": -1,
        "dask_scheduler": "tcp://127.0.0.1:9",
        "connect_timeout": 0.5,
        "silent": True,
        "quiet": True,
        "floors": root / "floors.json",
        "resamples": 10,
        "seed": 3,
        "confidence": 0.9,
        "title": "T",
        "name": "sys",
        "method": "bootstrap",
        "name_a": "A",
        "name_b": "B",
    }


def call(command: str, option: str, value: object, root: Path):
    gold, pred = root / "gold.conll", root / "pred.conll"
    keyword = RENAMED.get(option, option)
    given = {keyword: ("A", "B") if keyword == "names" else value}
    if command == "gate" and option != "floors":
        given["floors"] = root / "floors.json"
    if command == "report" and option != "output":
        given["output"] = root / f"report-{option}.html"
    if command in ("report", "compare") and option != "resamples":
        given["resamples"] = 10
    if option == "model":
        return COMMANDS[command](gold, **given)
    if option in ("code", "gpu_id", "batch_size"):  # (a pipeline's settings)
        given["model"] = str(root / "blank_model")
        return COMMANDS[command](gold, **given)
    if command == "compare":
        return COMMANDS[command](gold, pred, gold, **given)
    return COMMANDS[command](gold, pred, **given)


@pytest.mark.parametrize(("command", "option"), [(c, o) for c in COMMANDS for o in cli_options(c)])
def test_the_api_takes_each_option_and_acts_on_it(command, option, files, tmp_path):
    value = values(files, tmp_path)[option]
    if option == "dask_scheduler":  # nothing listens there: the scheduler was asked for
        with pytest.raises(InvalidInputError, match="cannot reach the Dask scheduler"):
            call(command, option, value, files)
        return
    if option == "method":  # the bootstrap is refused on so few documents: it was asked for
        with pytest.raises(InvalidInputError, match="bootstrap test needs at least 30"):
            call(command, option, value, files)
        return
    if option.removeprefix("gold_").removeprefix("pred_") in CHOICES:  # (CoNLL has none)
        with pytest.raises(InvalidInputError, match=f"--{option.replace('_', '-')}: "):
            call(command, option, value, files)
        return
    if option == "map_thresholds":  # asked for alone: it needs --sweep
        with pytest.raises(InvalidInputError, match="needs --sweep"):
            call(command, option, value, files)
        return
    if (command, option) == ("evaluate", "resamples"):  # alone: it resamples field slices
        with pytest.raises(InvalidInputError, match="needs --slice-by FIELD"):
            call(command, option, value, files)
        return
    if option in ("sweep", "choose_thresholds"):  # CoNLL predictions carry no scores: swept
        with pytest.raises(InvalidInputError, match="have no score"):
            call(command, option, value, files)
        return
    if option == "strict_labels":  # without a map, every label is unknown
        with pytest.raises(UnknownLabelError, match="strict label map"):
            call(command, option, value, files)
        return
    out = call(command, option, value, files)
    result = out.result if hasattr(out, "result") else out.runs[0].result
    settings = result.settings
    acted = {
        "strategy": lambda: settings.strategy == "exact",
        "thresholds": lambda: 1.0 in settings.thresholds,
        "threshold": lambda: 0.75 in settings.thresholds,
        "beta": lambda: settings.beta == 2.0,
        "strategy_options": lambda: settings.coverage == "pooled",
        "label_map": lambda: settings.label_map is not None,
        "hierarchy": lambda: len(settings.levels) == 2,
        "labels": lambda: settings.labels == ("PER",),
        "unit": lambda: settings.unit == "char",
        "output": lambda: (tmp_path / "out.txt").exists(),
        "per_document": lambda: (tmp_path / "docs.jsonl").exists(),
        "errors": lambda: settings.max_errors == 3,
        "model": lambda: out_inputs(out)["predicted"]["format"] == "model",
        "align": lambda: "alignment" in out_inputs(out)["predicted"],
        "floors": lambda: getattr(out, "verdict", None) is not None,
        "name_a": lambda: out.names == ("A", "B"),
        "name_b": lambda: out.names == ("A", "B"),
        "name": lambda: out.runs[0].name == "sys",
        "title": lambda: "<title>T" in out.html if hasattr(out, "html") else True,
        "slice_by": lambda: "gold.conll" in str(getattr(out, "slices", None) or out.runs[0].slices),
    }
    assert acted.get(option, lambda: True)()


def out_inputs(out) -> dict:
    return out.inputs if hasattr(out, "inputs") else out.runs[0].inputs
