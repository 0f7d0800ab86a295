"""Texts that differ between gold and predictions, through the CLI: trailing whitespace pairs
as it is; ``--align chars`` aligns the characters and moves the predicted offsets.

The oracle is a set matcher over ``(start, end, label)`` written here: exact matching counts
a prediction as a true positive when gold holds the same triple.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import cli

LABELS = ("PER", "ORG", "LOC")


def _write_jsonl(path: Path, docs: list[tuple[str, list[tuple[int, int, str]]]]) -> Path:
    with open(path, "w", encoding="utf-8") as fh:
        for i, (text, spans) in enumerate(docs):
            spans_json = [{"start": s, "end": e, "label": lab} for s, e, lab in spans]
            fh.write(json.dumps({"id": f"d{i}", "text": text, "spans": spans_json}) + "\n")
    return path


def _write_brat(folder: Path, docs: list[tuple[str, list[tuple[int, int, str]]]]) -> Path:
    folder.mkdir()
    for i, (text, spans) in enumerate(docs):
        (folder / f"d{i}.txt").write_text(text, encoding="utf-8", newline="")
        lines = [f"T{k}\t{lab} {s} {e}\t{text[s:e]}" for k, (s, e, lab) in enumerate(spans, 1)]
        (folder / f"d{i}.ann").write_text("".join(x + "\n" for x in lines), encoding="utf-8")
    return folder


def _ledgers(*args) -> tuple[dict, dict]:
    code, out = cli("evaluate", *args, "-s", "exact", "--format", "json")
    assert code == 0, out
    report = _report(out)
    per_label = report["result"]["levels"]["labels"][0]["per_label"]
    return (
        {k: (v["num_annotated"], v["num_predicted"], v["tp"]) for k, v in per_label.items()},
        report["inputs"]["predicted"],
    )


def _report(out: str) -> dict:
    """The JSON report in the CLI's output (hints on stderr may follow it)."""
    return json.JSONDecoder().raw_decode(out[out.index("{") :])[0]


def _oracle(gold: list, pred: list) -> dict:
    """Per label ``(num_annotated, num_predicted, tp)`` of an exact set match per document."""
    counts: dict[str, list[int]] = {}
    for g_spans, p_spans in zip(gold, pred, strict=True):
        g_set = Counter(g_spans)
        for s in g_spans:
            counts.setdefault(s[2], [0, 0, 0])[0] += 1
        for s in p_spans:
            row = counts.setdefault(s[2], [0, 0, 0])
            row[1] += 1
            if g_set[s] > 0:
                g_set[s] -= 1
                row[2] += 1
    return {k: tuple(v) for k, v in counts.items()}


def test_trailing_whitespace_pairs_as_it_is_and_is_counted(tmp_path):
    text = "Alice met Bob in Paris."
    gold = _write_brat(tmp_path / "gold", [(text + "\n", [(0, 5, "PER"), (17, 22, "LOC")])])
    pred = _write_jsonl(tmp_path / "pred.jsonl", [(text, [(0, 5, "PER"), (10, 13, "PER")])])
    # brat ids are file names (d0), the JSONL ids the same: they pair by id.
    ledgers, info = _ledgers(gold, pred)
    assert ledgers == {"PER": (1, 2, 1), "LOC": (1, 0, 0)}
    assert info["notes"] == {"texts differing from gold only in trailing whitespace": 1}


def test_span_in_trailing_whitespace_is_counted_unaligned(tmp_path):
    gold = _write_jsonl(tmp_path / "gold.jsonl", [("Alice", [(0, 5, "PER")])])
    pred = _write_jsonl(tmp_path / "pred.jsonl", [("Alice  ", [(0, 5, "PER"), (4, 7, "X")])])
    code, out = cli("evaluate", gold, pred, "-s", "exact", "--format", "json")
    assert code == 0, out
    report = _report(out)
    assert report["result"]["notes"]["unaligned_predictions"] == 1
    assert report["result"]["levels"]["labels"][0]["per_label"]["X"]["fp"] == 1


