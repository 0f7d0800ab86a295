"""``span_eval``: a pipeline component that only scores, so any pipeline reports two-sided figures.

It leaves docs untouched. Add it to a trained or pretrained pipeline and ``nlp.evaluate`` or
``spacy evaluate`` report two-sided figures for the chosen source without retraining. Its keys
are named after the component (``span_eval_f`` by default; layout as the scorers' ``replace``
mode), so it never overwrites the keys of the component that produced the spans. A name whose
keys would read as another scorer's (``ents``, ``ents_...``, ``spans``, ``spans_...``,
``token``, ``sents``: ``ents_exact`` would write ``ents_exact_f``) is refused at ``add_pipe``.
"""

from collections.abc import Iterable, Iterator
from typing import Any

from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example

from ..engine.settings import DEFAULT_STRATEGY
from ..engine.strategies import STRATEGIES
from .config_types import Beta, IoUThreshold, StrategyName, UnitName
from .scorers import ScorerSettings, score_source

__all__ = ["SpanEvalComponent", "make_span_eval"]

FACTORY = "span_eval"

#: Score-key prefixes other scorers own, and who: a component named ``prefix`` or
#: ``prefix_...`` (``exact``: named ``prefix``) would write keys that read as theirs.
TAKEN_PREFIXES: tuple[tuple[str, bool, str], ...] = (
    ("ents", False, "the ents scorers (spaCy's ents_p/_r/_f/_per_type and ents_{infix}_...)"),
    ("spans", False, "the span-group scorers (spans_{key}_p/_r/_f, spans_{key}_{infix}_...)"),
    ("token", True, "spaCy's tokenization scores (token_p/_r/_f)"),
    ("sents", True, "spaCy's sentence scores (sents_p/_r/_f)"),
)


def check_name(name: str) -> None:
    """Refuse a component name whose keys (``{name}_f``, ``{name}_{infix}_f``,
    ``{name}_exact_f``, ...) would look like, or overwrite, another scorer's."""
    for prefix, exact, owner in TAKEN_PREFIXES:
        if name == prefix or (not exact and name.startswith(prefix + "_")):
            infixes = ", ".join(sorted({s.infix for s in STRATEGIES.values()}))
            rule = f"is not {prefix!r}" if exact else f"is not {prefix!r} nor starts with {prefix}_"
            raise ValueError(
                f"span_eval component name {name!r} collides with the score keys of {owner}: "
                f"it would write {name}_f, {name}_exact_f and {name}_{{infix}}_f (infixes: "
                f"{infixes}), keys that read as theirs. Choose a name that {rule}, such as "
                f"'eval_{prefix}'"
            )


class SpanEvalComponent:
    """Scores ``source`` (``"ents"`` or a spans key) in :meth:`score` with ``settings`` (in
    ``replace`` mode: keys named after the component); ``__call__`` is a no-op."""

    def __init__(
        self, name: str = FACTORY, *, source: str = "ents", settings: ScorerSettings | None = None
    ) -> None:
        check_name(name)
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
        "strategy": DEFAULT_STRATEGY,
        "thresholds": [0.5],
        "beta": 1.0,
        "unit": "char",
        "label_map": None,
        "strategy_options": None,
        "average_precision": False,
        "slice_by": None,
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
    strategy_options: dict[str, Any] | None,
    average_precision: bool,
    slice_by: str | None,
) -> SpanEvalComponent:
    """Factory of the ``span_eval`` component (entry point ``spacy_factories``); the
    annotations are checked by spaCy's config system (:mod:`.config_types`).
    ``average_precision``: also ``{name}_ap`` and ``{name}_ap_per_type``; ``slice_by``: a
    reference ``Doc.user_data`` key, also ``{name}_per_slice`` and ``{name}_worst_slice_f``."""
    settings = ScorerSettings.of(
        strategy,
        thresholds,
        beta,
        unit,
        label_map,
        "replace",
        strategy_options,
        average_precision,
        slice_by,
    )
    return SpanEvalComponent(name, source=source, settings=settings)
