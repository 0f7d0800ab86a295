"""``--per-document FILE`` is written while its rows are made, a chunk of whole lines at a
time, from the stored per-document counts; the file is what rendering every row at once
gives."""

from __future__ import annotations

import csv
import io
import json
import os

import pytest

from spacy_span_eval.api import evaluate_files
from spacy_span_eval.engine.tidy import DOCUMENT_COLUMNS
from spacy_span_eval.jobs import outputs
from spacy_span_eval.render import documents as documents_module


def write_pair(tmp_path, n=120):
    gold, pred = tmp_path / "gold.conll", tmp_path / "pred.conll"
    tags = ["B-PER", "O", "B-LOC", "I-LOC", "O", "B-ORG"]
    guesses = ["B-PER", "O", "B-ORG", "O", "B-MISC", "B-ORG"]
    with open(gold, "w") as g, open(pred, "w") as p:
        for i in range(n):
            for k in range(6):
                g.write(f"w{(i * 7 + k) % 23}\t{tags[(i + k) % 6]}\n")
                p.write(f"w{(i * 7 + k) % 23}\t{guesses[(i * k) % 6]}\n")
            g.write("\n")
            p.write("\n")
    return gold, pred


def all_at_once(result, fmt):
    """The oracle: every row made first, then the file's text (no streaming)."""
    rows = result.document_rows()
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(DOCUMENT_COLUMNS), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        return out.getvalue()
    lines, current = [], None
    for row in rows:
        body = {k: v for k, v in row.items() if k not in ("row", "label")}
        if row["row"] == "document":
            if current is not None:
                lines.append(json.dumps(current, ensure_ascii=False))
            current = {**body, "per_label": {}}
        else:
            current["per_label"][row["label"]] = {
                k: v for k, v in body.items() if k not in ("document", "threshold")
            }
    lines.append(json.dumps(current, ensure_ascii=False))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("suffix,fmt", [(".jsonl", "jsonl"), (".csv", "csv")])
def test_the_streamed_file_is_the_rows_rendered_at_once(tmp_path, monkeypatch, suffix, fmt):
    monkeypatch.setattr(documents_module, "_CHUNK_CHARS", 512)  # many chunks
    gold, pred = write_pair(tmp_path)
    target = tmp_path / f"docs{suffix}"
    report = evaluate_files(gold, pred, per_document=target, thresholds=(0.5, 1.0))
    text = target.read_text(encoding="utf-8")
    assert text == all_at_once(report.result, fmt)
    chunks = documents_module.per_document_chunks(report.result.document_rows(), fmt)
    assert b"".join(chunks).decode("utf-8") == text
    lines = len(text.splitlines())
    assert lines == 240 if fmt == "jsonl" else lines > 240  # 120 documents x 2 thresholds


def test_rows_reach_the_file_before_the_last_is_made(tmp_path, monkeypatch):
    """While the chunks are made, the earlier ones are already in the (temporary) file."""
    monkeypatch.setattr(documents_module, "_CHUNK_CHARS", 256)
    gold, pred = write_pair(tmp_path)
    seen: list[int] = []
    original = documents_module.per_document_chunks

    def watched(rows, fmt):
        for i, chunk in enumerate(original(rows, fmt)):
            if i == 3:
                parts = [f for f in os.listdir(tmp_path) if f.endswith(".part")]
                seen.extend(os.path.getsize(tmp_path / f) for f in parts)
            yield chunk

    monkeypatch.setattr(documents_module, "per_document_chunks", watched)
    evaluate_files(gold, pred, per_document=tmp_path / "docs.jsonl")
    assert seen and seen[0] > 0  # three chunks written when the fourth was made
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".part")]


def test_a_stream_that_fails_leaves_no_file(tmp_path):
    def chunks():
        yield b'{"document": "d0"}\n'
        raise RuntimeError("stopped")

    with pytest.raises(RuntimeError):
        outputs.write_atomic(tmp_path / "docs.jsonl", chunks(), "per-document ledgers")
    assert os.listdir(tmp_path) == []
