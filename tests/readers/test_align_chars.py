"""Texts that differ between gold and predictions, through the CLI: trailing whitespace pairs
as it is; ``--align chars`` aligns the characters and moves the predicted offsets.

The oracle is a set matcher over ``(start, end, label)`` written here: exact matching counts
a prediction as a true positive when gold holds the same triple.
"""

from __future__ import annotations

import json
import random
import unicodedata
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spacy_span_eval import Span
from spacy_span_eval.errors import DocumentMismatchError
from spacy_span_eval.readers.char_align import (
    NORMALISATION,
    TRAILING_WHITESPACE,
    CharDifferences,
    CharMapping,
    TextPairing,
    align_texts,
    fold,
)

from conftest import cli, file_pair

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

    from conftest import Inline

    docs = [(f"Doc {i} names Alice here.", [(14, 19, "PER")]) for i in range(60)]
    gold = _write_jsonl(tmp_path / "gold.jsonl", docs)
    pred_docs = [
        (t + ("\n" if i % 3 == 0 else ""), s + ([(len(t), len(t) + 1, "X")] if i % 9 == 0 else []))
        for i, (t, s) in enumerate(docs)
    ]
    pred = _write_jsonl(tmp_path / "pred.jsonl", pred_docs)
    pair = file_pair(gold, pred, "jsonl")
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


# -------------------------------------------------------------------------------------------------
# The values of the two alignments, pinned on tiny hand-worked cases.
#
# ``--align chars``
# (:mod:`spacy_span_eval.readers.char_align`): on texts with one quote changed, a few characters
# inserted before, inside or after a span, or one deleted, the character mapping, the placed and
# unplaced spans, the counts and the messages are written out by hand (offsets in comments).
# -------------------------------------------------------------------------------------------------

# -- --align chars: the character mapping --------------------------------------------------

#: One character substituted: ``'`` at offset 8 becomes ``*``.
G_SUB = "He said 'hi' to Ann in Rome today."
P_SUB = "He said *hi' to Ann in Rome today."
#: Four characters inserted before a span: "Mr. " (offsets 0-3); 36 of 40 kept, exactly 90%.
G_INS = "Obama spoke in Paris today and left."
P_INS = "Mr. Obama spoke in Paris today and left."
#: One character inserted inside a span: "." at offset 2 of "St. Louis".
G_IN = "St Louis is a city on the Mississippi."
P_IN = "St. Louis is a city on the Mississippi."
#: One character deleted (gold "." at offset 20) inside a span that ends the text.
G_DEL = "They flew home to St. Louis"
P_DEL = "They flew home to St Louis"


def test_a_substituted_character_keeps_its_counterpart():
    m = align_texts(G_SUB, P_SUB, doc="d")
    n = len(G_SUB)  # 34
    assert (list(m.starts), list(m.ends)) == (list(range(n)), list(range(1, n + 1)))
    assert list(m.gold_changed) == [i == 8 for i in range(n)]
    assert list(m.pred_changed) == [i == 8 for i in range(n)]
    assert m.lost == 0  # a substituted character is kept


def test_inserted_characters_have_no_counterpart():
    m = align_texts(G_INS, P_INS, doc="d")
    assert list(m.starts) == [-1, -1, -1, -1, *range(36)]
    assert list(m.ends) == [-1, -1, -1, -1, *range(1, 37)]
    assert list(m.gold_changed) == [False] * 36
    assert list(m.pred_changed) == [True] * 4 + [False] * 36
    assert m.lost == 4


def test_a_deleted_character_is_changed_on_the_gold_side():
    m = align_texts(G_DEL, P_DEL, doc="d")
    assert list(m.starts) == [*range(20), *range(21, 27)]
    assert list(m.ends) == [*range(1, 21), *range(22, 28)]
    assert list(m.gold_changed) == [i == 20 for i in range(27)]
    assert list(m.pred_changed) == [False] * 26
    assert m.lost == 1


