"""``--align chars`` on long texts: two texts of ``--chars`` characters (default 2,000,000),
the predicted one with ``--edits`` of its characters (default 5%) substituted, deleted or put
in at random places, aligned; and two unrelated texts of that length, refused. Medians of
``--repeat`` runs of wall and CPU seconds, in this process (the goals: at most 10 s for the
aligned pair, 2 s for the refusal).

The texts are words of a random vocabulary, with typographic quotes and dashes on the gold
side and ASCII ones on the predicted side (folded alike, so they are no edit).

    python bench/bench_char_align.py [--chars 2000000] [--edits 0.05] [--repeat 3]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from spacy_span_eval.errors import DocumentMismatchError
from spacy_span_eval.readers.char_align import align_texts


def words(rng: random.Random, n: int) -> str:
    vocab = [
        "".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(2, 9)))
        for _ in range(20_000)
    ]
    vocab += ["“quoted”", "it’s", "—"]
    out, size = [], 0
    while size < n:
        w = rng.choice(vocab)
        out.append(w)
        size += len(w) + 1
    return " ".join(out)[:n]


def edited(rng: random.Random, text: str, rate: float) -> str:
    ascii_ = text.replace("“", '"').replace("”", '"').replace("’", "'").replace("—", "--")
    out = []
    for c in ascii_:
        r = rng.random()
        if r >= rate:
            out.append(c)
        elif r < rate / 3:
            out.append("#")
        elif r < 2 * rate / 3:
            out.append(c + "%")
    return "".join(out)


def timed(fn) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chars", type=int, default=2_000_000)
    parser.add_argument("--edits", type=float, default=0.05)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(0)
    gold = words(rng, args.chars)
    pred = edited(rng, gold, args.edits)
    other = words(random.Random(1), args.chars)

    def refuse() -> None:
        try:
            align_texts(gold, other, doc="unrelated")
        except DocumentMismatchError:
            return
        raise AssertionError("unrelated texts paired")

    kept = align_texts(gold, pred, doc="edited")
    print(f"{len(gold):,} vs {len(pred):,} characters, {kept.lost:,} lost")
    for name, fn in (
        ("aligned", lambda: align_texts(gold, pred, doc="edited")),
        ("refused", refuse),
    ):
        runs = [timed(fn) for _ in range(args.repeat)]
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        print(f"{name}: median wall {wall:.2f} s, cpu {cpu:.2f} s ({args.repeat} runs)")


if __name__ == "__main__":
    main()
