"""Cost of the spaCy entity scorer against spaCy's own ``get_ner_prf``, in one run.

Both score the same ``Example`` objects (BTC test set by default). ``get_ner_prf`` computes
exact per-type P/R/F; ``spacy_span_eval.ents_scorer.v1`` computes exact *and* two-sided figures
with per-label ledgers. Two regimes are timed, interleaved, and the medians compared:

* ``warm``: examples whose token alignment spaCy has already cached, as inside
  ``nlp.evaluate`` (the tokenizer's scorer aligns every example first). spaCy's best case.
* ``fresh``: new ``Example`` objects every repetition, as a bare ``get_ner_prf`` call on new
  examples sees them (the alignment is computed inside the call).

Predictions come from a trained pipeline (``--model``) or, by default, from a seeded
perturbation of the gold entities (dropped, widened, narrowed, relabelled, spurious).
``--mode add`` (default) includes spaCy's own ``get_ner_prf``, which writes spaCy's keys in
that mode; ``--mode replace`` runs the engine's exact and two-sided passes only.

    python bench/bench_spacy_scorer.py [--data ../shared/data/btc/btc.test] [--model DIR]
        [--mode add|replace]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import spacy
from spacy.scorer import get_ner_prf
from spacy.tokens import Doc
from spacy.training import Example

from spacy_span_eval.adapters.scorers import make_ents_scorer

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "btc" / "btc.test"


def read_conll(path: Path) -> tuple[list[tuple[list[str], list[str]]], int]:
    """Sentences of a two-column (token, IOB2 tag) file, and how many were skipped as
    malformed (a few BTC tokens are whitespace, which spaCy's ``Doc`` cannot hold)."""
    out, skipped = [], 0
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        rows = [line.split("\t") for line in block.split("\n") if line]
        if not rows:
            continue
        if all(len(r) == 2 and r[0] and not any(c.isspace() for c in r[0]) for r in rows):
            out.append(([r[0] for r in rows], [r[1] for r in rows]))
        else:
            skipped += 1
    return out, skipped


def perturbed(gold: Doc, rng: random.Random, labels: list[str]) -> Doc:
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
            label = rng.choice(labels)
        place(start, end, label)
    if len(pred) > 3 and rng.random() < 0.10:
        i = rng.randrange(len(pred) - 1)
        place(i, i + 1, rng.choice(labels))
    pred.ents = sorted(ents, key=lambda s: s.start)
    return pred


def build_examples(data: Path, model: str | None, seed: int) -> tuple[list[Example], int]:
    sentences, skipped = read_conll(data)
    nlp = spacy.load(model) if model else spacy.blank("en")
    golds = [Doc(nlp.vocab, words=w, ents=t) for w, t in sentences]
    if model:
        preds = list(
            nlp.pipe(
                Doc(nlp.vocab, words=[t.text for t in g], spaces=[bool(t.whitespace_) for t in g])
                for g in golds
            )
        )
    else:
        rng = random.Random(seed)
        labels = sorted({e.label_ for g in golds for e in g.ents})
        preds = [perturbed(g, rng, labels) for g in golds]
    return [Example(p, g) for p, g in zip(preds, golds, strict=True)], skipped


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--model", default=None, help="trained pipeline for real predictions")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    parser.add_argument("--mode", choices=["add", "replace"], default="add")
    args = parser.parse_args(argv)

    examples, skipped = build_examples(args.data, args.model, args.seed)
    scorer = make_ents_scorer(thresholds=[0.5], mode=args.mode)
    ours = scorer(examples)
    theirs = get_ner_prf(examples)
    exact, iou = ("ents_f", "ents_iou_f") if args.mode == "add" else ("ents_exact_f", "ents_f")
    assert abs(ours[exact] - theirs["ents_f"]) < 1e-12, (ours[exact], theirs["ents_f"])

    times: dict[str, dict[str, list[float]]] = {
        "warm": {"spacy": [], "ours": []},
        "fresh": {"spacy": [], "ours": []},
    }
    for _ in range(args.repeats):
        times["warm"]["spacy"].append(timed(lambda: get_ner_prf(examples)))
        times["warm"]["ours"].append(timed(lambda: scorer(examples)))
        fresh = [Example(eg.predicted, eg.reference) for eg in examples]
        times["fresh"]["spacy"].append(timed(lambda: get_ner_prf(fresh)))  # noqa: B023
        fresh = [Example(eg.predicted, eg.reference) for eg in examples]
        times["fresh"]["ours"].append(timed(lambda: scorer(fresh)))  # noqa: B023

    report: dict = {
        "data": str(args.data),
        "predictions": args.model or f"perturbed gold (seed {args.seed})",
        "examples": len(examples),
        "skipped_malformed_sentences": skipped,
        "tokens": sum(len(eg.reference) for eg in examples),
        "gold_entities": sum(len(eg.reference.ents) for eg in examples),
        "mode": args.mode,
        "ents_f_exact": ours[exact],
        "ents_iou_f": ours[iou],
        "repeats": args.repeats,
    }
    for regime, pair in times.items():
        spacy_ms = statistics.median(pair["spacy"]) * 1e3
        ours_ms = statistics.median(pair["ours"]) * 1e3
        report[regime] = {
            "get_ner_prf_ms": round(spacy_ms, 2),
            "ents_scorer_ms": round(ours_ms, 2),
            "ratio": round(ours_ms / spacy_ms, 3),
        }
    json.dump(report, sys.stdout, indent=2)
    print()
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report


if __name__ == "__main__":
    main()