#: ``(gold, predicted, characters lost)``, worked by hand: a change is what lies between
#: unchanged stretches of 3+ characters; it loses the difference of its lengths when a stretch
#: beside it is at least as long as it (an edit), all of it otherwise (a rewrite).
LOSSES = [
    ("abcdefghij", "abcdefghXY", 0),  # "ij" -> "XY" beside "abcdefgh": two substitutions
    (G_INS, P_INS, 4),  # "Mr. " put in before 36 unchanged characters
    (G_INS, "Mrs. " + G_INS, 5),
    ("Ann met Bob.", "Ann met Bob!!!", 2),  # "." -> "!!!": one substituted, two put in
    ("Ann , Bob and Cy .", "Ann, Bob and Cy.", 0),  # whitespace taken out is never lost
    ("He said ''no'' to Ann.", 'He said "no" to Ann.', 0),  # folded alike: no change
    ("abcdefghij", "abcXYZWVUT", 7),  # seven rewritten beside three unchanged: a rewrite
    ("Yes.", "Yes!", 0),
]


@pytest.mark.parametrize("gold,pred,lost", LOSSES)
def test_lost_characters_as_worked_by_hand(gold, pred, lost):
    assert align_texts(gold, pred, doc="d", share=0).lost == lost


@pytest.mark.parametrize(
    "gold,pred,share,kept",
    [
        # 5 of 41 lost: over 10% (4.1) and over the allowance (3)
        (G_INS, "Mrs. " + G_INS, 0.9, "88%"),
        # 4 of 16 lost: within 30%, not within 10% (1.6) or the allowance
        ("Ann met Bob.", "Ann met Bob!!!!!", 0.9, "75%"),
        ("abcdefghij", "abcXYZWVUT", 0.5, "30%"),  # a rewrite of 7 in 10
        ("Alice met Bob in Paris.", "Something else entirely!", 0.0, "0%"),  # nothing kept
    ],
)
def test_texts_losing_too_much_are_refused_with_their_share(gold, pred, share, kept):
    with pytest.raises(DocumentMismatchError) as info:
        align_texts(gold, pred, doc="d7", share=share)
    assert str(info.value) == (
        f"document 'd7': gold and predicted texts keep {kept} of their characters; --align "
        f"chars pairs texts that keep at least {share:.0%} of them (or lose at most 3; see "
        "--align-share), and these look like different documents"
    )


@pytest.mark.parametrize(
    "gold,pred,share",
    [
        (G_INS, P_INS, 0.9),  # 4 of 40 lost: exactly 10%
        ("Ann met Bob.", "Ann met Bob!!!", 0.9),  # 2 of 14 lost: within the allowance
        ("Ann met Bob.", "Ann met Bob!!!!!", 0.75),  # 4 of 16
    ],
)
def test_texts_within_their_share_or_allowance_pair(gold, pred, share):
    align_texts(gold, pred, doc="d", share=share)


def _random_text(seed: int, n: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice("abcdefghij klmnop") for _ in range(n))


def test_long_texts_too_far_apart_are_refused_without_a_share():
    """Past 2,000 characters the texts are anchored on long runs in common first: two unrelated
    texts have none, so they are refused before any alignment."""
    with pytest.raises(DocumentMismatchError) as info:
        align_texts(_random_text(1, 5000), _random_text(2, 5000), doc="d9")
    assert str(info.value).startswith(
        "document 'd9': gold and predicted texts keep less than 90% of their characters;"
    )


