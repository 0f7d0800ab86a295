"""Building small spaCy docs for tests, in one place."""

from __future__ import annotations

import spacy
from spacy.tokens import Doc
from spacy.tokens import Span as SpacySpan

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
