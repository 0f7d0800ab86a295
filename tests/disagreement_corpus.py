"""A small corpus, two systems' JSONL predictions on it and the disagreements between them
worked out by hand (``tests/jobs/test_disagreements.py``, the browser test of the compare
page)."""

from __future__ import annotations

import json
from pathlib import Path

DOCS = {
    "d1": "Ann Lee met Bob at Acme Corp today.",
    "d2": "Paris and Rome are far from Oslo.",
    "d3": "Mia works at Zeta.",
    "d4": "Kai left.",
}
GOLD = {
    "d1": [("Ann Lee", "PER"), ("Bob", "PER"), ("Acme Corp", "ORG")],
    "d2": [("Paris", "LOC"), ("Rome", "LOC"), ("Oslo", "LOC")],
    "d3": [("Mia", "PER"), ("Zeta", "ORG")],
    "d4": [("Kai", "PER")],
}
# A: misses Bob, calls Rome a PER, misses Zeta and Kai.
PRED_A = {
    "d1": [("Ann Lee", "PER"), ("Acme Corp", "ORG")],
    "d2": [("Paris", "LOC"), ("Rome", "PER"), ("Oslo", "LOC")],
    "d3": [("Mia", "PER")],
    "d4": [],
}
# B: "Ann" for "Ann Lee" (IoU 3/7 < 0.5), misses Paris, Mia and Kai.
PRED_B = {
    "d1": [("Ann", "PER"), ("Bob", "PER"), ("Acme Corp", "ORG")],
    "d2": [("Rome", "LOC"), ("Oslo", "LOC")],
    "d3": [("Zeta", "ORG")],
    "d4": [],
}
# Worked by hand, gold span by gold span:
#   Ann Lee A, Bob B, Acme both | Paris A, Rome B, Oslo both | Mia A, Zeta B | Kai neither
EXPECTED = {
    "PER": {"a_only": 2, "b_only": 1, "both": 0, "neither": 1},
    "LOC": {"a_only": 1, "b_only": 1, "both": 1, "neither": 0},
    "ORG": {"a_only": 0, "b_only": 1, "both": 1, "neither": 0},
}


def _write(path, spans_of):
    lines = []
    for doc_id, text in DOCS.items():
        spans = []
        for surface, label in spans_of[doc_id]:
            start = text.index(surface)
            spans.append({"start": start, "end": start + len(surface), "label": label})
        lines.append(json.dumps({"id": doc_id, "text": text, "spans": spans}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_files(out: Path) -> tuple[Path, Path, Path]:
    """Gold, A and B as JSONL files in ``out``."""
    return (
        _write(out / "gold.jsonl", GOLD),
        _write(out / "a.jsonl", PRED_A),
        _write(out / "b.jsonl", PRED_B),
    )
