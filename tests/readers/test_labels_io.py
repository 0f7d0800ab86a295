"""Label-map and hierarchy files in JSON, YAML and .cfg, and their use in scoring."""

from __future__ import annotations

import re

import pytest

from spacy_span_eval import Document, InvalidInputError, SpanEvaluator, UnknownLabelError
from spacy_span_eval.readers.settings_files import (
    load_hierarchy,
    load_label_map,
    read_settings_file,
)

LABEL_MAP = {
    ".json": '{"PER": "PERSON", "PERSON": "PERSON", "GPE": "LOCATION", "LOC": "LOCATION"}',
    ".yaml": "PER: PERSON\nPERSON: PERSON\nGPE: LOCATION\nLOC: LOCATION\n",
    ".yml": "PERSON: [PER, PERSON]\nLOCATION: [GPE, LOC]\n",
    ".cfg": '[label_map]\nPER = "PERSON"\nPERSON = "PERSON"\nLOCATION = ["GPE", "LOC"]\n',
}
HIERARCHY = {
    ".json": '{"branch": {"PERSON": "identity", "EMAIL": "contact", "PHONE": "contact"},'
    ' "binary": {"identity": "PII", "contact": "PII"}}',
    ".yaml": "hierarchy:\n  branch: {PERSON: identity, EMAIL: contact, PHONE: contact}\n"
    "  binary:\n    PII: [identity, contact]\n",
    ".cfg": '[hierarchy]\n[hierarchy.branch]\nPERSON = "identity"\nEMAIL = "contact"\n'
    'PHONE = "contact"\n[hierarchy.binary]\nidentity = "PII"\ncontact = "PII"\n',
}


def write(tmp_path, suffix, text, stem="file"):
    path = tmp_path / f"{stem}{suffix}"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("suffix", sorted(LABEL_MAP))
def test_label_map_formats_agree(tmp_path, suffix):
    label_map = load_label_map(write(tmp_path, suffix, LABEL_MAP[suffix]))
    assert label_map("PER") == "PERSON" and label_map("GPE") == "LOCATION"
    assert label_map("LOC") == "LOCATION" and label_map("OTHER") == "OTHER"


def test_strict_label_map_rejects_unknown_labels(tmp_path):
    label_map = load_label_map(write(tmp_path, ".json", LABEL_MAP[".json"]), strict=True)
    assert label_map("LOCATION") == "LOCATION"  # canonical names are known too
    with pytest.raises(UnknownLabelError, match="'MISC' is not in the strict label map"):
        label_map("MISC")


@pytest.mark.parametrize("suffix", sorted(HIERARCHY))
def test_hierarchy_formats_agree_and_chain_levels(tmp_path, suffix):
    hierarchy = load_hierarchy(write(tmp_path, suffix, HIERARCHY[suffix]))
    assert list(hierarchy.levels) == ["branch", "binary"]
    assert hierarchy.project("branch", "EMAIL") == "contact"
    assert hierarchy.project("binary", "EMAIL") == "PII"
    assert hierarchy.project("binary", "PERSON") == "PII"


def test_hierarchy_scores_every_level(tmp_path):
    hierarchy = load_hierarchy(write(tmp_path, ".json", HIERARCHY[".json"]))
    doc = Document.create(
        id="d",
        length=20,
        gold=[(0, 4, "PERSON"), (5, 9, "EMAIL")],
        pred=[(0, 4, "PERSON"), (5, 9, "PHONE")],
    )
    result = SpanEvaluator(strategy="exact", hierarchy=hierarchy).evaluate([doc])
    assert result.scores(level="labels").micro.tp == 1
    assert result.scores(level="branch").per_label["contact"].tp == 1
    assert result.scores(level="binary").per_label["PII"].tp == 2


@pytest.mark.parametrize(
    "suffix,text,why",
    [
        (".json", '{"PER": "PERSON",', "cannot parse JSON"),
        (".json", '["PER"]', "expected a mapping"),
        (".json", "{}", "label map is empty"),
        (".json", '{"PER": 3}', "must map label names"),
        (".json", '{"PER": "PERSON", "LOCATION": ["PER"]}', "maps to both"),
        (".yaml", "PER: [unclosed", "cannot parse YAML"),
        (".cfg", "PER = PERSON\n", "cannot parse CFG"),
        (".cfg", '[labels]\nPER = "PERSON"\n', "expected one [label_map] section"),
        (".toml", "PER = 'PERSON'", "unknown settings file type '.toml'"),
    ],
)
def test_bad_label_map_files_name_the_file(tmp_path, suffix, text, why):
    path = write(tmp_path, suffix, text, stem="labels")
    with pytest.raises(InvalidInputError, match=re.escape(why)) as info:
        load_label_map(path)
    assert str(info.value).startswith(str(path)) and why in str(info.value)


@pytest.mark.parametrize(
    "text,why",
    [
        (
            '{"branch": {"PERSON": "identity"}, "binary": {"contact": "PII"}}',
            "level 'binary' has no parent for 'identity' (reached from 'PERSON')",
        ),
        ('{"labels": {"PERSON": "x"}}', "level name 'labels' is not allowed"),
        ("{}", "no levels"),
    ],
)
def test_bad_hierarchy_files_name_file_level_and_label(tmp_path, text, why):
    path = write(tmp_path, ".json", text, stem="tree")
    with pytest.raises(InvalidInputError, match=re.escape(why)) as info:
        load_hierarchy(path)
    assert str(path) in str(info.value) and why in str(info.value)


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.json"):
        read_settings_file(tmp_path / "nope.json")
