"""The string-set score (semantics §11) is UniversalNER's evaluation: per document and label,
the normalised gold strings against the normalised predicted strings, positions ignored.

The reference below is written from the published script (``src/eval/evaluate.py`` of
universal-ner: SQuAD's ``normalize_answer``, a parser that keeps each normalised item once,
and micro counts with its 1e-10 guards), not from the package's code."""

from __future__ import annotations

import json
import random
import re
import string

import pytest

from spacy_span_eval.api import evaluate_files

WORDS = ["The", "the", "bank", "of", "U.S.", "New-York", "an", "Apple", "apple", "Inc.", "a", "x"]


def normalize_answer(s):
    def remove_articles(text):
        return re.sub(r"\b(a|an|the)\b", " ", text)

    def white_space_fix(text):
        return " ".join(text.split())

    def remove_punc(text):
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    return white_space_fix(remove_articles(remove_punc(s.lower())))


def parser(items):
    formatted = []
    for item in items:
        item = normalize_answer(item)
        if item not in formatted:
            formatted.append(item)
    return formatted


def universal_ner(preds, golds):
    n_correct = n_pos_gold = n_pos_pred = 0
    for pred, gold in zip(preds, golds, strict=True):
        gold_tuples, pred_tuples = parser(gold), parser(pred)
        n_correct += sum(1 for t in pred_tuples if t in gold_tuples)
        n_pos_gold += len(gold_tuples)
        n_pos_pred += len(pred_tuples)
    prec = n_correct / (n_pos_pred + 1e-10)
    recall = n_correct / (n_pos_gold + 1e-10)
    return prec, recall, 2 * prec * recall / (prec + recall + 1e-10)


def _corpus(rng, n_docs):
    gold, pred, queries = [], [], []
    for d in range(n_docs):
        words = [rng.choice(WORDS) for _ in range(rng.randint(1, 25))]
        text = " ".join(words)
        starts = [sum(len(w) + 1 for w in words[:i]) for i in range(len(words))]
        spans, said = [], {}
        for _ in range(rng.randint(0, 4)):
            i = rng.randrange(len(words))
            j = min(len(words), i + rng.randint(1, 3))
            label = rng.choice("PQR")
            spans.append(
                {"start": starts[i], "end": starts[j - 1] + len(words[j - 1]), "label": label}
            )
        for s in spans:
            piece = text[s["start"] : s["end"]]
            if rng.random() < 0.6:
                piece = rng.choice([piece, piece.upper(), "the " + piece, piece + "."])
                said.setdefault(
                    rng.choice([s["label"]] * 3 + ["PQR"[rng.randrange(3)]]), []
                ).append(piece)
        for _ in range(rng.choice([0, 1, 2])):
            i = rng.randrange(len(words))
            said.setdefault(rng.choice("PQR"), []).append(" ".join(words[i : i + 2]))
        if rng.random() < 0.2:
            said.setdefault(rng.choice("PQR"), []).append("Zanzibar Ltd")
        gold.append({"id": str(d), "text": text, "spans": spans})
        pred.append({"id": str(d), "entities": said})
        for label in "PQR":
            golds = [text[s["start"] : s["end"]] for s in spans if s["label"] == label]
            queries.append((label, said.get(label, []), golds))
    return gold, pred, queries


@pytest.mark.parametrize("strategy", ["two_sided", "exact"])
def test_string_set_is_universal_ner(tmp_path, strategy):
    gold, pred, queries = _corpus(random.Random(40), 1000)
    for name, records in (("gold", gold), ("pred", pred)):
        (tmp_path / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    report = evaluate_files(tmp_path / "gold.jsonl", tmp_path / "pred.jsonl", strategy=strategy)
    scores = report.result.scores().grounding
    for label in [None, "P", "Q", "R"]:
        mine = scores.string_set(label)
        chosen = [q for q in queries if label in (None, q[0])]
        want = universal_ner([q[1] for q in chosen], [q[2] for q in chosen])
        assert mine.precision() == pytest.approx(want[0], abs=1e-9)
        assert mine.recall() == pytest.approx(want[1], abs=1e-9)
        assert mine.f() == pytest.approx(want[2], abs=1e-9)
    as_json = report.to_dict()["result"]["levels"]["labels"][0]["string_set"]
    assert "positions ignored" in as_json["scoring"]
    assert as_json["micro"]["precision"] == pytest.approx(
        universal_ner([q[1] for q in queries], [q[2] for q in queries])[0], abs=1e-9
    )
