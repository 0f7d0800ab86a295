"""``spacy span-eval evaluate`` against ``spacy evaluate``: CPU and wall time, same pipeline
and data, fresh processes started in turn (A B A B ...), medians and their ratio in one run.

``spacy span-eval evaluate`` prints spaCy's table (spaCy's scores) and this package's tables
from one pipeline load and one pipeline pass, so its cost over ``spacy evaluate`` is its own
reading and scoring, which should be small next to the pipeline.

The data is a gold CoNLL file (BTC dev by default) converted to ``.spacy``; the pipeline is
``--model`` or, by default, a CNN NER (configs/ner.cfg) trained for ``--steps`` updates on
``--train-docs`` documents of the BTC train split: enough to predict entities, so both tools
score real predictions (the pipeline's cost per word is that of any model of this shape).

    python bench/bench_spacy_plugin.py [--model DIR] [--data FILE.conll|FILE.spacy]
        [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BTC = REPO.parent / "shared" / "data" / "btc"


def run(cmd: list[str], env: dict) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one fresh process; its output is discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def to_spacy(py: str, conll: Path, out: Path, env: dict, limit: int = 0) -> Path:
    cmd = [py, "-m", "spacy_span_eval", "convert", str(conll), str(out)]
    if limit:
        cmd += ["--limit", str(limit)]
    subprocess.run(cmd, cwd=REPO, env=env, check=True, stdout=subprocess.DEVNULL)
    return out


def train(py: str, folder: Path, dev: Path, env: dict, *, docs: int, steps: int) -> Path:
    """A small CNN NER, trained briefly on the BTC train split."""
    train_spacy = to_spacy(py, BTC / "btc.train", folder / "train.spacy", env, limit=docs)
    subprocess.run(
        [
            py,
            "-m",
            "spacy",
            "train",
            str(REPO / "configs" / "ner.cfg"),
            "--output",
            str(folder / "trained"),
            "--paths.train",
            str(train_spacy),
            "--paths.dev",
            str(dev),
            "--training.max_steps",
            str(steps),
            "--training.eval_frequency",
            str(steps),
        ],
        cwd=REPO,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return folder / "trained" / "model-last"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, help="a trained pipeline (default: train one)")
    ap.add_argument("--data", type=Path, default=BTC / "btc.dev", help=".conll or .spacy")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--train-docs", type=int, default=4000)
    ap.add_argument("--python", default=sys.executable)
    args = ap.parse_args()
    py = args.python
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with tempfile.TemporaryDirectory(prefix="bench_spacy_plugin_") as tmp:
        folder = Path(tmp)
        data = args.data
        if data.suffix != ".spacy":
            data = to_spacy(py, data, folder / "data.spacy", env)
        model = args.model
        if model is None:
            print(f"training a CNN NER for {args.steps} steps on {args.train_docs} documents")
            model = train(py, folder, data, env, docs=args.train_docs, steps=args.steps)
        tools = {
            "spacy evaluate": [py, "-m", "spacy", "evaluate", str(model), str(data)],
            "spacy span-eval evaluate": [
                py,
                "-m",
                "spacy",
                "span-eval",
                "evaluate",
                str(model),
                str(data),
            ],
        }
        for cmd in tools.values():  # (warm the caches; fail before timing if a tool fails)
            run(cmd, env)
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in tools}
        for _ in range(args.repeat):
            for name, cmd in tools.items():
                times[name].append(run(cmd, env))
        print(f"data: {args.data.name} ({data.stat().st_size / 1e6:.1f} MB as .spacy)")
    print(f"\n{'process':28} {'runs':>4} {'wall s':>8} {'cpu s':>8}")
    med = {}
    for name, t in times.items():
        med[name] = (statistics.median(w for w, _ in t), statistics.median(c for _, c in t))
        print(f"{name:28} {len(t):4d} {med[name][0]:8.2f} {med[name][1]:8.2f}")
    (ours_w, ours_c), (theirs_w, theirs_c) = med["spacy span-eval evaluate"], med["spacy evaluate"]
    print(
        f"\nspacy span-eval evaluate / spacy evaluate: cpu {ours_c / theirs_c:.2f}x, "
        f"wall {ours_w / theirs_w:.2f}x (goal: cpu <= 1.15x)"
    )


if __name__ == "__main__":
    main()
