"""The ``demo`` job: score the embedded demo corpus against its recognizer and gate it.

Needs no download: the corpus and its imperfect recognizer are generated in code
(:mod:`spacy_span_eval.readers.demo_corpus`).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from ..engine.gates import Floors, check_gate
from ..engine.spans import Document
from ..readers.align import SideInfo
from ..readers.demo_corpus import gold_documents, recognizer
from ..readers.settings_files import load_floors, read_settings_file
from .evaluate import Report
from .options import ScoringOptions

__all__ = ["DEMO_THRESHOLDS", "demo", "demo_floors_path"]

DEMO_THRESHOLDS = (0.5, 0.75, 1.0)


def demo_floors_path() -> Path:
    return Path(str(resources.files("spacy_span_eval") / "data" / "demo_floors.json"))


def demo(*, floors: Floors | Path | str | None = None, errors: int = 0) -> Report:
    """Score the embedded demo corpus (two_sided at 0.5, 0.75, 1.0) and gate it."""
    if floors is None:
        gate = Floors.from_dict(
            read_settings_file(demo_floors_path()), source="built-in demo_floors.json"
        )
    else:
        gate = floors if isinstance(floors, Floors) else load_floors(floors)
    docs = (
        Document.create(id=s.id, text=s.text, gold=s.spans, pred=recognizer(s))
        for s in gold_documents()
    )
    scoring = ScoringOptions(strategy="two_sided", thresholds=DEMO_THRESHOLDS, errors=errors)
    result = scoring.evaluator("char").evaluate(docs)
    micro = result.scores().micro
    inputs = {
        side: SideInfo(name, "demo", result.n_documents, spans).to_dict()
        for side, name, spans in (
            ("gold", "built-in demo corpus", micro.num_annotated),
            ("predicted", "built-in demo recognizer", micro.num_predicted),
        )
    }
    report = Report("demo", result, inputs)
    report.verdict = check_gate(result, gate)
    return report
