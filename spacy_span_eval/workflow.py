"""The ``convert`` step of the project workflow: gold files (or the embedded demo) to DocBins.

``spacy train`` reads ``.spacy`` files. This step writes ``train.spacy``, ``dev.spacy`` and
``test.spacy`` from any input the readers understand (CoNLL/BIO, JSONL, presidio JSON, DocBin) or
from the embedded demo corpus (``demo``), so the same workflow runs offline on a fresh machine
and, with other ``vars``, on real data. Nothing is dropped silently: spans that cannot be set on
spaCy tokens are counted and printed with the first few reasons.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path

from .demo_corpus import gold_documents
from .readers import ReadOptions, read
from .spans import Span

DEMO = "demo"
# The embedded demo's splits: (seed, size, held out). Dev and test hold phrasings and names
# that training never sees.
DEMO_SPLITS: dict[str, tuple[int, int, str]] = {"train": (13, 800, "train"),
                                                "dev": (14, 200, "heldout"),
                                                "test": (15, 300, "heldout")}


@dataclass
class SplitReport:
    """What converting one split did, for the log (and for tests)."""

    documents: int = 0
    spans: int = 0
    problems: Counter = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)

    def note(self, reason: str, where: str) -> None:
        self.problems[reason] += 1
        if len(self.examples) < 5:
            self.examples.append(f"{where}: {reason}")


def _items(source: str, split: str, options: ReadOptions
           ) -> Iterator[tuple[str, str | None, tuple[str, ...] | None, tuple[Span, ...]]]:
    """``(id, text, tokens, spans)`` per document of one split."""
    if source == DEMO:
        seed, size, kind = DEMO_SPLITS[split]
        for s in gold_documents(size, seed=seed, split=kind):
            yield f"{split}-{s.id}", s.text, None, s.spans
        return
    for record in read(source, None, options):
        if record.doc is not None:
            yield record.id or record.key, record.doc.text, None, _doc_spans(record.doc)
        else:
            yield record.id or record.key, record.text, record.tokens, record.spans


def _doc_spans(doc) -> tuple[Span, ...]:
    return tuple(Span(e.start_char, e.end_char, e.label_) for e in doc.ents)


def convert_split(source: str, split: str, output: Path, *, limit: int | None = None,
                  options: ReadOptions | None = None, lang: str = "en") -> SplitReport:
    """Write ``output`` (a ``.spacy`` file) from one split of ``source``."""
    import spacy
    from spacy.tokens import Doc, DocBin
    from spacy.tokens import Span as SpacySpan
    from spacy.util import filter_spans

    from .spacy_docs import DOC_ID_KEY

    nlp = spacy.blank(lang)
    report = SplitReport()
    docbin = DocBin(store_user_data=True)
    for doc_id, text, tokens, spans in islice(_items(source, split, options or ReadOptions()),
                                              limit):
        where = f"{source} {doc_id}"
        if tokens is not None:
            words = [t or "_" for t in tokens]
            if any(not t for t in tokens):
                report.note("empty token written as '_'", where)
            doc = Doc(nlp.vocab, words=words)
            ents = [SpacySpan(doc, s.start, s.end, label=s.label) for s in spans]
        else:
            doc = nlp.make_doc(text or "")
            ents = []
            for s in spans:
                span = doc.char_span(s.start, s.end, label=s.label, alignment_mode="strict")
                if span is None:
                    report.note("span does not fall on token boundaries; not set", where)
                else:
                    ents.append(span)
        kept = filter_spans(ents)
        for _ in range(len(ents) - len(kept)):
            report.note("overlapping span kept in doc.spans['sc'] only", where)
        doc.spans["sc"] = ents
        doc.ents = kept
        doc.user_data[DOC_ID_KEY] = doc_id
        docbin.add(doc)
        report.documents += 1
        report.spans += len(spans)
    output.parent.mkdir(parents=True, exist_ok=True)
    docbin.to_disk(output)
    return report


def convert(*, train: str, dev: str, test: str, output: Path, limit: int | None = None,
            options: ReadOptions | None = None, lang: str = "en") -> dict[str, SplitReport]:
    """Convert the three splits; ``demo`` for any of them means the embedded corpus."""
    return {split: convert_split(source, split, output / f"{split}.spacy", limit=limit,
                                 options=options, lang=lang)
            for split, source in (("train", train), ("dev", dev), ("test", test))}


def main(argv: list[str] | None = None) -> int:
    """``python -m spacy_span_eval.workflow convert``: the project's convert step."""
    import typer
    from wasabi import msg

    app = typer.Typer(add_completion=False)

    @app.command()
    def convert_cmd(
        train: str = typer.Option(DEMO, help="Train file, or 'demo' for the embedded corpus"),
        dev: str = typer.Option(DEMO, help="Dev file, or 'demo'"),
        test: str = typer.Option(DEMO, help="Test file, or 'demo'"),
        output: str = typer.Option("corpus", help="Folder for train/dev/test.spacy"),
        limit: int = typer.Option(0, min=0, help="At most this many documents per split "
                                  "(0: all)"),
        scheme: str = typer.Option("IOB2", help="CoNLL tag scheme"),
        lang: str = typer.Option("en", help="Language of the blank tokenizer"),
    ) -> None:
        reports = convert(train=train, dev=dev, test=test, output=Path(output),
                          limit=limit or None, options=ReadOptions(scheme=scheme), lang=lang)
        for split, r in reports.items():
            msg.good(f"{split}: {r.documents} documents, {r.spans} spans -> "
                     f"{Path(output) / (split + '.spacy')}")
            for reason, n in sorted(r.problems.items()):
                msg.warn(f"{split}: {n} x {reason}")
            for example in r.examples:
                msg.text(f"  e.g. {example}")

    return app(argv, standalone_mode=True)


if __name__ == "__main__":
    main()
