"""Shared fixtures and helpers: where the real corpora are (and how their absence is handled),
small input files, the CLI through typer's runner, and independent tag writers/readers."""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import json
import os
import pickle
import shutil
import subprocess
import sys
from collections.abc import Sequence
from concurrent.futures import Executor, Future
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import settings

REPO = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("SPACY_SPAN_EVAL_DATA", REPO.parent / "shared" / "data"))
CI = os.environ.get("CI") == "true"

# The folders under tests/ mirror the package and have no __init__.py: pytest puts this folder
# on sys.path (for the helpers beside this file), and these lines put each test folder there
# too, so a test module that takes cases from another one (test_parallel_reading from
# test_readers_conll_columns) imports it by name whichever folder is run. Base names of test
# files must therefore stay unique across the folders.
sys.path.extend(
    str(folder)
    for folder in sorted(Path(__file__).parent.iterdir())
    if folder.is_dir()
    and folder.name.isidentifier()
    and folder.name != "fixtures"
    and str(folder) not in sys.path
)

# CI explores the same examples on every run, so a landing never hinges on a lucky draw;
# local runs keep exploring new ones (run with --hypothesis-seed to vary them on purpose).
# Neither keeps hypothesis' example database: a failure found once is printed with the blob
# that reproduces it (@reproduce_failure), not replayed by every later `make test` on the
# machine, so a second run of a fresh clone depends only on the code.
settings.register_profile("ci", derandomize=True, print_blob=True, database=None)
settings.register_profile("local", print_blob=True, database=None)
settings.load_profile("ci" if CI else "local")


@pytest.fixture(autouse=True)
def fresh_tag_schemes(monkeypatch):
    """Each test decodes with tag schemes built for it. The seven schemes are built at import
    and cache parsed tags as they go, so otherwise their transition tables and most tag
    parsing would come from code that ran before the test did (and before mutation testing
    forks its mutants, which would then go untested)."""
    from spacy_span_eval.readers import schemes

    for name, scheme in list(schemes.SCHEMES.items()):
        monkeypatch.setitem(schemes.SCHEMES, name, dataclasses.replace(scheme))


@pytest.fixture(autouse=True)
def fresh_seqeval_tables(monkeypatch):
    """The same for the seqeval drop-in, once it is imported: its default mode's transition
    tables, its six scheme classes and their pattern tables (cached) are built afresh."""
    tags = sys.modules.get("spacy_span_eval.seqeval._tags")
    if tags is None:
        return
    from spacy_span_eval.seqeval import scheme

    ends, starts = tags._lenient_tables()
    monkeypatch.setattr(tags, "LENIENT_ENDS", ends)
    monkeypatch.setattr(tags, "LENIENT_STARTS", starts)
    scheme.scheme_tables.cache_clear()
    for name, cls in list(scheme.SCHEMES.items()):
        fresh = scheme._scheme(name, cls.allowed, cls.start, cls.inside, cls.end)
        monkeypatch.setitem(scheme.SCHEMES, name, fresh)


@pytest.fixture
def built_records(monkeypatch) -> list[int]:
    """One item for each error record the engine builds from here on."""
    from spacy_span_eval.engine import error_records

    built: list[int] = []
    original = error_records._record

    def counting(*args, **kwargs):
        built.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(error_records, "_record", counting)
    return built


def shuffled_documents(docs, rng) -> list:
    """``docs`` in another order, each with its gold and predicted spans in another order:
    what the counts must not depend on."""
    from spacy_span_eval import Document

    shuffled = []
    for d in docs:
        gold, pred = list(d.gold), list(d.pred)
        rng.shuffle(gold)
        rng.shuffle(pred)
        shuffled.append(Document.create(id=d.id, length=d.length, gold=gold, pred=pred))
    rng.shuffle(shuffled)
    return shuffled


def skip_or_fail(message: str, *, module: bool = False) -> None:
    """Skip a test whose outside requirement (a corpus, a browser, an extra) is missing;
    under ``CI=true`` fail instead, so CI never passes by skipping."""
    if CI:
        pytest.fail(message, pytrace=False)
    pytest.skip(message, allow_module_level=module)


