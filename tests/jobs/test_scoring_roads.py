"""One scoring choice (jobs/scoring.py): which road each pair and run takes, and that the
options which once forced the generic road (``--labels``, ``--align position``) stay on the
columnar one with the generic road's numbers."""

from __future__ import annotations

import json
import os
import random
import re

import pytest

import spacy_span_eval.readers.source as source_module
from spacy_span_eval.api import evaluate_files
from spacy_span_eval.engine.labels import Hierarchy
from spacy_span_eval.errors import InvalidInputError
from spacy_span_eval.jobs.options import RunOptions
from spacy_span_eval.jobs.scoring import InParts, InPool, InThisProcess, OnCluster, road_for
from spacy_span_eval.readers.columnar import ColumnPair
from spacy_span_eval.readers.options import ReadingOptions
from spacy_span_eval.readers.schemes import decode
from spacy_span_eval.readers.source import open_pair

LABELS = ("PER", "LOC", "ORG")


def conll_pair(tmp_path, n=300, seed=5, lowered=0.1):
    """A CoNLL pair whose tags are perturbed (asymmetric, several labels) and whose predicted
    tokens differ now and then (``lowered``: the share lower-cased)."""
    rng = random.Random(seed)
    gold, pred = [], []
    for _ in range(n):
        for i in range(rng.randint(2, 9)):
            token = f"Tok{rng.randint(0, 50)}"
            inside = "B" if i == 0 or rng.random() < 0.6 else "I"
            tag = "O" if rng.random() < 0.5 else f"{inside}-{rng.choice(LABELS)}"
            other = tag if rng.random() < 0.8 else rng.choice(["O", "B-PER", "B-LOC", "I-ORG"])
            gold.append(f"{token} {tag}")
            pred.append(f"{token.lower() if rng.random() < lowered else token} {other}")
        gold.append("")
        pred.append("")
    g, p = tmp_path / "gold.conll", tmp_path / "pred.conll"
    g.write_text("\n".join(gold) + "\n")
    p.write_text("\n".join(pred) + "\n")
    return g, p


def sliced_pair(tmp_path, fmt, n=2000, seed=7):
    """A pair whose gold documents carry slice fields: CoNLL ``-DOCSTART-`` documents and
    ``# part = K`` comments (the predictions have the documents too), or JSONL ``meta.part``
    and ``doc`` fields."""
    g, p = conll_pair(tmp_path, n=n, seed=seed, lowered=0)
    rng = random.Random(seed)
    sides = [path.read_text().rstrip("\n").split("\n\n") for path in (g, p)]
    parts = [str(rng.randrange(4)) if rng.random() < 0.1 else None for _ in sides[0]]
    starts = [i % 150 == 0 and i > 0 for i in range(len(sides[0]))]
    if fmt == "conll":
        for side, path in zip(sides, (g, p), strict=True):
            out = []
            for i, sentence in enumerate(side):
                doc = "-DOCSTART- O\n\n" if starts[i] else ""
                part = f"# part = {parts[i]}\n" if parts[i] and path == g else ""
                out.append(doc + part + sentence)
            path.write_text("\n\n".join(out) + "\n")
        return g, p
    out = {}
    for side, name in zip(sides, ("gold", "pred"), strict=True):
        records = []
        for i, sentence in enumerate(side):
            tokens, tags = zip(*(line.split() for line in sentence.split("\n")), strict=True)
            spans = [
                {
                    "start": len(" ".join(tokens[: s.start])) + (s.start > 0),
                    "end": len(" ".join(tokens[: s.end])),
                    "label": s.label,
                }
                for s in decode(list(tags), scheme="IOB2").spans
            ]
            record = {"text": " ".join(tokens), "spans": spans, "doc": sum(starts[: i + 1])}
            records.append({**record, "meta": {"part": parts[i]}} if name == "gold" else record)
        out[name] = tmp_path / f"{name}.jsonl"
        out[name].write_text("".join(json.dumps(r) + "\n" for r in records))
    return out["gold"], out["pred"]


KIND = Hierarchy({"kind": {"PER": "PERSON", "LOC": "PLACE", "ORG": "PLACE"}})
ROADS = [
    (True, 1, InThisProcess),
    (True, 2, InParts),
    (False, 1, InThisProcess),
    (False, 2, InPool),
]  # noqa: E501
SLICE_BY = {"conll": ("document", "part", "span-length:1,2,4"), "jsonl": ("doc", "meta.part")}


