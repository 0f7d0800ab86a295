"""Settings say what must be equal to merge tallies, label map and hierarchy included; a
refused merge names the difference."""

from __future__ import annotations

import json
import pickle

import pytest

from spacy_span_eval import Document, Hierarchy, LabelMap, Settings, SpanEvaluator


def docs(unit: str = "char") -> list[Document]:
    return [
        Document.create(id="d", length=9, gold=[(0, 2, "PER")], pred=[(0, 2, "PERSON")], unit=unit)
    ]


BRANCH = {"PER": "ENTITY", "PERSON": "ENTITY", "LOC": "PLACE"}
# Every key of the settings' JSON form, in this order (a strategy's options among them).
SETTINGS_KEYS = [
    "strategy",
    "thresholds",
    "unit",
    "coverage",
    "one_to_one",
    "min_gold",
    "min_pred",
    "beta",
    "zero_division",
    "max_errors",
    "context",
    "levels",
    "per_document",
    "label_map",
    "hierarchy",
]


def tally(**settings):
    return SpanEvaluator(**settings).tally(docs(settings.get("unit", "char")))


def refusal(a, b) -> str:
    with pytest.raises(ValueError, match="cannot merge tallies") as info:
        _ = a + b
    return str(info.value)


def test_equal_maps_merge_whatever_object_holds_them():
    merged = tally(label_map={"PERSON": "PER"}) + tally(label_map=LabelMap({"PERSON": "PER"}))
    assert merged.result().per_label["PER"].tp == 2
    h1, h2 = Hierarchy({"branch": dict(BRANCH)}), Hierarchy({"branch": dict(BRANCH)})
    assert (tally(hierarchy=h1) + tally(hierarchy=h2)).n_documents == 2


@pytest.mark.parametrize(
    ("a", "b", "says"),
    [
        (
            {"label_map": {"PERSON": "PER"}},
            {"label_map": {"PERSON": "HUMAN"}},
            "label map: 'PERSON' -> 'PER' vs 'PERSON' -> 'HUMAN'",
        ),
        ({"label_map": {"PERSON": "PER"}}, {}, "label map: 1 entries vs none"),
        (
            {"label_map": {"PERSON": "PER", "X": "Y"}},
            {"label_map": {"PERSON": "PER"}},
            "label map: 'X' -> 'Y' vs 'X' not mapped",
        ),
        (
            {"label_map": {"PERSON": "PER"}, "strict_labels": True},
            {"label_map": {"PERSON": "PER"}},
            "label map: strict vs not strict",
        ),
        (
            {"hierarchy": Hierarchy({"branch": BRANCH})},
            {"hierarchy": Hierarchy({"branch": {**BRANCH, "PER": "HUMAN"}})},
            "hierarchy level 'branch': 'PER' -> 'ENTITY' vs 'PER' -> 'HUMAN'",
        ),
        ({"hierarchy": Hierarchy({"branch": BRANCH})}, {}, "hierarchy levels: ('branch',) vs none"),
        (
            {"hierarchy": Hierarchy({"branch": BRANCH, "binary": {"ENTITY": "PII"}}, strict=False)},
            {"hierarchy": Hierarchy({"binary": {"ENTITY": "PII"}, "branch": BRANCH}, strict=False)},
            "hierarchy levels: ('branch', 'binary') vs ('binary', 'branch')",
        ),
        ({"thresholds": (0.5,)}, {"thresholds": (0.5, 0.75)}, "thresholds: (0.5,) vs (0.5, 0.75)"),
        ({"coverage": "pooled"}, {}, "coverage: 'pooled' vs 'best'"),
        (
            {"strategy": "exact"},
            {},
            "strategy: 'exact' vs 'two_sided'; thresholds: (None,) vs (0.5,)",
        ),
    ],
)
def test_a_refused_merge_names_the_difference(a, b, says):
    message = refusal(tally(**a), tally(**b))
    assert message.endswith(says)
    assert "Settings(" not in message


def test_several_differences_are_all_named():
    message = refusal(tally(unit="char", label_map={"A": "B"}), tally(unit="token"))
    assert message.endswith(
        "unit: 'char' vs 'token'; context: 40 vs 6; label map: 1 entries vs none"
    )


def test_settings_compare_hash_and_pickle_with_maps():
    a = Settings(label_map={"PERSON": "PER"}, hierarchy=Hierarchy({"branch": BRANCH}))
    b = Settings(
        label_map=LabelMap({"PERSON": "PER"}),
        hierarchy=Hierarchy({"branch": dict(reversed(BRANCH.items()))}),
    )
    assert a == b and hash(a) == hash(b) and a.difference(b) is None
    assert pickle.loads(pickle.dumps(a)) == a
    assert a.levels == ("labels", "branch")
    assert a != Settings(label_map={"PERSON": "PER"})


def test_to_dict_adds_the_map_and_hierarchy_and_keeps_every_key():
    d = SpanEvaluator(
        label_map={"PERSON": "PER"}, hierarchy=Hierarchy({"branch": BRANCH})
    ).settings.to_dict()
    assert list(d) == SETTINGS_KEYS
    assert d["label_map"] == {"mapping": {"PERSON": "PER"}, "strict": False}
    assert d["hierarchy"] == {
        "levels": {"branch": {"LOC": "PLACE", "PER": "ENTITY", "PERSON": "ENTITY"}},
        "strict": True,
    }
    assert d["levels"] == ["labels", "branch"]
    json.dumps(d)
    plain = Settings().to_dict()
    assert plain["label_map"] is None and plain["hierarchy"] is None