def needs(module: str, why: str) -> ModuleType:
    """An optional package a test needs (an extra, a peer): skipped when it is not installed,
    except under ``CI=true``, where CI installs it and its absence fails."""
    try:
        return importlib.import_module(module)
    except ImportError:
        skip_or_fail(f"{module} is not installed ({why})")
        raise


def _transformers_missing() -> bool:
    return importlib.util.find_spec("spacy_transformers") is None


def pytest_collection_modifyitems(config, items):
    """Tests marked ``transformers`` need spacy-transformers (and torch, a large install the
    CI job leaves out): without it they are deselected, and the run's summary says they did
    not run (pytest_terminal_summary) instead of counting them as skipped or passed."""
    if _transformers_missing():
        left = [item for item in items if "transformers" in item.keywords]
        if left:
            config.hook.pytest_deselected(items=left)
            items[:] = [item for item in items if "transformers" not in item.keywords]


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    # Written by the controlling process (also under pytest-xdist, whose workers collect).
    if _transformers_missing():
        terminalreporter.write_sep("=", "not run", yellow=True)
        terminalreporter.write_line(
            "NOT RUN: the tests marked 'transformers' (spacy-transformers is not installed; "
            "make test-transformers installs it and runs them)"
        )


def data_path(*parts: str) -> Path:
    """A file under the shared corpora; skip when absent, except under CI=true (then fail)."""
    path = DATA.joinpath(*parts)
    if not path.exists():
        skip_or_fail(f"shared corpus not found at {path} (set SPACY_SPAN_EVAL_DATA)")
    return path


# -- small input files -------------------------------------------------------------------------
def write_pair(tmp_path: Path, gold: str, pred: str, suffix: str = ".conll") -> tuple[Path, Path]:
    """``gold{suffix}`` and ``pred{suffix}`` in ``tmp_path`` holding the given texts."""
    g, p = tmp_path / f"gold{suffix}", tmp_path / f"pred{suffix}"
    g.write_text(gold, encoding="utf-8")
    p.write_text(pred, encoding="utf-8")
    return g, p


def file_pair(
    gold,
    pred,
    fmt: str = "conll",
    unit: str | None = None,
    gold_options=None,
    pred_options=None,
    **more,
):
    """The columnar pair of two files of one format (``conll``, by default in tokens, or
    ``jsonl``, in characters), each side read with its own options: by default none, the
    predictions' marked as the predicted side."""
    from spacy_span_eval.readers.columnar import ColumnPair
    from spacy_span_eval.readers.options import ReadingOptions

    return ColumnPair(
        "conll" if fmt == "conll" else "chars",
        str(gold),
        str(pred),
        fmt,
        fmt,
        unit or ("token" if fmt == "conll" else "char"),
        ReadingOptions() if gold_options is None else gold_options,
        ReadingOptions(side="predicted") if pred_options is None else pred_options,
        **more,
    )


# The five shared corpora as (path under the data folder, how to read it), for the tests that
# score each whole.
SHARED_CORPORA = [
    (("re3d",), {}),
    (("btc", "btc.test"), {"scheme": "IOB2"}),
    (("wikigold", "wikigold.conll.txt"), {"scheme": "IOB1"}),
    (("sec_filings", "FIN3.test.txt"), {"scheme": "IOB1"}),
    (("presidio_synth", "synth_dataset_v2.json"), {}),
]


def copy_project(tmp_path: Path) -> Path:
    """A copy of the spaCy project (project.yml, configs, assets) to run in ``tmp_path``."""
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(REPO / "project.yml", project)
    for folder in ("configs", "assets"):
        shutil.copytree(REPO / folder, project / folder)
    return project


def span_records(rows) -> str:
    """JSON Lines of ``(id, text, spans)`` rows, each span ``(start, end, label)``."""
    return "".join(
        json.dumps(
            {
                "id": i,
                "text": t,
                "spans": [{"start": s, "end": e, "label": lab} for s, e, lab in spans],
            }
        )
        + "\n"
        for i, t, spans in rows
    )


