"""Every registered input format is named where users look: GOLD's ``--help`` (built from
the registry), docs/cli.md's list of formats and docs/json_schema.md's `format` values
(checked here against the registry)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from spacy_span_eval.readers.formats import FORMATS

from conftest import cli

DOCS = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


@pytest.mark.parametrize("command", ["evaluate", "gate", "report"])
def test_gold_help_names_every_format(command):
    code, out = cli(command, "--help")
    assert code == 0
    flat = " ".join(re.sub(r"[│╭╮╰╯─]", " ", out).split())
    for fmt in FORMATS.values():
        assert fmt.shown in flat, fmt.name


def test_the_docs_list_every_format_by_name_and_title():
    text = DOCS.read_text(encoding="utf-8")
    listed = re.search(r"<!-- formats: (.*?) -->", text)
    assert listed is not None
    assert listed.group(1).split() == list(FORMATS)
    flat = " ".join(text.split())
    for fmt in FORMATS.values():
        assert f"{fmt.shown} (`{fmt.name}`)" in flat, fmt.name


def test_the_json_schema_lists_every_format_a_report_can_name():
    text = (DOCS.parent / "json_schema.md").read_text(encoding="utf-8")
    (row,) = [line for line in text.splitlines() if line.startswith("| `….format` |")]
    named = [n for n in re.findall(r"`([\w-]+)`", row.split("|")[2]) if n != "--model"]
    assert named == [*FORMATS, "model", "demo"]
