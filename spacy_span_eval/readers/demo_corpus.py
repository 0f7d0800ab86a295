"""The embedded demo corpus: PII-like sentences generated deterministically from templates.

Written by this project (no download, no third-party text), so the demo and the workflow run
offline on a fresh machine. ``gold_documents`` gives annotated sentences; ``recognizer`` plays
a plausible imperfect model (boundary slips, label swaps, misses, spurious spans) so the
scores are interesting without training anything.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..engine.spans import Span

LABELS: tuple[str, ...] = ("PERSON", "EMAIL", "PHONE", "LOCATION", "DATE", "ORG")

_FIRST = [
    "Ana",
    "Bram",
    "Chen",
    "Dalia",
    "Emeka",
    "Farah",
    "Goran",
    "Hana",
    "Ivo",
    "Jun",
    "Kofi",
    "Lena",
    "Mateo",
    "Nadia",
    "Oskar",
    "Priya",
    "Quinn",
    "Rosa",
    "Sami",
    "Tomas",
]
_LAST = [
    "Alvarez",
    "Berg",
    "Costa",
    "Dubois",
    "Eriksen",
    "Fischer",
    "Garcia",
    "Haddad",
    "Ito",
    "Jensen",
    "Kowalski",
    "Larsen",
    "Moreau",
    "Novak",
    "Okafor",
    "Petrov",
]
_CITY = [
    "Lisbon",
    "Tampere",
    "Rotterdam",
    "Porto Alegre",
    "Cork",
    "Graz",
    "Kraków",
    "Leeds",
    "New Haven",
    "San Sebastián",
    "Aarhus",
    "Brno",
]
_STREET = ["Elm Street", "Harbour Road", "Mill Lane", "Kingsway", "Station Road", "Rue Verte"]
_ORG = [
    "Northwind Ltd",
    "Acme Health",
    "Bluefin Bank",
    "Orchid Labs",
    "Civic Insurance",
    "Greenline Transit",
    "Harbor & Co",
]
_MONTH = ["January", "March", "May", "July", "September", "November"]

_TEMPLATES = [
    "Please send the invoice to {PERSON} at {EMAIL} before {DATE} .",
    "{PERSON} moved from {LOCATION} to {LOCATION} in {DATE} .",
    "Call {PERSON} on {PHONE} about the claim with {ORG} .",
    "The account of {PERSON} was opened at {ORG} in {LOCATION} on {DATE} .",
    "Contact: {EMAIL} , phone {PHONE} , office {LOCATION} .",
    "{ORG} confirmed that {PERSON} lives at {LOCATION} .",
    "Reminder for {PERSON} : appointment on {DATE} , questions to {PHONE} .",
    "I met {PERSON} and {PERSON} from {ORG} last week .",
]
# Only in held-out splits: a trained model must generalise to new phrasings and new names.
_HELD_OUT_TEMPLATES = [
    "Forwarding this to {EMAIL} ; {PERSON} ( {ORG} ) will call back on {DATE} .",
    "Ship to {LOCATION} , attention {PERSON} , tel {PHONE}",
    "On {DATE} {PERSON} wrote from {EMAIL} asking about {ORG} .",
]


@dataclass(frozen=True)
class DemoSentence:
    id: str
    text: str
    spans: tuple[Span, ...]


def _pool(values: list[str], narrow: bool) -> list[str]:
    """A training split draws from the first three quarters of each pool, so the last quarter
    stays unseen until dev and test."""
    return values[: max(1, len(values) * 3 // 4)] if narrow else values


def _fill(label: str, rng: random.Random, narrow: bool = False) -> str:
    first, last = _pool(_FIRST, narrow), _pool(_LAST, narrow)
    if label == "PERSON":
        return f"{rng.choice(first)} {rng.choice(last)}"
    if label == "EMAIL":
        return f"{rng.choice(first).lower()}.{rng.choice(last).lower()}@example.org"
    if label == "PHONE":
        return f"+{rng.randint(30, 49)} {rng.randint(100, 999)} {rng.randint(1000, 9999)}"
    if label == "LOCATION":
        if rng.random() < 0.4:
            return (
                f"{rng.randint(1, 99)} {rng.choice(_pool(_STREET, narrow))} , "
                f"{rng.choice(_pool(_CITY, narrow))}"
            )
        return rng.choice(_pool(_CITY, narrow))
    if label == "DATE":
        return f"{rng.randint(1, 28)} {rng.choice(_MONTH)} {rng.randint(2015, 2026)}"
    return rng.choice(_pool(_ORG, narrow))


def gold_documents(
    n: int = 400, *, seed: int = 13, split: str | None = None
) -> Iterator[DemoSentence]:
    """``n`` annotated sentences (character offsets), the same for the same seed.

    ``split="train"`` keeps a quarter of the names and places out; ``split="heldout"`` uses
    them and adds phrasings training never sees, as dev and test splits should.
    """
    if split not in (None, "train", "heldout"):
        raise ValueError(f"split must be None, 'train' or 'heldout', not {split!r}")
    rng = random.Random(seed)
    templates = _TEMPLATES + (_HELD_OUT_TEMPLATES if split == "heldout" else [])
    narrow = split == "train"
    prefix = split or "demo"
    for i in range(n):
        template = rng.choice(templates)
        text, spans, rest = "", [], template
        while "{" in rest:
            before, _, tail = rest.partition("{")
            label, _, rest = tail.partition("}")
            text += before
            value = _fill(label, rng, narrow)
            spans.append(Span(len(text), len(text) + len(value), label))
            text += value
        text += rest
        yield DemoSentence(f"{prefix}-{i:04d}", text, tuple(spans))


def recognizer(sentence: DemoSentence, *, seed: int = 7) -> tuple[Span, ...]:
    """A deterministic imperfect "model": what a rule-based PII recognizer might emit."""
    rng = random.Random(f"{seed}:{sentence.id}")
    text, out = sentence.text, []
    for span in sentence.spans:
        r = rng.random()
        if r < 0.07:
            continue  # missed: the leak a PII team fears
        start, end, label = span.start, span.end, span.label
        if r < 0.17 and " " in text[start:end]:
            end = start + text[start:end].rindex(" ")  # cut short at a word boundary
        elif r < 0.22:
            label = rng.choice([x for x in LABELS if x != label])  # wrong label
        elif r < 0.27 and end + 2 < len(text):
            end = min(len(text), text.find(" ", end + 1) if " " in text[end + 1 :] else len(text))
        out.append(Span(start, end, label))
    if rng.random() < 0.1:
        words = [i for i, ch in enumerate(text) if ch == " "]
        if len(words) > 2:
            a = rng.choice(words[:-1]) + 1
            b = text.find(" ", a)
            if b > a and not any(s.start < b and a < s.end for s in out):
                out.append(Span(a, b, rng.choice(LABELS)))  # spurious
    return tuple(sorted(out))


# The workflow's splits: (seed, size, split kind). Dev and test hold phrasings and names that
# training never sees.
SPLITS: dict[str, tuple[int, int, str]] = {
    "train": (13, 800, "train"),
    "dev": (14, 200, "heldout"),
    "test": (15, 300, "heldout"),
}


def split_records(split: str) -> list[dict[str, object]]:
    """One split as JSONL records (``id``, ``text``, ``spans``), the shape the readers take."""
    seed, size, kind = SPLITS[split]
    return [
        {
            "id": f"{split}-{s.id}",
            "text": s.text,
            "spans": [{"start": x.start, "end": x.end, "label": x.label} for x in s.spans],
        }
        for s in gold_documents(size, seed=seed, split=kind)
    ]


def write_splits(folder: Path | str) -> list[Path]:
    """Write ``train.jsonl``, ``dev.jsonl`` and ``test.jsonl`` into ``folder``."""
    import srsly  # (slow to import: only the workflow's splits need it)

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"{split}.jsonl" for split in SPLITS]
    for path, split in zip(paths, SPLITS, strict=True):
        srsly.write_jsonl(path, split_records(split))
    return paths
