"""Every registered input format is named where users look: GOLD's ``--help`` (built from
the registry) and docs/cli.md's list of formats (checked here against the registry)."""

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