def cli_process(args, cwd) -> subprocess.Popen:
    """``python -m spacy_span_eval ARGS`` started in ``cwd`` in a session of its own (so a
    signal to its group reaches it and its workers alone), its output on text pipes."""
    return subprocess.Popen(
        [sys.executable, "-m", "spacy_span_eval", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def jsonl(*records) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def floors_file(tmp_path: Path, floors: dict, name: str = "floors.json", **gate) -> str:
    """A JSON floors file; ``gate`` options (strategy, threshold, level) go under ``"gate"``."""
    path = tmp_path / name
    path.write_text(json.dumps({"floors": floors, **({"gate": gate} if gate else {})}))
    return str(path)


# -- the CLI -----------------------------------------------------------------------------------
def flat(text: str) -> str:
    """Messages are wrapped at 80 columns by wasabi; compare them as one line."""
    return " ".join(text.split())


def cli(*args) -> tuple[int, str]:
    """Run the CLI in-process: its exit code and its whole output (stdout and stderr) on one
    line. A traceback or an exception other than the exit itself fails the test."""
    from typer.testing import CliRunner

    from spacy_span_eval.cli import app

    result = CliRunner().invoke(app, [str(a) for a in args])
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, flat(result.output)


def converted_gold_and_ruler(root: Path, record: dict, patterns: list[dict]) -> tuple[Path, Path]:
    """``root/g.spacy``, ``record`` converted by the CLI (a gold span inside a token is kept
    beside the Doc), and ``root/model``, a blank English pipeline whose entity ruler finds
    ``patterns``: gold and model for ``evaluate GOLD --model MODEL``."""
    import spacy
    from typer.testing import CliRunner

    from spacy_span_eval.cli import app

    (root / "gold.jsonl").write_text(json.dumps(record) + "\n")
    result = CliRunner().invoke(app, ["convert", str(root / "gold.jsonl"), str(root / "g.spacy")])
    assert result.exit_code == 0, result.output
    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler").add_patterns(patterns)
    nlp.to_disk(root / "model")
    return root / "g.spacy", root / "model"


# -- token/tag files, read and written independently of the package -------------------------
def token_tag_sentences(path: Path) -> list[tuple[list[str], list[str]]]:
    """``(tokens, tags)`` per sentence of a two-column file (tab- or space-separated)."""
    sentences, tokens, tags = [], [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            if tokens:
                sentences.append((tokens, tags))
            tokens, tags = [], []
            continue
        token, tag = line.rsplit(None, 1) if "\t" not in line else line.split("\t")
        tokens.append(token)
        tags.append(tag)
    if tokens:
        sentences.append((tokens, tags))
    return sentences


def to_iob2(spans: Sequence, length: int) -> list[str]:
    """IOB2 tags of non-overlapping ``(start, end, label)`` token spans."""
    tags = ["O"] * length
    for s in spans:
        tags[s.start] = f"B-{s.label}"
        for i in range(s.start + 1, s.end):
            tags[i] = f"I-{s.label}"
    return tags


# The demo corpus's labels folded into one coarser hierarchy level.
DEMO_BRANCH = {
    "branch": {
        "PERSON": "WHO",
        "EMAIL": "CONTACT",
        "PHONE": "CONTACT",
        "LOCATION": "WHERE",
        "DATE": "WHEN",
        "ORG": "WHO",
    }
}


def two_column(sentences: Sequence[tuple[Sequence[str], Sequence[str]]]) -> str:
    """The text of a two-column (token TAB tag) file, a blank line between sentences."""
    return (
        "\n\n".join(
            "\n".join(f"{t}\t{x}" for t, x in zip(tokens, tags, strict=True))
            for tokens, tags in sentences
        )
        + "\n"
    )


def perturbed_sentences(
    sentences, labels: Sequence[str], rng, *, rate: float
) -> list[tuple[list[str], list[str]]]:
    """Each IOB2 sentence's tokens with the tags of a seeded perturbation of its gold spans."""
    from spacy_span_eval.readers.schemes import decode

    from synthetic import perturb

    out = []
    for tokens, tags in sentences:
        spans = perturb(
            list(decode(tags, scheme="IOB2").spans), len(tokens), labels, rng, rate=rate
        )
        out.append((list(tokens), to_iob2(spans, len(tokens))))
    return out


class Inline(Executor):
    """Runs each part at once, in this process, its arguments and answer through pickle."""

    def __init__(self) -> None:
        self.calls = 0

    def submit(self, fn, /, *args, **kwargs):
        self.calls += 1
        future: Future = Future()
        args, kwargs = pickle.loads(pickle.dumps((args, kwargs)))
        future.set_result(pickle.loads(pickle.dumps(fn(*args, **kwargs))))
        return future
