"""``python -m spacy span-eval``: the commands in spaCy's own CLI through the
``spacy_cli`` entry point, and ``--code``/``--gpu-id`` in the project's CLI.

spaCy imports every ``spacy_cli`` entry point before parsing its command line, and importing
``spacy_span_eval.cli.spacy_plugin`` adds the ``span-eval`` group to spaCy's app. When this
package is installed (``pip install -e .``, as ``make test`` and CI do) the tests run
``python -m spacy span-eval`` itself. When the interpreter's installed metadata predates the
entry point (a development checkout put on ``PYTHONPATH`` over an older install), the
subprocess makes that one import itself and then runs spaCy's ``setup_cli()``: the same code
path, minus the metadata lookup, which ``test_the_entry_point_is_declared_for_spacy`` checks
on its own.

The pipeline is an ``entity_ruler`` that finds "Alice" (gold "Alice Smith": IoU 5/11, a TP at
0.4 and not at 0.5), "Acme Corp" and "Paris"; gold: "Alice Smith joined Acme Corp in Paris."
(PER, ORG, LOC) and "Bob went to Paris." (PER "Bob", LOC). So at IoU 0.5: gold 5, predicted
4, TP 3; PER recall 0; at 0.4 PER recall 0.5.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from importlib.metadata import entry_points

import pytest

from conftest import REPO

PLUGIN = "spacy_span_eval.cli.spacy_plugin:span_eval_cli"
INSTALLED = any(
    e.name == "span-eval" and e.value == PLUGIN for e in entry_points(group="spacy_cli")
)
GOLD = [
    ("Alice Smith joined Acme Corp in Paris.", [(0, 11, "PER"), (19, 28, "ORG"), (32, 37, "LOC")]),
    ("Bob went to Paris.", [(0, 3, "PER"), (12, 17, "LOC")]),
]


def spacy_cli(*args, cwd=None) -> subprocess.CompletedProcess:
    if INSTALLED:
        command = [sys.executable, "-m", "spacy", *map(str, args)]
    else:
        command = [
            sys.executable,
            "-c",
            "import spacy_span_eval.cli.spacy_plugin; from spacy.cli import setup_cli; setup_cli()",
            *map(str, args),
        ]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=cwd)


def our_cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "spacy_span_eval", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    import spacy
    from spacy.tokens import DocBin

    folder = tmp_path_factory.mktemp("spacy_cli")
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe(
        "entity_ruler", config={"scorer": {"@scorers": "spacy_span_eval.ents_scorer.v1"}}
    )
    ruler.add_patterns(
        [
            {"label": "PER", "pattern": "Alice"},
            {"label": "ORG", "pattern": [{"LOWER": "acme"}, {"LOWER": "corp"}]},
            {"label": "LOC", "pattern": "Paris"},
        ]
    )
    nlp.to_disk(folder / "model")
    docbin = DocBin()
    for text, ents in GOLD:
        doc = nlp.make_doc(text)
        doc.ents = [doc.char_span(s, e, label=label) for s, e, label in ents]
        docbin.add(doc)
    docbin.to_disk(folder / "dev.spacy")
    (folder / "floors.json").write_text(json.dumps({"floors": {"LOC": {"recall": 0.9}}}))
    (folder / "strict.json").write_text(json.dumps({"floors": {"PER": {"recall": 0.5}}}))
    return folder


def test_the_entry_point_is_declared_for_spacy():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["entry-points"]["spacy_cli"] == {"span-eval": PLUGIN}
    from spacy.cli import app

    import spacy_span_eval.cli.spacy_plugin as plugin

    assert any(group.typer_instance is plugin.span_eval_cli for group in app.registered_groups)


def section(out: str, start: str, stop: str | None = None) -> str:
    tail = out[out.index(start) :]
    return tail[: tail.index(stop)] if stop else tail


@pytest.mark.slow
def test_spacy_span_eval_evaluate_prints_both_tables_and_writes_both(pipeline):
    out = pipeline / "metrics.json"
    run = spacy_cli(
        "span-eval",
        "evaluate",
        pipeline / "model",
        pipeline / "dev.spacy",
        "-o",
        out,
        "-t",
        "0.4",
        "--threshold",
        "0.5",
        "-g",
        "-1",
    )
    assert run.returncode == 0, run.stdout + run.stderr
    text = run.stdout
    spacy_table = section(text, "Results", "NER (per type)")
    assert "NER P   75.00" in spacy_table and "NER R   60.00" in spacy_table  # spaCy's exact
    ours = section(text, "spacy-span-eval: two_sided on Doc.ents")
    at_04, at_05 = ours.split("== two_sided · IoU >= 0.5")
    assert "== two_sided · IoU >= 0.4" in at_04
    per_04 = next(line.split() for line in at_04.splitlines() if line.startswith("PER"))
    per_05 = next(line.split() for line in at_05.splitlines() if line.startswith("PER"))
    assert per_04[1:5] == ["2", "1", "1", "1"] and per_05[1:5] == ["2", "1", "0", "2"]
    saved = json.loads(out.read_text())
    assert saved["spacy"]["ents_p"] == 0.75  # spaCy's own metrics, as spacy evaluate -o
    assert saved["spacy"]["ents_iou_f"] is not None  # the pipeline's scorer adds its keys
    runs = saved["span_eval"]["result"]["levels"]["labels"]
    assert [r["threshold"] for r in runs] == [0.4, 0.5]
    assert runs[1]["micro"]["tp"] == 3 and runs[0]["per_label"]["PER"]["recall"] == 0.5


@pytest.mark.slow
def test_spacy_span_eval_gate_exits_by_the_floors_and_report_writes_the_page(pipeline):
    passed = spacy_cli(
        "span-eval",
        "gate",
        pipeline / "model",
        pipeline / "dev.spacy",
        "--floors",
        pipeline / "floors.json",
    )
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Gate passed" in passed.stderr  # a message: stderr (semantics §7)
    failed = spacy_cli(
        "span-eval",
        "gate",
        pipeline / "model",
        pipeline / "dev.spacy",
        "--floors",
        pipeline / "strict.json",
        "-o",
        pipeline / "gate.json",
    )
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert json.loads((pipeline / "gate.json").read_text())["gate"]["passed"] is False
    page = pipeline / "report.html"
    report = spacy_cli(
        "span-eval",
        "report",
        pipeline / "model",
        pipeline / "dev.spacy",
        "-o",
        page,
        "--resamples",
        "20",
    )
    assert report.returncode == 0, report.stdout + report.stderr
    assert "<svg" in page.read_text(encoding="utf-8")


CUSTOM = """
from spacy.language import Language

