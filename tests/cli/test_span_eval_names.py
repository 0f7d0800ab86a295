"""A ``span_eval`` component may not take a name whose score keys would read as another
scorer's (``ents_exact`` would write ``ents_exact_f``, the ents scorer's key)."""

from __future__ import annotations

import pytest

spacy = pytest.importorskip("spacy")


@pytest.mark.parametrize(
    "name, owner",
    [
        ("ents_exact", "ents scorers"),
        ("ents_iou", "ents scorers"),
        ("ents", "ents scorers"),
        ("ents_per", "ents scorers"),  # would write ents_per_type, spaCy's own key
        ("spans_sc", "span-group scorers"),
        ("spans", "span-group scorers"),
        ("token", "tokenization"),
        ("sents", "sentence"),
    ],
)
def test_a_name_like_a_scorers_key_prefix_is_refused_at_add_pipe(name, owner):
    nlp = spacy.blank("en")
    with pytest.raises(ValueError) as info:
        nlp.add_pipe("span_eval", name=name)
    message = str(info.value)
    assert f"span_eval component name {name!r}" in message
    assert owner in message and f"{name}_f" in message
    assert "iou" in message and "exact" in message  # the registered strategies' infixes
    assert name not in nlp.pipe_names


@pytest.mark.parametrize("name", ["span_eval", "iou_check", "sc_eval", "eval_ents", "entsx"])
def test_other_names_are_fine(name):
    nlp = spacy.blank("en")
    nlp.add_pipe("span_eval", name=name)
    assert name in nlp.pipe_names