def test_a_long_text_is_aligned_between_its_anchors():
    """12,000 characters: "#" put in at 1,000, the character at 5,000 taken out, the one at
    8,000 substituted; every other character keeps its place, shifted by the edits before it."""
    gold = _random_text(3, 12_000)
    pred = gold[:1000] + "#" + gold[1000:5000] + gold[5001:8000] + "%" + gold[8001:]
    m = align_texts(gold, pred, doc="long")
    assert m.lost == 2
    shift = [(0, 1000, 0), (1001, 5001, -1), (5001, 12_000, 0)]
    for lo, hi, by in shift:
        assert list(m.starts[lo:hi]) == list(range(lo + by, hi + by))
    assert m.starts[1000] == -1 and m.pred_changed[1000] and m.pred_changed[8000]
    assert list(np.flatnonzero(m.gold_changed)) == [5000, 8000]
    spans = [Span(10, 20, "A"), Span(995, 1010, "B"), Span(4990, 5010, "C"), Span(7990, 8010, "D")]
    assert [m.place(s) for s in spans] == [
        Span(10, 20, "A"),
        Span(995, 1009, "B"),
        Span(4989, 5010, "C"),
        Span(7990, 8010, "D"),
    ]


def test_a_long_text_with_many_changes_still_pairs():
    """70 characters rewritten in 800: more than the first band (64) holds, less than the
    bound (160). Every "#" must be an edit of its own, so the distance is 70, all of them
    substitutions (equal lengths), 730 characters kept (91%)."""
    gold = "abcdefghij" * 80
    pred = "".join("#" if i % 11 == 5 and i < 770 else c for i, c in enumerate(gold))
    assert pred.count("#") == 70
    diffs = CharDifferences()
    placed, lost, note = reconcile(
        gold, pred, [Span(0, 10, "X")], [], align="chars", doc="long", differences=diffs
    )
    assert (placed, lost, note) == ([Span(0, 10, "X")], [], None)
    assert (diffs.documents, diffs.changed_characters, diffs.spans_over_changes) == (1, 70, 1)


# -- placing a span -----------------------------------------------------------------------

#: predicted 0 1 2 3 4 5 -> gold 0 1 (none) 2 3 5
MAPPING = CharMapping(
    starts=[0, 1, -1, 2, 3, 5],
    ends=[1, 2, -1, 3, 4, 6],
    gold_changed=[False] * 6,
    pred_changed=[False, False, True, False, False, False],
)


@pytest.mark.parametrize(
    "span,placed",
    [
        (Span(0, 2, "X"), Span(0, 2, "X")),  # from the first character
        (Span(0, 1, "X"), Span(0, 1, "X")),  # one character, on gold 0
        (Span(3, 6, "Y"), Span(2, 6, "Y")),  # to the last character (gold 5)
        (Span(4, 5, "Y"), Span(3, 4, "Y")),
        (Span(2, 4, "X"), None),  # starts on a character gold does not have
        (Span(1, 3, "X"), None),  # ends on one
        (Span(2, 3, "X"), None),
        (Span(4, 7, "X"), None),  # past the predicted text
        (Span(-1, 2, "X"), None),
        (Span(0, 0, "X"), None),  # empty
    ],
)
def test_a_span_is_placed_by_its_first_and_last_character(span, placed):
    assert MAPPING.place(span) == placed


def test_a_mapping_that_would_reverse_a_span_places_nothing():
    reversed_ = CharMapping(starts=[3, 1], ends=[4, 2], gold_changed=[], pred_changed=[])
    assert reversed_.place(Span(0, 2, "X")) is None


# -- reconciling two texts ------------------------------------------------------------------

LOST = "ends in trailing whitespace that the gold text does not have"


def reconcile(gold, pred, pred_spans, gold_spans, *, align, doc, differences):
    """:meth:`TextPairing.reconcile` with the note it counted (``None``: none), for the
    tables below."""
    notes: Counter = Counter()
    pairing = TextPairing(align, notes, differences)
    out = pairing.reconcile(gold, pred, pred_spans, gold_spans, doc=doc)
    return None if out is None else (*out, next(iter(notes), None))