def test_texts_that_differ_are_still_refused_without_align(tmp_path):
    gold = _write_jsonl(tmp_path / "gold.jsonl", [("He said ''no''.", [(0, 2, "PER")])])
    pred = _write_jsonl(tmp_path / "pred.jsonl", [("He said ``no''.", [(0, 2, "PER")])])
    code, out = cli("evaluate", gold, pred)
    assert code == 2
    assert "texts differ" in out


#: A tail long enough that a few rewritten quotes stay under 10% of a text.
TAIL = " The shares rose after the report was published on the exchange in the morning."
QUOTED = [
    ("Mr. Smith said ''we will sell'' to Acme Corp in Boston." + TAIL, "''", "``"),
    ("The ''Big Apple'' is New York; ''Paris'' is not." + TAIL, "''", "``"),
    ("No quotes here: IBM and Apple." + TAIL, "''", "``"),
]


def test_quote_normalisation_scores_like_a_set_matcher(tmp_path):
    """A system that rewrote ``''`` as two backticks (same length, same offsets) in some files:
    with --align chars it scores as the offsets compared directly."""
    rng = random.Random(7)
    gold_docs, pred_docs, gold_spans, pred_spans = [], [], [], []
    for text, old, new in QUOTED:
        words = [(i, i + len(w)) for i, w in _words(text) if w[0].isupper()]
        g = [(s, e, rng.choice(LABELS)) for s, e in words]
        p = [(s, e, lab if rng.random() < 0.7 else rng.choice(LABELS)) for s, e, lab in g]
        p += [] if (0, 2, "PER") in p else [(0, 2, "PER")]
        # a predicted span that starts on a rewritten quote still has its counterpart
        if old in text:
            q = text.index(old)
            p.append((q, q + 6, "ORG"))
        gold_docs.append((text, g))
        pred_docs.append((text.replace(old, new), p))
        gold_spans.append(g)
        pred_spans.append(p)
    gold = _write_brat(tmp_path / "gold", gold_docs)
    pred = _write_brat(tmp_path / "pred", pred_docs)
    code, out = cli("evaluate", gold, pred)
    assert code == 2 and "texts differ" in out
    ledgers, info = _ledgers(gold, pred, "--align", "chars")
    assert ledgers == _oracle(gold_spans, pred_spans)
    assert info["alignment"]["align"] == "chars"
    assert info["alignment"]["documents"] == 2
    assert info["alignment"]["unplaced_spans"] == 0


def _words(text: str):
    i = 0
    for w in text.split(" "):
        yield i, w.strip(".;:,")
        i += len(w) + 1


def test_span_on_inserted_characters_is_unaligned_and_listed(tmp_path):
    gold = _write_jsonl(tmp_path / "gold.jsonl", [("Obama spoke in Paris today." + TAIL, [])])
    text = "Mr. Obama spoke in Paris today." + TAIL
    pred = _write_jsonl(tmp_path / "pred.jsonl", [(text, [(0, 9, "PER"), (19, 24, "LOC")])])
    code, out = cli("evaluate", gold, pred, "--align", "chars", "--format", "json")
    assert code == 0, out
    report = _report(out)
    assert report["result"]["notes"]["unaligned_predictions"] == 1
    alignment = report["inputs"]["predicted"]["alignment"]
    assert alignment["unplaced_spans"] == 1
    assert "Mr. Obama" in alignment["examples"][0]
    per_label = report["result"]["levels"]["labels"][0]["per_label"]
    assert per_label["PER"]["fp"] == 1 and per_label["LOC"]["num_predicted"] == 1


def test_texts_sharing_too_little_are_refused(tmp_path):
    gold = _write_jsonl(tmp_path / "gold.jsonl", [("Alice met Bob in Paris.", [])])
    pred = _write_jsonl(tmp_path / "pred.jsonl", [("Something else entirely!", [])])
    code, out = cli("evaluate", gold, pred, "--align", "chars")
    assert code == 2
    assert "--align chars" in out and "90%" in out


