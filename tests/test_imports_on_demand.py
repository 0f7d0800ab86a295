"""Imports on demand: scoring files never loads spaCy or Jinja2; the commands that need them
load them when they run. Checked in a fresh interpreter, where ``sys.modules`` is honest."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

GOLD = "John B-PER\nSmith I-PER\nsaid O\n\nParis B-LOC\nis O\n"
PRED = "John B-PER\nSmith O\nsaid O\n\nParis B-LOC\nis O\n"
HEAVY = ("spacy", "thinc", "jinja2")
# Not heavy, but not needed to score two CoNLL files either: each costs start-up time
# (the JSON decoder, numpy.ma (which np.unique imports on its first call), the process
# pools, the other readers).
UNNEEDED = (
    "msgspec",
    "numpy.ma",
    "concurrent.futures",
    "statistics",
    "spacy_span_eval.engine.bootstrap",
    "spacy_span_eval.readers.jsonl",
    "spacy_span_eval.readers.brat",
    "spacy_span_eval.jobs.pools",
    "spacy_span_eval.jobs.compare",
)

# Runs the CLI in-process and prints, after each step, which heavy modules are loaded.
PROBE = textwrap.dedent("""
    import json, sys
    HEAVY = {heavy!r}
    seen = {{}}
    def loaded(step):
        seen[step] = [m for m in HEAVY if m in sys.modules]
    import spacy_span_eval.cli as cli
    loaded("import")
    HEAVY = HEAVY + {unneeded!r}
    def run(*args):
        try:
            cli.app(list(args), prog_name="spacy-span-eval")
        except SystemExit as exc:
            assert exc.code in (0, None), (args, exc.code)
    run("evaluate", {gold!r}, {pred!r}, "--silent")
    run("evaluate", {gold!r}, {pred!r}, "--strategy", "exact", "--format", "json",
        "--output", {out!r}, "--silent")
    loaded("evaluate")
    HEAVY = HEAVY[:3]
    run("report", {gold!r}, {pred!r}, "--output", {page!r}, "--resamples", "10", "--silent")
    loaded("report")
    print(json.dumps(seen))
""")


def test_scoring_conll_files_imports_neither_spacy_nor_jinja(tmp_path):
    gold, pred = tmp_path / "gold.conll", tmp_path / "pred.conll"
    gold.write_text(GOLD)
    pred.write_text(PRED)
    code = PROBE.format(
        heavy=HEAVY,
        unneeded=UNNEEDED,
        gold=str(gold),
        pred=str(pred),
        out=str(tmp_path / "scores.json"),
        page=str(tmp_path / "page.html"),
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["import"] == [], "importing the CLI loads " + ", ".join(seen["import"])
    assert seen["evaluate"] == [], "scoring two CoNLL files loads " + ", ".join(seen["evaluate"])
    # The probe sees a heavy import when there is one: the HTML page does need Jinja2.
    assert "jinja2" in seen["report"]
    assert (tmp_path / "scores.json").exists() and (tmp_path / "page.html").exists()