def roads_taken(monkeypatch, columnar):
    """Small parts (so two processes split the files), the generic reader unless
    ``columnar``, and the list each road taken is appended to."""
    import spacy_span_eval.jobs.parallel_reading as parallel_reading

    monkeypatch.setattr(parallel_reading, "MIN_PART_BYTES", 1024)
    if not columnar:
        monkeypatch.setattr(source_module, "column_pair", lambda *a, **k: None)
    chosen = []
    monkeypatch.setattr(
        "spacy_span_eval.jobs.scoring.road_for",
        lambda source, run: chosen.append(road_for(source, run)) or chosen[-1],
    )
    return chosen


@pytest.mark.parametrize("fmt", ["conll", "jsonl"])
@pytest.mark.parametrize("columnar,n_process,road", ROADS)
def test_slices_are_the_same_on_every_road(tmp_path, monkeypatch, fmt, columnar, n_process, road):
    g, p = sliced_pair(tmp_path, fmt)
    asked = {"slice_by": SLICE_BY[fmt], "thresholds": (0.5, 1.0), "hierarchy": KIND}
    want = evaluate_files(g, p, **asked)
    assert len(want.slices[SLICE_BY[fmt][0]][0]["slices"]) == 14  # (the documents)
    assert {r["level"] for r in want.slices[SLICE_BY[fmt][-1]]} == {"labels", "kind"}
    chosen = roads_taken(monkeypatch, columnar)
    got = evaluate_files(g, p, **asked, n_process=n_process)
    assert [type(r) for r in chosen] == [road]
    assert json.dumps(got.to_dict(), sort_keys=True) == json.dumps(want.to_dict(), sort_keys=True)


@pytest.mark.parametrize("columnar,n_process,road", ROADS)
def test_docstart_lines_are_tokens_paired_in_file_order_on_every_road(
    tmp_path, monkeypatch, columnar, n_process, road
):
    """conlleval.pl counts each ``-DOCSTART-`` line as a token, a correct tag where its tags
    are equal: the k-th lines of the two sides pair. Gold's stand alone, the predictions'
    start their sentence (so cuts into parts fall between them differently), tagged ``O``
    and ``I-ORG`` by turns, with one more at the end: 43 pairs, 22 equal, one unpaired."""
    g, p = conll_pair(tmp_path, lowered=0)
    sides = [path.read_text().rstrip("\n").split("\n\n") for path in (g, p)]
    texts = (path.read_text().splitlines() for path in (g, p))
    tags = [(a.split()[1], b.split()[1]) for a, b in zip(*texts, strict=True) if a]
    tokens, correct = len(tags), sum(a == b for a, b in tags)
    starts = [i % 7 == 0 for i in range(len(sides[0]))]
    gold = ("-DOCSTART- O\n\n" * d + s for d, s in zip(starts, sides[0], strict=True))
    g.write_text("\n\n".join(gold) + "\n")
    tag = [["O", "I-ORG"][sum(starts[:i]) % 2] for i in range(len(starts))]  # (by turns)
    pred = (f"-DOCSTART- -X- {t}\n" * d + s for d, t, s in zip(starts, tag, sides[1], strict=True))
    p.write_text("\n\n".join(pred) + "\n\n-DOCSTART- -X- O\n")
    chosen = roads_taken(monkeypatch, columnar)
    inputs = evaluate_files(g, p, n_process=n_process).inputs
    assert [type(r) for r in chosen] == [road]
    assert sum(starts) == 43
    assert inputs["gold"]["tokens"] == tokens + 43
    assert (inputs["predicted"]["tokens"], inputs["predicted"]["correct_tags"]) == (
        tokens + 44,
        correct + 22,
    )


def test_a_gold_file_sliced_by_a_field_is_sniffed_once(tmp_path, monkeypatch):
    import spacy_span_eval.readers.detect as detect

    g, p = sliced_pair(tmp_path, "jsonl")
    sniffed, sniff = [], detect.sniff
    monkeypatch.setattr(detect, "sniff", lambda path: sniffed.append(path) or sniff(path))
    report = evaluate_files(g, p, slice_by=("meta.part",))
    assert sniffed == [g, p] and len(report.slices["meta.part"][0]["slices"]) == 5


