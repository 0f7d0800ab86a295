"""Building small spaCy docs for tests, in one place."""

from __future__ import annotations

import inspect

import spacy
from spacy.tokens import Doc
from spacy.tokens import Span as SpacySpan

from spacy_span_eval.adapters.scorers import make_ents_scorer, make_spans_scorer
from spacy_span_eval.adapters.spacy_docs import example_to_document, stored_doc_id

NLP = spacy.blank("en")


def make_doc(words, spaces=None, ents=None, spans=None):
    """A doc whose text is the words joined by single spaces unless ``spaces`` says otherwise;
    ``ents`` are IOB tags, ``spans`` maps a key to ``(start, end, label)`` token spans."""
    if spaces is None:
        spaces = [True] * (len(words) - 1) + [False]
    doc = Doc(NLP.vocab, words=words, spaces=spaces, ents=ents)
    for key, items in (spans or {}).items():
        doc.spans[key] = [SpacySpan(doc, s, e, label=lab) for s, e, lab in items]
    return doc


def _split(factory, kwargs):
    """``kwargs`` as the factory's settings and the rest, which a component passes along."""
    names = inspect.signature(factory).parameters
    settings = {k: v for k, v in kwargs.items() if k in names and k != "spans_key"}
    return settings, {k: v for k, v in kwargs.items() if k not in settings}


def score_ents(examples, **kwargs):
    """The ents scorer built from the settings in ``kwargs``, called with the rest."""
    settings, passed = _split(make_ents_scorer, kwargs)
    return make_ents_scorer(**settings)(examples, **passed)


def score_spans(examples, **kwargs):
    """The spans scorer built from the settings in ``kwargs``, called with the rest
    (``spans_key`` as a component passes it)."""
    settings, passed = _split(make_spans_scorer, kwargs)
    return make_spans_scorer(**settings)(examples, **passed)


def examples_to_documents(examples, *, source="ents", unit="char"):
    """Engine documents from examples, one at a time (the road the scorers' batch must
    equal); ids are the stored ones, else the position."""
    for i, eg in enumerate(examples):
        stored = stored_doc_id(eg.reference, eg.predicted)
        yield example_to_document(
            eg, source=source, unit=unit, doc_id=i if stored is None else stored
        )