def test_align_chars_in_token_unit_is_refused(conll_pair):
    gold, pred = conll_pair
    code, out = cli("evaluate", gold, pred, "--align", "chars")
    assert code == 2
    assert "--unit char" in out


def test_align_position_on_character_files_is_refused(tmp_path):
    gold = _write_jsonl(tmp_path / "gold.jsonl", [("Alice", [(0, 5, "PER")])])
    code, out = cli("evaluate", gold, gold, "--align", "position")
    assert code == 2
    assert "--align chars" in out


@pytest.fixture
def conll_pair(tmp_path):
    gold = tmp_path / "gold.conll"
    gold.write_text("Alice B-PER\nsmiled O\n\n", encoding="utf-8")
    pred = tmp_path / "pred.conll"
    pred.write_text("Alice B-PER\nsmiles O\n\n", encoding="utf-8")
    return gold, pred


# -- random edits outside spans leave the ledgers as they are ------------------------------

#: Gaps and spans draw from different characters, so that every edit has one best alignment
#: at the spans' ends (an edit next to a run of equal characters has several).
GAP_CHARS = "abcdefg ''``.,\n"
SPAN_CHARS = "ABCDEFG"
PADDING = "a" * 40  # keeps three edits under 10% of a document


@st.composite
def disturbed_pairs(draw):
    """Documents of random text with random spans: ``(text, gold spans, disturbed text,
    predicted spans on it, the same predictions on the undisturbed text)``, the disturbed
    text having random insertions, deletions and replacements inside the gaps between spans."""
    docs = []
    for _ in range(draw(st.integers(1, 3))):
        n = draw(st.integers(1, 4))
        gaps = [draw(st.text(GAP_CHARS, min_size=1, max_size=12)) for _ in range(n + 1)]
        gaps[0] = PADDING + gaps[0]
        spans_text = [draw(st.text(SPAN_CHARS, min_size=1, max_size=8)) for _ in range(n)]
        labels = [draw(st.sampled_from(LABELS)) for _ in range(n)]
        edits = draw(st.lists(st.tuples(st.integers(0, n), st.sampled_from("idr")), max_size=3))
        disturbed = list(gaps)
        for k, kind in edits:
            gap = disturbed[k]
            if len(gap) < 3:
                continue
            mid = len(gap) // 2
            disturbed[k] = {
                "i": gap[:mid] + "#" + gap[mid:],
                "d": gap[:mid] + gap[mid + 1 :],
                "r": gap[:mid] + "%" + gap[mid + 1 :],
            }[kind]
        text, spans = _assemble(gaps, spans_text, labels)
        pred_text, pred_all = _assemble(disturbed, spans_text, labels)
        keep = [draw(st.booleans()) for _ in range(n)]
        pred = [s for s, k in zip(pred_all, keep, strict=True) if k]
        same = [s for s, k in zip(spans, keep, strict=True) if k]
        docs.append((text, spans, pred_text, pred, same))
    return docs


def _assemble(gaps: list[str], spans_text: list[str], labels: list[str]):
    text, spans = gaps[0], []
    for piece, label, gap in zip(spans_text, labels, gaps[1:], strict=True):
        spans.append((len(text), len(text) + len(piece), label))
        text += piece + gap
    return text, spans


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(docs=disturbed_pairs())
def test_edits_outside_spans_leave_the_ledgers_as_they_are(tmp_path_factory, docs):
    tmp = tmp_path_factory.mktemp("edits")
    gold = _write_jsonl(tmp / "gold.jsonl", [(t, s) for t, s, _, _, _ in docs])
    undisturbed = _write_jsonl(tmp / "same.jsonl", [(t, k) for t, _, _, _, k in docs])
    disturbed = _write_jsonl(tmp / "pred.jsonl", [(pt, pk) for _, _, pt, pk, _ in docs])
    expected, _ = _ledgers(gold, undisturbed)
    got, _ = _ledgers(gold, disturbed, "--align", "chars")
    assert got == expected
    assert expected == _oracle([s for _, s, _, _, _ in docs], [k for _, _, _, _, k in docs])