def test_trailing_whitespace_keeps_offsets_up_to_the_gold_end():
    # gold is 13 characters; a span ending at 13 stays, one reaching into "  " is lost
    gold, pred = " Ann met Bob.", " Ann met Bob.  "
    spans = [Span(1, 4, "PER"), Span(9, 13, "PER"), Span(13, 15, "X")]
    diffs = CharDifferences()
    out = reconcile(gold, pred, spans, [], align="chars", doc="d", differences=diffs)
    assert out == (
        [Span(1, 4, "PER"), Span(9, 13, "PER")],
        [(Span(13, 15, "X"), LOST)],
        TRAILING_WHITESPACE,
    )
    assert diffs == CharDifferences()  # not an alignment: nothing counted
    # the gold side with the trailing newline: every predicted span fits
    out = reconcile(
        pred + "\n", pred.rstrip(), spans[:2], [], align="text", doc="d", differences=None
    )
    assert out == (spans[:2], [], TRAILING_WHITESPACE)


@pytest.mark.parametrize("align", ["text", "position"])
def test_texts_that_differ_do_not_pair_without_chars(align):
    assert reconcile(G_SUB, P_SUB, [], [], align=align, doc="d", differences=None) is None


def _unplaced(start: int, end: int, text: str) -> str:
    return (
        f"--align chars: predicted span [{start}, {end}) {text!r} starts or ends on "
        "characters the gold text does not have"
    )


def test_a_span_on_inserted_characters_is_unplaced_and_the_others_move():
    # P_INS: "Mr. " 0-3, "Obama" 4-8, "Paris" 19-23; G_INS: "Obama" 0-4, "Paris" 15-19
    diffs = CharDifferences()
    pred_spans = [Span(0, 9, "PER"), Span(4, 9, "PER"), Span(19, 24, "LOC")]
    gold_spans = [Span(0, 5, "PER"), Span(15, 20, "LOC")]
    out = reconcile(
        G_INS, P_INS, pred_spans, gold_spans, align="chars", doc="d1", differences=diffs
    )
    assert out == (
        [Span(0, 5, "PER"), Span(15, 20, "LOC")],
        [(Span(0, 9, "PER"), _unplaced(0, 9, "Mr. Obama"))],
        None,
    )
    assert diffs.to_dict() == {
        "align": "chars",
        "documents": 1,
        "changed_characters": 4,
        "spans_over_changes": 0,
        "unplaced_spans": 1,
        "examples": [f"document 'd1': {_unplaced(0, 9, 'Mr. Obama')}"],
    }


def test_a_span_over_an_inserted_character_is_placed_and_counted():
    # "St. Louis" [0, 9) in P_IN ends on "s" (gold 7): gold [0, 8) "St Louis"
    diffs = CharDifferences()
    out = reconcile(
        G_IN,
        P_IN,
        [Span(0, 9, "LOC"), Span(27, 38, "LOC")],  # "Mississippi" after the change
        [Span(0, 8, "LOC"), Span(26, 37, "LOC")],
        align="chars",
        doc="d2",
        differences=diffs,
    )
    assert out == ([Span(0, 8, "LOC"), Span(26, 37, "LOC")], [], None)
    assert (diffs.documents, diffs.changed_characters) == (1, 1)
    assert (diffs.spans_over_changes, diffs.unplaced_spans) == (1, 0)
    assert diffs.examples == ["document 'd2': predicted 'St. Louis' placed on gold 'St Louis'"]


def test_a_gold_span_over_a_deleted_character_is_counted():
    # gold "They" [0, 4) is untouched; "St. Louis" [18, 27) ends the gold text and lost ".";
    # predicted "St Louis" [18, 26) is placed on gold [18, 27)
    diffs = CharDifferences()
    out = reconcile(
        G_DEL,
        P_DEL,
        [Span(18, 26, "LOC")],
        [Span(0, 4, "PER"), Span(18, 27, "LOC")],
        align="chars",
        doc="d3",
        differences=diffs,
    )
    assert out == ([Span(18, 27, "LOC")], [], None)
    assert (diffs.changed_characters, diffs.spans_over_changes) == (1, 1)
    assert diffs.examples == [
        "document 'd3': gold span 'St. Louis' touches characters the predicted text changed"
    ]