def test_the_road_follows_the_run_and_what_the_source_allows(tmp_path):
    g, p = conll_pair(tmp_path)
    columns = open_pair(g, g)
    assert road_for(columns, RunOptions()) == InThisProcess()
    assert road_for(columns, RunOptions(n_process=2)) == InParts(2)
    assert road_for(columns, RunOptions(dask_scheduler="tcp://h:1")) == OnCluster("tcp://h:1")
    with pytest.raises(ValueError, match="not both"):
        road_for(columns, RunOptions(n_process=2, dask_scheduler="tcp://h:1"))
    documents = open_pair(g, g, reading=ReadingOptions(input_format="conll", unit="token"))
    generic = source_module.PairSource("token", documents.info, iter(()))
    assert road_for(generic, RunOptions(n_process=2)) == InPool(2)
    pipeline = source_module.PairSource("char", documents.info, iter(()), pipeline=True)
    assert road_for(pipeline, RunOptions(n_process=2)) == InThisProcess()  # (nlp.pipe's)


@pytest.fixture
def columnar_reads(monkeypatch):
    seen = []
    real = ColumnPair.read
    monkeypatch.setattr(
        ColumnPair, "read", lambda self, *a, **k: seen.append(self) or real(self, *a, **k)
    )
    return seen


def generic(monkeypatch, **options):
    with monkeypatch.context() as m:
        m.setattr(source_module, "column_pair", lambda *a, **k: None)
        return evaluate_files(**options)


@pytest.mark.parametrize(
    "options",
    [
        {"labels": ("PER", "ORG")},
        {"align": "position"},
        {"align": "position", "labels": ("LOC",), "unit": "char", "strategy": "exact"},
    ],
)
def test_labels_and_position_alignment_stay_on_the_columnar_road(
    tmp_path, monkeypatch, columnar_reads, options
):
    g, p = conll_pair(tmp_path, lowered=0.1 if "align" in options else 0)
    fast = evaluate_files(g, p, errors=20, **options)
    assert columnar_reads, "the columnar road was not taken"
    slow = generic(monkeypatch, gold=g, pred=p, errors=20, **options)
    assert json.dumps(fast.to_dict(), sort_keys=True) == json.dumps(slow.to_dict(), sort_keys=True)
    assert fast.inputs["predicted"].get("alignment") is not None or "align" not in options
    labels = options.get("labels")
    if labels:
        assert set(fast.result.scores().per_label) <= set(labels)


def test_two_processes_read_in_parts_with_labels_and_position_alignment(tmp_path, monkeypatch):
    import spacy_span_eval.jobs.parallel_reading as parallel_reading

    monkeypatch.setattr(parallel_reading, "MIN_PART_BYTES", 1024)
    real, parts = parallel_reading.score_pair_in_processes, []
    monkeypatch.setattr(
        parallel_reading,
        "score_pair_in_processes",
        lambda *a, **k: parts.append(real(*a, **k)) or parts[-1],
    )
    g, p = conll_pair(tmp_path, n=2000)
    options = {"labels": ("PER", "LOC"), "align": "position", "errors": 15}
    one = evaluate_files(g, p, **options).to_dict()
    two = evaluate_files(g, p, n_process=2, **options).to_dict()
    assert parts and parts[0] is not None  # read in parts by the workers
    assert json.dumps(one, sort_keys=True) == json.dumps(two, sort_keys=True)


@pytest.mark.parametrize(
    "columnar,n_process,road",
    [(True, 1, InThisProcess), (True, 2, InParts), (False, 1, InThisProcess), (False, 2, InPool)],
)
@pytest.mark.parametrize("changed", ["gold", "pred"])
def test_an_input_changed_while_it_is_read_is_refused(
    tmp_path, monkeypatch, columnar, n_process, road, changed
):
    """On every road: each file is stamped (size, modification time) when the pair is
    opened, and checked once it is read."""
    import spacy_span_eval.jobs.parallel_reading as parallel_reading

    monkeypatch.setattr(parallel_reading, "MIN_PART_BYTES", 1024)
    if not columnar:
        monkeypatch.setattr(source_module, "column_pair", lambda *a, **k: None)
    g, p = conll_pair(tmp_path, n=2000, lowered=0)
    victim, chosen = g if changed == "gold" else p, []

    def changing_road(source, run):
        found = road_for(source, run)
        chosen.append(type(found))
        stat = victim.stat()
        os.utime(victim, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
        return found

    monkeypatch.setattr("spacy_span_eval.jobs.scoring.road_for", changing_road)
    message = f"{victim} changed while it was read; run again when it is stable"
    with pytest.raises(InvalidInputError, match=re.escape(message)):
        evaluate_files(g, p, n_process=n_process)
    assert chosen == [road]