@Language.component("shout_locations")
def shout_locations(doc):
    return doc
"""


@pytest.mark.slow
def test_code_and_gpu_id_in_both_clis(pipeline, tmp_path):
    import spacy

    nlp = spacy.load(pipeline / "model")
    code = tmp_path / "custom.py"
    code.write_text(CUSTOM)
    exec(compile(CUSTOM, str(code), "exec"), {})  # register it here to save the pipeline
    nlp.add_pipe("shout_locations")
    nlp.to_disk(tmp_path / "custom_model")
    args = ["evaluate", pipeline / "dev.spacy", "--model", tmp_path / "custom_model"]
    missing = our_cli(*args)
    assert missing.returncode == 2
    assert "shout_locations" in missing.stdout + missing.stderr
    assert "Traceback" not in missing.stderr
    ok = our_cli(*args, "--code", code, "--gpu-id", "-1", "-t", "0.4", "--wide")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert next(line.split() for line in ok.stdout.splitlines() if line.startswith("micro"))[
        1:4
    ] == ["5", "4", "4"]
    plugin = spacy_cli(
        "span-eval", "evaluate", tmp_path / "custom_model", pipeline / "dev.spacy", "-c", code
    )
    assert plugin.returncode == 0, plugin.stdout + plugin.stderr
    import thinc.util

    if not thinc.util.gpu_is_available():
        no_gpu = our_cli(*args, "--code", code, "--gpu-id", "0")
        assert no_gpu.returncode == 2
        assert "cannot use GPU 0" in no_gpu.stdout + no_gpu.stderr


def test_the_project_cli_takes_code_and_gpu_id_as_reading_options():
    from typer.testing import CliRunner

    from spacy_span_eval.cli import app

    for command in ("evaluate", "gate", "report"):
        help_text = CliRunner().invoke(app, [command, "--help"], terminal_width=200).output
        assert "--code" in help_text and "--gpu-id" in help_text, command
    compare = CliRunner().invoke(app, ["compare", "--help"], terminal_width=200).output
    assert "--gpu-id" not in compare


@pytest.mark.slow
def test_the_plugin_keeps_the_exit_codes(pipeline, tmp_path):
    """semantics §7 inside spaCy's CLI too: a model that cannot be loaded is exit 2 with one line,
    and -o naming the data file is refused before anything is read."""
    missing = spacy_cli(
        "span-eval",
        "gate",
        tmp_path / "no_model",
        pipeline / "dev.spacy",
        "--floors",
        pipeline / "floors.json",
    )
    assert missing.returncode == 2, missing.stdout + missing.stderr
    assert "Traceback" not in missing.stderr
    assert missing.stderr.strip().splitlines()[-1].startswith("\u2718 ")
    before = (pipeline / "dev.spacy").read_bytes()
    clobber = spacy_cli(
        "span-eval",
        "evaluate",
        pipeline / "model",
        pipeline / "dev.spacy",
        "-o",
        pipeline / "dev.spacy",
    )
    assert clobber.returncode == 2, clobber.stdout + clobber.stderr
    assert "the output is the data file" in clobber.stderr
    assert (pipeline / "dev.spacy").read_bytes() == before


@pytest.mark.parametrize("command", ["evaluate", "gate", "report"])
def test_the_plugin_usage_lines_read_as_a_user_types_them(command):
    from typer.testing import CliRunner

    from spacy_span_eval.cli.spacy_plugin import span_eval_cli

    help_text = CliRunner().invoke(span_eval_cli, [command, "--help"], terminal_width=200).output
    (usage,) = [ln.strip() for ln in help_text.splitlines() if "Usage:" in ln]
    assert usage.endswith(f"{command} [OPTIONS] MODEL DATA_PATH"), usage