def test_a_span_after_an_insertion_is_untouched():
    # "Rome" [15, 19) in both; "," inserted at 19, right after it
    diffs = CharDifferences()
    out = reconcile(
        "Ann met Bob in Rome today.",
        "Ann met Bob in Rome, today.",
        [Span(15, 19, "LOC")],
        [Span(15, 19, "LOC")],
        align="chars",
        doc="d4",
        differences=diffs,
    )
    assert out == ([Span(15, 19, "LOC")], [], None)
    assert (diffs.spans_over_changes, diffs.examples) == (0, [])


def test_changed_characters_count_the_side_with_more_and_documents_add_up():
    # "[[" and "]]" become "(" and ")": gold has 4 changed characters, the prediction 2
    gold = "He said [[no]] to Acme Corp in Boston today."
    pred = "He said (no) to Acme Corp in Boston today."
    diffs = CharDifferences()
    reconcile(gold, pred, [], [], align="chars", doc="a", differences=diffs)
    assert (diffs.documents, diffs.changed_characters) == (1, 4)
    reconcile(G_SUB, P_SUB, [], [], align="chars", doc="b", differences=diffs)
    assert (diffs.documents, diffs.changed_characters) == (2, 5)


def test_examples_stop_at_the_limit_but_every_span_is_counted():
    spans = [Span(s, e, "PER") for s, e in ((0, 9), (1, 9), (2, 9), (3, 9), (0, 2), (0, 3))]
    diffs = CharDifferences()
    _, lost, _ = reconcile(G_INS, P_INS, spans, [], align="chars", doc="d", differences=diffs)
    assert [s for s, _ in lost] == spans
    assert diffs.unplaced_spans == 6 and len(diffs.examples) == 5
    assert diffs.examples[-1] == f"document 'd': {_unplaced(0, 2, 'Mr')}"


def test_without_a_report_the_spans_still_move():
    out = reconcile(G_IN, P_IN, [Span(0, 9, "LOC")], [], align="chars", doc="d", differences=None)
    assert out == ([Span(0, 8, "LOC")], [], None)


def test_a_pairing_counts_trailing_whitespace_in_its_notes_only():
    notes: Counter = Counter()
    diffs = CharDifferences()
    pairing = TextPairing("chars", notes, diffs)
    assert pairing.reconcile("Ann.\n", "Ann.", [Span(0, 3, "PER")], [], doc="t") == (
        [Span(0, 3, "PER")],
        [],
    )
    pairing.reconcile("Bob.", "Bob. ", [], [], doc="u")
    assert notes == Counter({TRAILING_WHITESPACE: 2})
    placed = pairing.reconcile(G_INS, P_INS, [Span(0, 9, "PER")], [Span(0, 5, "PER")], doc="d5")
    assert placed == ([], [(Span(0, 9, "PER"), _unplaced(0, 9, "Mr. Obama"))])
    assert notes == Counter({TRAILING_WHITESPACE: 2})  # an alignment is no trailing note
    assert diffs.documents == 1 and diffs.examples[0].startswith("document 'd5': ")
    assert TextPairing("text", notes, None).reconcile(G_SUB, P_SUB, [], [], doc="v") is None
    quiet = TextPairing("text", None, None)
    assert quiet.reconcile("Ann", "Ann ", [], [], doc="w") == ([], [])


def test_the_command_line_reports_the_alignment(tmp_path):
    gold, pred = tmp_path / "gold.jsonl", tmp_path / "pred.jsonl"
    gold.write_text(json.dumps({"id": "a", "text": G_IN, "spans": []}) + "\n")
    spans = [{"start": 0, "end": 9, "label": "LOC"}]
    pred.write_text(json.dumps({"id": "a", "text": P_IN, "spans": spans}) + "\n")
    code, out = cli("evaluate", gold, pred, "--align", "chars", "--format", "json")
    assert code == 0, out
    report = json.JSONDecoder().raw_decode(out[out.index("{") :])[0]
    assert report["inputs"]["predicted"]["alignment"] == {
        "align": "chars",
        "documents": 1,
        "changed_characters": 1,
        "spans_over_changes": 1,
        "unplaced_spans": 0,
        "examples": ["document 'a': predicted 'St. Louis' placed on gold 'St Louis'"],
    }


