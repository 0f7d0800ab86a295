"""``spacy span-eval evaluate|gate|report``: the pipeline is loaded once and run once per
command, spaCy's table and ours scoring the same predicted docs; ``-G/--gold-preproc`` and
``-P/--per-component`` do what ``spacy evaluate``'s do.

The pipeline is an entity ruler and a component that counts the docs it sees and the times
it is made (each load makes it once). Gold: two documents, the first of two sentences, so
spaCy's gold preprocessing makes three examples of them.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

spacy = pytest.importorskip("spacy")

from spacy.language import Language  # noqa: E402

SEEN = {"docs": 0, "made": 0}
GOLD = [
    (
        ["Alice", "joined", "Acme", "Corp", ".", "Paris", "is", "big", "."],
        [True, True, True, False, True, True, True, False, False],
        [True, False, False, False, False, True, False, False, False],
        [(0, 1, "PER"), (2, 4, "ORG"), (5, 6, "LOC")],
    ),
    (
        ["Bob", "went", "to", "Paris", "."],
        [True, True, True, False, False],
        [True, False, False, False, False],
        [(0, 1, "PER"), (3, 4, "LOC")],
    ),
]


class Counter:
    def __call__(self, doc):
        SEEN["docs"] += 1
        return doc


@Language.factory("span_eval_test_counter")
def make_counter(nlp, name):
    SEEN["made"] += 1
    return Counter()


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    from spacy.tokens import Doc, DocBin, Span

    folder = tmp_path_factory.mktemp("one_pass")
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("entity_ruler")
    ruler.add_patterns(
        [
            {"label": "PER", "pattern": "Alice"},
            {"label": "ORG", "pattern": [{"LOWER": "acme"}]},
            {"label": "LOC", "pattern": "Paris"},
        ]
    )
    # (after the ruler: loading the ruler's phrase patterns runs the components before it)
    nlp.add_pipe("span_eval_test_counter")
    nlp.to_disk(folder / "model")
    docbin = DocBin()
    for words, spaces, starts, ents in GOLD:
        doc = Doc(nlp.vocab, words=words, spaces=spaces, sent_starts=starts)
        doc.ents = [Span(doc, s, e, label=label) for s, e, label in ents]
        docbin.add(doc)
    docbin.to_disk(folder / "dev.spacy")
    (folder / "floors.json").write_text(json.dumps({"floors": {"LOC": {"recall": 0.9}}}))
    return folder


def run(*args: str):
    from spacy.cli import app

    import spacy_span_eval.cli.spacy_plugin  # noqa: F401 (adds span-eval to spaCy's app)

    SEEN.update(docs=0, made=0)
    result = CliRunner().invoke(app, ["span-eval", *map(str, args)])
    return result, dict(SEEN)


def spacy_scores(pipeline, **options):
    """What spaCy's own evaluate returns on the same model and data."""
    from spacy.cli.evaluate import evaluate

    return evaluate(str(pipeline / "model"), pipeline / "dev.spacy", silent=True, **options)


@pytest.mark.parametrize(
    ("flags", "examples"), [((), 2), (("-G",), 3), (("--gold-preproc",), 3)], ids=str
)
def test_evaluate_loads_once_and_runs_once_and_both_tables_agree(
    pipeline, tmp_path, flags, examples
):
    out = tmp_path / "metrics.json"
    result, seen = run("evaluate", pipeline / "model", pipeline / "dev.spacy", "-o", out, *flags)
    assert result.exit_code == 0, result.output
    assert seen == {"docs": examples, "made": 1}  # one load, one pass over the examples
    saved = json.loads(out.read_text())
    theirs = spacy_scores(pipeline, gold_preproc=bool(flags))
    assert {k: saved["spacy"][k] for k in ("ents_p", "ents_r", "ents_f")} == {
        k: theirs[k] for k in ("ents_p", "ents_r", "ents_f")
    }
    micro = saved["span_eval"]["result"]["levels"]["labels"][0]["micro"]
    # Ours counts what spaCy's scores: its exact matches are our TPs at IoU 0.5 here
    # (every predicted span is exact or disjoint).
    assert micro["precision"] == pytest.approx(theirs["ents_p"])
    assert micro["recall"] == pytest.approx(theirs["ents_r"])
    assert "NER P" in result.output and "spacy-span-eval: two_sided on Doc.ents" in result.output


def test_per_component_saves_spacy_s_scores_by_component(pipeline, tmp_path):
    out = tmp_path / "metrics.json"
    result, seen = run("evaluate", pipeline / "model", pipeline / "dev.spacy", "-o", out, "-P")
    assert result.exit_code == 0, result.output
    assert seen == {"docs": 2, "made": 1}
    saved = json.loads(out.read_text())
    theirs = spacy_scores(pipeline, per_component=True)
    for scores in (saved["spacy"], theirs):
        del scores["speed"]  # (words a second: the one figure of a run's own)
    assert saved["spacy"] == theirs
    assert "entity_ruler" in saved["spacy"] and "NER P" not in result.output
    assert "span_eval" in saved


def test_per_component_without_output_says_where_the_scores_are_not(pipeline):
    result, _ = run("evaluate", pipeline / "model", pipeline / "dev.spacy", "--per-component")
    assert result.exit_code == 0, result.output
    assert "kept only with --output" in result.output


@pytest.mark.parametrize("command", ["gate", "report"])
def test_gate_and_report_load_once_and_run_once(pipeline, tmp_path, command):
    args = ["--floors", pipeline / "floors.json"]
    if command == "report":
        args += ["-o", tmp_path / "page.html", "--resamples", "0"]
    result, seen = run(command, pipeline / "model", pipeline / "dev.spacy", *args)
    assert result.exit_code in (0, 1), result.output
    assert seen == {"docs": 2, "made": 1}
