"""``span_eval``: a pipeline component that only scores, so any pipeline reports two-sided figures.

It leaves docs untouched. Add it to a trained or pretrained pipeline and ``nlp.evaluate`` or
``spacy evaluate`` report two-sided figures for the chosen source without retraining. Its keys
are named after the component (``span_eval_f`` by default; layout as the scorers' ``replace``
mode), so it never overwrites the keys of the component that produced the spans.
"""

from collections.abc import Iterable, Iterator
from typing import Any

from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example

from .scorers import check_settings, score_source

__all__ = ["SpanEvalComponent", "make_span_eval"]

FACTORY = "span_eval"


class SpanEvalComponent:
    """Scores ``source`` (``"ents"`` or a spans key) in :meth:`score`; ``__call__`` is a no-op."""

    def __init__(
        self,
        name: str = FACTORY,
        *,
        source: str = "ents",
        strategy: str = "two_sided",
        thresholds: Iterable[float] = (0.5,),
        beta: float = 1.0,
        unit: str = "char",
        label_map: dict[str, str] | None = None,
    ) -> None:
        self.name = name
        self.source = source
        self.settings: dict[str, Any] = {
            "strategy": strategy, "thresholds": tuple(thresholds), "beta": beta, "unit": unit,
            "label_map": dict(label_map) if label_map else None}
        check_settings(mode="replace", **self.settings)

    def __call__(self, doc: Doc) -> Doc:
        return doc

    def pipe(self, docs: Iterable[Doc], *, batch_size: int = 128) -> Iterator[Doc]:
        yield from docs

    def score(self, examples: Iterable[Example], **kwargs: Any) -> dict[str, Any]:
        """Figures under ``{name}_p/_r/_f/_per_type`` (strategy) and ``{name}_exact_...``.

        ``kwargs`` (whatever ``Scorer`` passes to every component) do not change the figures.
        """
        return score_source(examples, source=self.source, attr=self.name, mode="replace",
                            **self.settings)


@Language.factory(
    FACTORY,
    default_config={
        "source": "ents",
        "strategy": "two_sided",
        "thresholds": [0.5],
        "beta": 1.0,
        "unit": "char",
        "label_map": None,
    },
    # Shown in the ``spacy train`` table, weight 0: it never changes which model is kept.
    default_score_weights={f"{FACTORY}_f": 0.0},
)
def make_span_eval(
    nlp: Language,
    name: str,
    source: str,
    strategy: str,
    thresholds: list[float],
    beta: float,
    unit: str,
    label_map: dict[str, str] | None,
) -> SpanEvalComponent:
    """Factory of the ``span_eval`` component (entry point ``spacy_factories``)."""
    return SpanEvalComponent(name, source=source, strategy=strategy, thresholds=thresholds,
                             beta=beta, unit=unit, label_map=label_map)