def test_spans_over_changes_add_up_over_documents():
    diffs = CharDifferences()
    seen = []
    for gold, pred, pred_spans, gold_spans in (
        (G_IN, P_IN, [Span(0, 9, "LOC")], []),  # a predicted span over the inserted "."
        (G_IN, P_IN, [Span(0, 9, "LOC")], []),
        (G_DEL, P_DEL, [], [Span(18, 27, "LOC")]),  # a gold span over the deleted "."
        (G_DEL, P_DEL, [], [Span(18, 27, "LOC")]),
    ):
        reconcile(gold, pred, pred_spans, gold_spans, align="chars", doc="d", differences=diffs)
        seen.append(diffs.spans_over_changes)
    assert seen == [1, 2, 3, 4]
    assert (diffs.documents, diffs.changed_characters) == (4, 4)


def test_a_refusal_names_the_document():
    with pytest.raises(DocumentMismatchError, match="^document 'd11': gold and predicted"):
        reconcile("abcdefghij", "abXYZWVUTS", [], [], align="chars", doc="d11", differences=None)


# -- normalisation: folded texts, the three sentences of issue 37 ------------------------------


@pytest.mark.parametrize(
    "text,folded,starts,ends",
    [
        ("“Hi” — it’s", '"Hi" - it\'s', range(11), range(1, 12)),
        ("e\u0301 x", "é x", [0, 0, 1, 2], [1, 1, 2, 3]),  # a letter and its accent: one
        ("``Hi''", '"Hi"', [0, 0, 1, 2, 3, 3], [1, 1, 2, 3, 4, 4]),
        ("a--b", "a-b", [0, 1, 1, 2], [1, 2, 2, 3]),
        ("ﬁne", "fine", [0, 2, 3], [2, 3, 4]),  # NFKC: one character, two folded
        ("a\u00adb", "ab", [0, 1, 1], [1, 1, 2]),  # a soft hyphen folds to nothing
    ],
)
def test_fold_as_worked_by_hand(text, folded, starts, ends):
    got, got_starts, got_ends = fold(text)
    assert (got, list(got_starts), list(got_ends)) == (folded, list(starts), list(ends))


QUOTES_GOLD = "“Tim Cook” said Apple’s CEO — in Cupertino."  # 43 characters
QUOTES_PRED = '"Tim Cook" said Apple\'s CEO -- in Cupertino.'  # 44: "--" for the dash
TICKS_GOLD = "`` Hello , '' said Ann Smith ."  # CoNLL tokens joined by spaces
TICKS_PRED = '"Hello," said Ann Smith.'
NFC = "Zoë Saldaña visited Plzeň."  # 26 characters
NFD = unicodedata.normalize("NFD", NFC)  # 29: "e", "n", "n" and their marks apart

#: ``(gold, predicted, predicted spans, the same on the gold text)``, offsets worked by hand.
NORMALISED = [
    (
        QUOTES_GOLD,
        QUOTES_PRED,
        [(1, 9), (16, 21), (34, 43), (0, 10), (24, 33)],
        # "Tim Cook", "Apple", "Cupertino" (one back after "--"), with its quotes, "CEO -- in"
        [(1, 9), (16, 21), (33, 42), (0, 10), (24, 32)],
    ),
    (TICKS_GOLD, TICKS_PRED, [(1, 6), (14, 23), (0, 8)], [(3, 8), (19, 28), (0, 13)]),
    # "Zoë", "Saldaña", "Plzeň"; "Zoe" without its mark takes the whole "ë"
    (NFC, NFD, [(0, 4), (5, 13), (22, 28), (0, 3)], [(0, 3), (4, 11), (20, 25), (0, 3)]),
]


