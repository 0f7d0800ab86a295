"""Start-up budget, per command: the modules each command line may load (a list, not a time,
so that the check holds on any machine). Each runs ``spacy-span-eval``'s entry point in a fresh
interpreter, where ``sys.modules`` is honest, and reads the loaded modules when it exits."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from spacy_span_eval.about import version_line

pytestmark = pytest.mark.processes  # a Python process per command

GOLD = "John B-PER\nSmith I-PER\nsaid O\n\nParis B-LOC\nis O\n"
PRED = "John B-PER\nSmith O\nsaid O\n\nParis B-LOC\nis O\n"

# The entry point, as the console script runs it; the loaded modules are written at exit.
PROBE = textwrap.dedent("""
    import atexit, json, sys
    atexit.register(lambda: print(json.dumps(sorted(sys.modules))))
    sys.argv = ["spacy-span-eval", *json.loads(sys.argv[1])]
    from spacy_span_eval.__main__ import main
    main()
""")

NUMERIC = ("numpy", "spacy", "thinc", "jinja2")
# The flags read light modules (the options classes, the names of formats and strategies);
# the work is in these.
ENGINE = (
    "spacy_span_eval.api",
    "spacy_span_eval.engine.evaluator",
    "spacy_span_eval.engine.strategies",
    "spacy_span_eval.jobs.evaluate",
    "spacy_span_eval.readers.source",
    "spacy_span_eval.render.report",
)
RENDERING = ("jinja2", "spacy_span_eval.render.html")


def loaded(*args: str) -> tuple[str, list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(args)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    *out, modules = done.stdout.strip().splitlines()
    return "\n".join(out), json.loads(modules)


def unwanted(modules: list[str], roots: tuple[str, ...]) -> list[str]:
    return [m for m in modules if any(m == r or m.startswith(r + ".") for r in roots)]


def test_version_loads_neither_typer_nor_the_package_beyond_its_version():
    out, modules = loaded("--version")
    assert out == version_line()
    assert unwanted(modules, ("typer", "click", "rich", "attrs", *NUMERIC, *ENGINE)) == []


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(("--help",), id="--help"),
        pytest.param(("evaluate", "--help"), id="evaluate --help"),
        pytest.param(("report", "--help"), id="report --help"),
        pytest.param(("--debug", "--version"), id="--debug --version (through typer)"),
    ],
)
def test_help_loads_no_numpy_no_spacy_no_engine(args):
    out, modules = loaded(*args)
    assert out
    # (typer converts parameter values through pydantic, which costs ~0.1 s to import: a
    # help page converts none)
    assert unwanted(modules, (*NUMERIC, *ENGINE, *RENDERING, "pydantic")) == []


@pytest.fixture
def pair(tmp_path) -> tuple[str, str]:
    gold, pred = tmp_path / "gold.conll", tmp_path / "pred.conll"
    gold.write_text(GOLD)
    pred.write_text(PRED)
    return str(gold), str(pred)


def test_evaluate_to_json_loads_no_page_renderer_and_no_spacy(pair):
    out, modules = loaded("evaluate", *pair, "--strategy", "exact", "--format", "json")
    assert json.loads(out)["result"]["levels"]["labels"][0]["micro"]["precision"] == 0.5
    assert unwanted(modules, ("spacy", "thinc", *RENDERING, "spacy_span_eval.jobs.compare")) == []
    assert "numpy" in modules  # (the probe sees what a command does load)


# Loaded only by the commands that ask for them.
WRITER = ("spacy_span_eval.render.documents", "csv")  # --per-document
SETTINGS = (  # --floors, --label-map, --hierarchy
    "spacy_span_eval.engine.gates",
    "spacy_span_eval.readers.settings_files",
    "spacy_span_eval.readers.jsonio",
)
CHAR_ALIGN = ("spacy_span_eval.readers.char_align",)  # character texts (--align chars)
RANGES = ("spacy_span_eval.readers.ranges",)  # a parallel run's plan (--n-process)


def test_a_plain_evaluate_loads_no_writer_gate_settings_readers_alignment_or_ranges(pair):
    _, modules = loaded("evaluate", *pair)
    # (not csv: typer converts the values through pydantic, which loads it through
    # importlib.metadata; the writer itself stays unloaded)
    assert unwanted(modules, (WRITER[0], *SETTINGS, *CHAR_ALIGN, *RANGES)) == []


def test_per_document_loads_the_writer(pair, tmp_path):
    rows = tmp_path / "rows.csv"
    _, modules = loaded("evaluate", *pair, "--per-document", str(rows))
    assert sorted(unwanted(modules, WRITER)) == sorted(WRITER)
    assert rows.read_text().startswith("document")


def test_floors_load_the_gate_and_the_settings_readers(pair, tmp_path):
    floors = tmp_path / "floors.json"
    floors.write_text('{"floors": {"PER": {"recall": 0.1}}}')
    _, modules = loaded("gate", *pair, "--floors", str(floors))
    assert sorted(unwanted(modules, SETTINGS)) == sorted(SETTINGS)


def test_the_light_strategy_names_are_the_registry_s_built_in_ones():
    # The CLI lists STRATEGY_NAMES without importing the strategies; they must not drift.
    from spacy_span_eval.engine.settings import STRATEGY_NAMES
    from spacy_span_eval.engine.strategies import BUILT_IN

    assert STRATEGY_NAMES == tuple(cls.name for cls in BUILT_IN)


def test_spacy_s_cli_loads_the_plugin_without_the_api():
    # spaCy imports every spacy_cli entry point before any of its commands (spacy train too).
    probe = (
        "import json, sys; import spacy_span_eval.cli.spacy_plugin; "
        "print(json.dumps(sorted(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    modules = json.loads(done.stdout.strip().splitlines()[-1])
    # (spaCy itself loads numpy, pydantic and Jinja2: only this package's modules count)
    assert unwanted(modules, (*ENGINE, "spacy_span_eval.render.html")) == []
