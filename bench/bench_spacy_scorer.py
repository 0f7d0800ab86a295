"""Cost of the spaCy entity scorer against spaCy's own scorers, both modes, in one run.

All score the same ``Example`` objects: by default 5,000 synthetic 25-token sentences
(``--docs``, ``--tokens``; ~0.1 entity a token), or a CoNLL file (``--data``, e.g. BTC
test). Timed in turn, each repetition, and the medians compared:

* spaCy's ``Scorer.score_spans(examples, "ents")`` (exact per-type P/R/F) and
  ``get_ner_prf`` (the ner component's scorer, which ``add`` mode runs for spaCy's keys);
* ``spacy_span_eval.ents_scorer.v1`` in ``replace`` mode (two_sided and exact, per-label
  ledgers, one threshold) and in ``add`` mode (two_sided plus spaCy's ``get_ner_prf``).

Two regimes:

* ``warm``: examples whose token alignment spaCy has already cached, as inside
  ``nlp.evaluate`` (the tokenizer's scorer aligns every example first). spaCy's best case.
* ``fresh``: new ``Example`` objects every repetition, as a bare call on new examples sees
  them (spaCy's scorers compute the alignment inside the call; this package's need none).

Predictions come from a trained pipeline (``--model``) or, by default, from a seeded
perturbation of the gold entities (dropped, widened, narrowed, relabelled, spurious).

    python bench/bench_spacy_scorer.py [--docs 5000 --tokens 25 | --data FILE.conll]
        [--model DIR] [--repeats 9]
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import spacy
from spacy.scorer import Scorer, get_ner_prf
from spacy.tokens import Doc
from spacy.training import Example

from spacy_span_eval.adapters.scorers import make_ents_scorer

LABELS = ["PER", "LOC", "ORG", "MISC", "DATE", "EMAIL"]
WORDS = [f"w{i}" for i in range(3000)]
# goals: ours / spaCy's Scorer.score_spans, medians of the same run (warm regime)
GOALS = {"replace / score_spans": 0.5, "add / score_spans": 1.3}


def read_conll(path: Path) -> list[tuple[list[str], list[str]]]:
    """Sentences of a two-column (token, IOB2 tag) file; a sentence with a whitespace token
    (which spaCy's ``Doc`` cannot hold) or a malformed line is left out."""
    out = []
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        rows = [line.split("\t") for line in block.split("\n") if line]
        if rows and all(len(r) == 2 and r[0] and not any(c.isspace() for c in r[0]) for r in rows):
            out.append(([r[0] for r in rows], [r[1] for r in rows]))
    return out


def synthetic(n: int, tokens: int, rng: random.Random) -> list[tuple[list[str], list[str]]]:
    """``n`` sentences of ``tokens`` words; an entity of 1-3 tokens starts at ~1 token in 9."""
    out = []
    for _ in range(n):
        tags, i = ["O"] * tokens, 0
        while i < tokens:
            if rng.random() < 0.11:
                label, width = rng.choice(LABELS), rng.randint(1, 3)
                for k in range(i, min(i + width, tokens)):
                    tags[k] = ("B-" if k == i else "I-") + label
                i += width + 1
            else:
                i += 1
        out.append(([rng.choice(WORDS) for _ in range(tokens)], tags))
    return out


def perturbed(gold: Doc, rng: random.Random) -> Doc:
    """A prediction that is mostly right, partly off by a token, sometimes wrong."""
    pred = Doc(gold.vocab, words=[t.text for t in gold], spaces=[bool(t.whitespace_) for t in gold])
    taken = [False] * len(pred)
    ents = []

    def place(start: int, end: int, label: str) -> None:
        if 0 <= start < end <= len(pred) and not any(taken[start:end]):
            taken[start:end] = [True] * (end - start)
            ents.append(spacy.tokens.Span(pred, start, end, label=label))

    for ent in gold.ents:
        r = rng.random()
        start, end, label = ent.start, ent.end, ent.label_
        if r < 0.10:
            continue
        if r < 0.20:
            end += 1
        elif r < 0.27 and end - start > 1:
            end -= 1
        elif r < 0.32:
            label = rng.choice(LABELS)
        place(start, end, label)
    if len(pred) > 3 and rng.random() < 0.10:
        i = rng.randrange(len(pred) - 1)
        place(i, i + 1, rng.choice(LABELS))
    pred.ents = sorted(ents, key=lambda s: s.start)
    return pred


def build_examples(args: argparse.Namespace) -> list[Example]:
    rng = random.Random(args.seed)
    sentences = read_conll(args.data) if args.data else synthetic(args.docs, args.tokens, rng)
    nlp = spacy.load(args.model) if args.model else spacy.blank("en")
    golds = [Doc(nlp.vocab, words=w, ents=t) for w, t in sentences]
    if args.model:
        words = [Doc(nlp.vocab, words=[t.text for t in g]) for g in golds]
        preds = list(nlp.pipe(words))
    else:
        preds = [perturbed(g, rng) for g in golds]
    return [Example(p, g) for p, g in zip(preds, golds, strict=True)]


def timed(fn: Callable[[list[Example]], object], examples: list[Example]) -> float:
    gc.collect()  # (no tool pays for the garbage of the one before)
    start = time.perf_counter()
    fn(examples)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=None, help="a CoNLL file instead")
    parser.add_argument("--docs", type=int, default=5000)
    parser.add_argument("--tokens", type=int, default=25)
    parser.add_argument("--model", default=None, help="trained pipeline for real predictions")
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args(argv)

    examples = build_examples(args)
    tools: dict[str, Callable[[list[Example]], object]] = {
        "score_spans": lambda egs: Scorer.score_spans(egs, "ents"),
        "get_ner_prf": get_ner_prf,
        "replace": make_ents_scorer(thresholds=[0.5], mode="replace"),
        "add": make_ents_scorer(thresholds=[0.5], mode="add"),
    }
    ours = tools["replace"](examples)
    theirs = tools["score_spans"](examples)
    assert abs(ours["ents_exact_f"] - theirs["ents_f"]) < 1e-12, (ours, theirs["ents_f"])

    times = {regime: {name: [] for name in tools} for regime in ("warm", "fresh")}
    for _ in range(args.repeats):
        for name, fn in tools.items():
            times["warm"][name].append(timed(fn, examples))
        for name, fn in tools.items():
            fresh = [Example(eg.predicted, eg.reference) for eg in examples]
            times["fresh"][name].append(timed(fn, fresh))

    report: dict = {
        "data": str(args.data) if args.data else f"{args.docs} x {args.tokens} tokens",
        "predictions": args.model or f"perturbed gold (seed {args.seed})",
        "examples": len(examples),
        "tokens": sum(len(eg.reference) for eg in examples),
        "gold_entities": sum(len(eg.reference.ents) for eg in examples),
        "ents_f_exact": ours["ents_exact_f"],
        "ents_f_two_sided": ours["ents_f"],
        "repeats": args.repeats,
    }
    for regime, by_tool in times.items():
        ms = {name: statistics.median(t) * 1e3 for name, t in by_tool.items()}
        report[regime] = {f"{name}_ms": round(v, 2) for name, v in ms.items()}
        for mode in ("replace", "add"):
            for peer in ("score_spans", "get_ner_prf"):
                report[regime][f"{mode} / {peer}"] = round(ms[mode] / ms[peer], 3)
    report["goals (warm)"] = {
        key: f"{report['warm'][key]} (goal <= {goal})" for key, goal in GOALS.items()
    }
    json.dump(report, sys.stdout, indent=2)
    print()
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report


if __name__ == "__main__":
    main()