@pytest.mark.parametrize("gold,pred,spans,placed", NORMALISED)
def test_normalised_texts_align_as_worked_by_hand(gold, pred, spans, placed):
    diffs = CharDifferences()
    out = reconcile(
        gold,
        pred,
        [Span(s, e, "X") for s, e in spans],
        [],
        align="chars",
        doc="d",
        differences=diffs,
    )
    assert out is not None
    assert out[:2] == ([Span(s, e, "X") for s, e in placed], [])
    # nothing lost; only the backtick sentence's spaces are changed characters
    assert align_texts(gold, pred, doc="d").lost == 0
    assert diffs.changed_characters == (4 if gold == TICKS_GOLD else 0)


def test_the_quote_sentence_scores_as_by_hand(tmp_path):
    gold = _write_jsonl(
        tmp_path / "gold.jsonl", [(QUOTES_GOLD, [(1, 9, "PER"), (16, 21, "ORG"), (33, 42, "LOC")])]
    )
    pred = _write_jsonl(
        tmp_path / "pred.jsonl", [(QUOTES_PRED, [(1, 9, "PER"), (16, 21, "ORG"), (34, 43, "LOC")])]
    )
    code, out = cli("evaluate", gold, pred)
    assert code == 2
    assert "differ only in Unicode normalisation (NFKC), quotes or dashes" in out
    assert "--align chars pairs them" in out
    ledgers, info = _ledgers(gold, pred, "--align", "chars")
    assert ledgers == {"PER": (1, 1, 1), "ORG": (1, 1, 1), "LOC": (1, 1, 1)}
    assert info["alignment"]["changed_characters"] == 0


def test_the_backtick_sentence_scores_as_by_hand(tmp_path):
    gold = tmp_path / "gold.conll"
    gold.write_text(
        "`` O\nHello B-MISC\n, O\n'' O\nsaid O\nAnn B-PER\nSmith I-PER\n. O\n\n", encoding="utf-8"
    )
    pred = _write_jsonl(tmp_path / "pred.jsonl", [(TICKS_PRED, [(1, 6, "MISC"), (14, 23, "PER")])])
    ledgers, info = _ledgers(gold, pred, "--unit", "char", "--align", "chars")
    assert ledgers == {"MISC": (1, 1, 1), "PER": (1, 1, 1)}
    assert info["alignment"]["unplaced_spans"] == 0


@pytest.mark.parametrize("align", [(), ("--align", "chars")])
def test_the_nfd_sentence_pairs_as_it_is_and_is_counted(tmp_path, align):
    gold = _write_jsonl(
        tmp_path / "g.jsonl", [(NFC, [(0, 3, "PER"), (4, 11, "PER"), (20, 25, "LOC")])]
    )
    pred = _write_jsonl(
        tmp_path / "p.jsonl", [(NFD, [(0, 4, "PER"), (5, 13, "PER"), (22, 28, "LOC")])]
    )
    ledgers, info = _ledgers(gold, pred, *align)
    assert ledgers == {"PER": (2, 2, 2), "LOC": (1, 1, 1)}
    assert info["notes"] == {NORMALISATION: 1}
    assert info.get("alignment", {}).get("documents", 0) == 0


def test_align_share_sets_what_a_pair_must_keep(tmp_path):
    # "." -> "!!!!!": 4 of 16 characters lost
    gold = _write_jsonl(tmp_path / "g.jsonl", [("Ann met Bob.", [(0, 3, "PER")])])
    pred = _write_jsonl(tmp_path / "p.jsonl", [("Ann met Bob!!!!!", [(0, 3, "PER")])])
    code, out = cli("evaluate", gold, pred, "--align", "chars")
    assert code == 2 and "keep 75% of their characters" in out
    ledgers, _ = _ledgers(gold, pred, "--align", "chars", "--align-share", "0.75")
    assert ledgers == {"PER": (1, 1, 1)}
    code, out = cli("evaluate", gold, pred, "--align", "chars", "--align-share", "1.5")
    assert code == 2
