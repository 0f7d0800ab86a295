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

from .config_types import Beta, IoUThreshold, StrategyName, UnitName
from .scorers import ScorerSettings, score_source

__all__ = ["SpanEvalComponent", "make_span_eval"]

FACTORY = "span_eval"


class SpanEvalComponent:
    """Scores ``source`` (``"ents"`` or a spans key) in :meth:`score` with ``settings`` (in
    ``replace`` mode: keys named after the component); ``__call__`` is a no-op."""

    def __init__(
        self, name: str = FACTORY, *, source: str = "ents", settings: ScorerSettings | None = None
    ) -> None:
        self.name = name
        self.source = source
        self.settings = settings or ScorerSettings(mode="replace")
        if self.settings.mode != "replace":
            raise ValueError(
                "span_eval names its keys after the component: its settings' mode "
                f"must be 'replace', not {self.settings.mode!r}"
            )

    def __call__(self, doc: Doc) -> Doc:
        return doc

    def pipe(self, docs: Iterable[Doc], *, batch_size: int = 128) -> Iterator[Doc]:
        yield from docs

    def score(self, examples: Iterable[Example], **kwargs: Any) -> dict[str, Any]:
        """Figures under ``{name}_p/_r/_f/_per_type`` (strategy) and ``{name}_exact_...``.

        ``kwargs`` (whatever ``Scorer`` passes to every component) do not change the figures.
        """
        return score_source(examples, source=self.source, attr=self.name, settings=self.settings)


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
    strategy: StrategyName,
    thresholds: list[IoUThreshold],
    beta: Beta,
    unit: UnitName,
    label_map: dict[str, str] | None,
) -> SpanEvalComponent:
    """Factory of the ``span_eval`` component (entry point ``spacy_factories``); the
    annotations are checked by spaCy's config system (:mod:`.config_types`)."""
    settings = ScorerSettings(
        strategy=strategy,
        thresholds=tuple(thresholds),
        beta=beta,
        unit=unit,
        label_map=label_map,
        mode="replace",
    )
    return SpanEvalComponent(name, source=source, settings=settings)