def test_spacy_docs_align_by_characters(tmp_path):
    """Two DocBins whose texts differ: --align chars scores them in char unit."""
    import spacy
    from spacy.tokens import DocBin

    nlp = spacy.blank("en")
    paths = []
    for name, text in (
        ("gold", "He said ''yes'' to Acme." + TAIL),
        ("pred", "He said ``yes'' to Acme." + TAIL),
    ):
        doc = nlp(text)
        doc.ents = [doc.char_span(19, 23, label="ORG")]
        path = tmp_path / f"{name}.spacy"
        DocBin(docs=[doc]).to_disk(path)
        paths.append(path)
    code, out = cli("evaluate", *paths, "--unit", "char")
    assert code == 2 and "differ" in out
    ledgers, info = _ledgers(*paths, "--unit", "char", "--align", "chars")
    assert ledgers == {"ORG": (1, 1, 1)}
    assert info["alignment"]["documents"] == 1


def test_trailing_whitespace_read_in_parts_counts_as_in_one_process(tmp_path):
    """The JSON column road read by workers (run inline, pickled as a pool does) counts the
    trailing-whitespace pairs and the unaligned spans as one process does."""
    from spacy_span_eval import SpanEvaluator
    from spacy_span_eval.jobs.parallel_reading import score_pair_in_processes
    from spacy_span_eval.readers.columnar import ColumnPair
    from spacy_span_eval.readers.options import ReadOptions

    from conftest import Inline

    docs = [(f"Doc {i} names Alice here.", [(14, 19, "PER")]) for i in range(60)]
    gold = _write_jsonl(tmp_path / "gold.jsonl", docs)
    pred_docs = [
        (t + ("\n" if i % 3 == 0 else ""), s + ([(len(t), len(t) + 1, "X")] if i % 9 == 0 else []))
        for i, (t, s) in enumerate(docs)
    ]
    pred = _write_jsonl(tmp_path / "pred.jsonl", pred_docs)
    pair = ColumnPair(
        "chars",
        str(gold),
        str(pred),
        "jsonl",
        "jsonl",
        "char",
        ReadOptions(),
        ReadOptions(side="predicted"),
    )
    ev = SpanEvaluator(strategy="exact", unit="char")
    batches, info = pair.read()
    want = ev.tally_batches(batches).result().to_dict(), {s: i.to_dict() for s, i in info.items()}
    assert want[1]["predicted"]["notes"] == {TRAILING: 20}
    assert want[0]["notes"]["unaligned_predictions"] == 7
    _, fresh = pair.read()
    part = score_pair_in_processes(pair, ev, n_process=2, info=fresh, part_bytes=300, pool=Inline())
    assert part is not None
    got = part.tally.result().to_dict(), {s: i.to_dict() for s, i in fresh.items()}
    assert got == want


TRAILING = "texts differing from gold only in trailing whitespace"


def test_conll_tokens_align_with_a_text_in_char_unit(tmp_path):
    """CoNLL gold (tokens joined by spaces in char unit) against a system's own text."""
    gold = tmp_path / "gold.conll"
    gold.write_text(
        "Alice B-PER\nSmith I-PER\nvisited O\nNew B-LOC\nYork I-LOC\ntoday O\n. O\n\n",
        encoding="utf-8",
    )
    pred = _write_jsonl(
        tmp_path / "pred.jsonl",
        [("Alice Smith visited New York today.", [(0, 11, "PER"), (20, 28, "LOC")])],
    )
    code, out = cli("evaluate", gold, pred, "--unit", "char")
    assert code == 2 and "differ" in out
    ledgers, info = _ledgers(gold, pred, "--unit", "char", "--align", "chars")
    assert ledgers == {"PER": (1, 1, 1), "LOC": (1, 1, 1)}
    assert info["alignment"]["changed_characters"] == 1
