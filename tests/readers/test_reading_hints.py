"""Hints about how the inputs were read, through the CLI: IOB1-looking files, a spaCy
pipeline given where annotated documents belong, and ``--labels`` that name nothing found."""

from __future__ import annotations

import pytest

from conftest import cli, data_path

IOB1 = "Alice I-PER\nsmiled O\nat O\nAcme I-ORG\nCorp I-ORG\n\nBob I-PER\nleft O\n\n"
IOB1_HINT = "read with --scheme IOB1?"
IOB2 = (
    IOB1.replace("Alice I-", "Alice B-").replace("Acme I-", "Acme B-").replace("Bob I-", "Bob B-")
)


def test_iob1_looking_files_get_a_hint_with_the_repair_count(tmp_path):
    path = tmp_path / "iob1.conll"
    path.write_text(IOB1, encoding="utf-8")
    code, out = cli("evaluate", path, path)
    assert code == 0, out
    assert "hint: gold: 3 of 3 chunks were repaired (most open with I-" in out
    assert IOB1_HINT in out
    code, out = cli("evaluate", path, path, "--scheme", "IOB1")
    assert code == 0, out
    assert IOB1_HINT not in out


@pytest.mark.parametrize(
    ("text", "options", "hint"),
    [
        # IOB2 read as IOB1: its B- openings are the repairs; IOB1 is what was asked for
        (IOB2, ("--scheme", "IOB1"), None),
        # another scheme: reading it as IOB1 would not help
        (IOB1, ("--scheme", "IOE2"), None),
        # two of three chunks open with I-: two of the three chunks read, the third kept
        (IOB1.replace("Bob I-", "Bob B-"), (), "2 of 3 chunks"),
        (IOB1.replace("Bob I-", "Bob B-"), ("--repair", "discard"), "2 of 3 chunks"),
    ],
)
def test_the_iob1_hint_fires_only_where_it_helps_and_counts_the_chunks_read(
    tmp_path, text, options, hint
):
    path = tmp_path / "tags.conll"
    path.write_text(text, encoding="utf-8")
    code, out = cli("evaluate", path, path, *options)
    assert code == 0, out
    if hint is None:
        assert IOB1_HINT not in out
    else:
        assert f"hint: gold: {hint} were repaired" in out and IOB1_HINT in out


def test_iob2_files_get_no_iob1_hint(tmp_path):
    path = tmp_path / "iob2.conll"
    path.write_text(IOB1.replace("Alice I-", "Alice B-").replace("Acme I-", "Acme B-"), "utf-8")
    code, out = cli("evaluate", path, path)
    assert code == 0, out
    assert IOB1_HINT not in out  # one chunk of three repaired: not most


@pytest.mark.parametrize(
    ("parts", "chunks"),
    [(("wikigold", "wikigold.conll.txt"), "3,558"), (("sec_filings", "FIN3.test.txt"), "318")],
)
def test_the_shared_iob1_corpora_get_the_hint(parts, chunks):
    path = data_path(*parts)
    code, out = cli("evaluate", path, path)
    assert code == 0, out
    assert f"hint: gold: {chunks} of {chunks} chunks were repaired" in out


@pytest.mark.parametrize("where", ["gold", "predictions"])
def test_a_spacy_pipeline_folder_where_documents_belong_says_use_model(tmp_path, where):
    pipeline = tmp_path / "model-best"
    pipeline.mkdir()
    (pipeline / "config.cfg").write_text('[nlp]\nlang = "en"\n', encoding="utf-8")
    (pipeline / "meta.json").write_text('{"lang": "en", "name": "pipeline"}', encoding="utf-8")
    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"text": "Bob", "spans": [{"start": 0, "end": 3, "label": "PER"}]}\n')
    args = (pipeline, gold) if where == "gold" else (gold, pipeline)
    code, out = cli("evaluate", *args)
    assert code == 2
    assert "this is a spaCy pipeline" in out and f"--model {pipeline}" in out


def test_labels_found_in_neither_file_are_named_with_the_labels_found(tmp_path):
    gold = tmp_path / "gold.jsonl"
    gold.write_text(
        '{"text": "Bob met Ann.", "spans": [{"start": 0, "end": 3, "label": "PER"}, '
        '{"start": 8, "end": 11, "label": "PER"}]}\n',
        encoding="utf-8",
    )
    pred = tmp_path / "pred.jsonl"
    pred.write_text(
        '{"text": "Bob met Ann.", "spans": [{"start": 0, "end": 3, "label": "ORG"}]}\n',
        encoding="utf-8",
    )
    code, out = cli("evaluate", gold, pred, "--labels", "PERSON")
    assert code == 2
    assert "--labels PERSON: found in neither gold nor predictions" in out
    assert "ORG (1), PER (2)" in out
    assert "nothing to evaluate" not in out


def test_the_report_command_gives_the_iob1_hint_too(tmp_path):
    path = tmp_path / "iob1.conll"
    path.write_text(IOB1, encoding="utf-8")
    code, out = cli("report", path, path, "-o", tmp_path / "report.html")
    assert code == 0, out
    assert out.count("hint: gold: 3 of 3 chunks were repaired") == 1


def test_the_compare_command_gives_the_iob1_hint_once_for_gold(tmp_path):
    path = tmp_path / "iob1.conll"
    path.write_text(IOB1, encoding="utf-8")
    code, out = cli("compare", path, path, path, "--resamples", "20")
    assert code == 0, out
    assert out.count("hint: gold: 3 of 3 chunks were repaired") == 1
