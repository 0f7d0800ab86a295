"""spaCy scorers: two-sided (and exact) figures for ``Doc.ents`` or a span group, as score keys.

Each scorer is a pure function plus a factory registered under ``spacy_scorers`` (through the
entry points in ``pyproject.toml``, so ``spacy train`` finds them without ``--code``). One
conversion feeds two engine passes, the chosen strategy and ``exact``, so the spaCy-style exact
keys and the two-sided keys always describe the same examples. Key layout: see
``docs/spacy_integration.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import partial
from typing import TYPE_CHECKING, Any

import attrs

from ..engine.evaluator import SpanEvaluator
from ..engine.labels import slice_names
from ..engine.ledger import Ledger, LedgerField
from ..engine.result import EvaluationResult, ThresholdScores
from ..engine.settings import DEFAULT_STRATEGY, Settings
from ..engine.strategies import get_strategy
from ..errors import EmptyEvaluationError, InvalidInputError
from .config_types import (
    KEY_MODES,
    Beta,
    IoUThreshold,
    KeyMode,
    NoScores,
    StrategyName,
    UnitName,
)
from .spacy_batches import examples_to_batch
from .spacy_docs import source_spans

if TYPE_CHECKING:
    from spacy.training import Example

__all__ = [
    "KEY_MODES",
    "ScorerSettings",
    "make_ents_scorer",
    "make_spans_scorer",
    "score_source",
    "threshold_tag",
]

Scorer = Callable[..., dict[str, Any]]

# The keys hold ledgers and side tables only: no error records, confusion cells or strings.
SCORES_ONLY: dict[str, Any] = {"max_errors": 0, "details": False, "error_strings": False}


def threshold_tag(tau: float) -> str:
    """``0.5 -> "50"``, ``0.75 -> "75"``, ``0.333 -> "33_3"``: a threshold as a key fragment."""
    pct = round(tau * 100, 6)
    return str(int(pct)) if pct == int(pct) else f"{pct:g}".replace(".", "_")


def _figures(run: ThresholdScores | None, prefix: str) -> dict[str, Any]:
    """``{prefix}_p/_r/_f`` and ``{prefix}_per_type``; every value a float or ``None``
    (all of them ``None`` without a run: nothing to score)."""
    if run is None:
        return dict.fromkeys((f"{prefix}_{k}" for k in ("p", "r", "f", "per_type")), None)
    per_type = {label: _entry(ledger, run.beta) for label, ledger in sorted(run.per_label.items())}
    micro = {f"{prefix}_{k}": v for k, v in _prf(run.micro, run.beta).items()}
    return {**micro, f"{prefix}_per_type": per_type or None}


def _prf(ledger: Ledger, beta: float) -> dict[str, float | None]:
    return {"p": ledger.precision(), "r": ledger.recall(), "f": ledger.f(beta)}


def _entry(ledger: Ledger, beta: float) -> dict[str, float | None]:
    """A ``_per_type`` entry: P, R, F and the ledger counts (as floats)."""
    return {**_prf(ledger, beta), **{f.key: float(getattr(ledger, f.key)) for f in LedgerField}}


def _slice_figures(
    result: EvaluationResult | None, values: Sequence[str], attr: str
) -> dict[str, Any]:
    """``{attr}_per_slice`` (per slice value, at the first threshold: its micro entry and its
    ``per_type``, the labels with spans in it) and ``{attr}_worst_slice_f`` (the lowest F
    among the slices with gold spans); ``None`` without a run."""
    keys = (f"{attr}_per_slice", f"{attr}_worst_slice_f")
    if result is None or result.documents is None:
        return dict.fromkeys(keys, None)
    names, labels, rows = result.documents.by_slice(values)
    beta, per_slice = result.settings.beta, dict[str, dict[str, Any]]()
    for name, table in zip(names, rows[:, :, 0], strict=True):
        per_type = {
            label: _entry(Ledger.from_row(row), beta)
            for label, row in sorted(zip(labels, table, strict=True))
            if row[LedgerField.NUM_ANNOTATED] or row[LedgerField.NUM_PREDICTED]
        }
        per_slice[name] = {**_entry(Ledger.from_row(table.sum(axis=0)), beta), "per_type": per_type}
    scored: list[float] = [
        v["f"] for v in per_slice.values() if v["num_annotated"] and v["f"] is not None
    ]
    return dict(zip(keys, (per_slice or None, min(scored, default=None)), strict=True))


def _side_figures(run: ThresholdScores | None, prefix: str, strategy: str) -> dict[str, Any]:
    """The strategy's side table, if any, a row at a time: ``{prefix}_{row}_p/_r/_f`` (overall)
    and ``{prefix}_{row}_per_type`` (semeval: ``ents_semeval_partial_f``, ...); all ``None``
    without a run."""
    if run is None:
        table = get_strategy(strategy).side_table
        rows = table.rows if table is not None else ()
        return {k: v for row in rows for k, v in _figures(None, f"{prefix}_{row}").items()}
    if run.side is None:
        return {}
    out: dict[str, Any] = {}
    for row in run.side.table.rows:
        overall = run.side.row(row)
        out.update({f"{prefix}_{row}_{k[0]}": overall[k] for k in ("precision", "recall", "f")})
        per_type = {
            label: {k[0]: figures[k] for k in ("precision", "recall", "f")}
            for label in sorted(run.side.per_label)
            for figures in (run.side.row(row, label),)
        }
        out[f"{prefix}_{row}_per_type"] = per_type or None
    return out


@attrs.frozen
class ScorerSettings:
    """What a scorer scores with, the engine's :class:`~..engine.settings.Settings` (scores
    only: no error records, confusion cells or error strings), and how it names its keys,
    ``mode``: ``"add"`` or ``"replace"`` (see :func:`score_source`). One object for
    ``make_ents_scorer``, ``make_spans_scorer`` and the ``span_eval`` component, whose
    registered signatures stay explicit parameters (spaCy's config system checks a config
    against them); each builds one with :meth:`of`, so a bad setting fails when the config is
    resolved, not in the middle of a training run.
    """

    settings: Settings = attrs.field(factory=lambda: Settings(**SCORES_ONLY))
    mode: str = attrs.field(default="add", validator=attrs.validators.in_(KEY_MODES))
    #: The reference docs' ``user_data`` key whose values slice the examples, or ``None``.
    slice_by: str | None = None

    @classmethod
    def of(
        cls,
        strategy: str = DEFAULT_STRATEGY,
        thresholds: float | Sequence[float] = (0.5,),
        beta: float = 1.0,
        unit: str = "char",
        label_map: Mapping[str, str] | None = None,
        mode: str = "add",
        strategy_options: Mapping[str, Any] | None = None,
        average_precision: bool = False,
        slice_by: str | None = None,
    ) -> ScorerSettings:
        """From the scorers' settings, in their order (an empty label map is none);
        ``average_precision`` sweeps the predictions' scores (:func:`_ap_figures`);
        ``slice_by`` keeps each document's ledgers to slice them (:func:`_slice_figures`)."""
        with _as_ap_error():
            settings = Settings(
                strategy,
                thresholds,
                unit,
                beta=beta,
                label_map=dict(label_map or {}) or None,
                strategy_options=strategy_options or {},
                sweep=average_precision,
                per_document=slice_by is not None,
                **SCORES_ONLY,
            )
        return cls(settings, mode, slice_by)

    def evaluators(self) -> tuple[SpanEvaluator, SpanEvaluator]:
        """The chosen strategy and ``exact``, with the same label map and unit."""
        main = SpanEvaluator(self.settings)
        if self.settings.strategy == "exact":
            return main, main
        exact = attrs.evolve(
            self.settings, strategy="exact", strategy_options=(), sweep=False, per_document=False
        )
        return main, SpanEvaluator(exact)


def spacy_figures(
    examples: Sequence[Example],
    *,
    source: str,
    attr: str,
    spacy_cfg: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The keys spaCy's default scorer writes, computed by spaCy: ``get_ner_prf`` for
    ``"ents"`` (the ner and entity_ruler scorer), else ``Scorer.score_spans`` set up as
    spancat's scorer (``allow_overlap`` true unless the component's settings say otherwise).

    ``spacy_cfg`` is what the component passed along, forwarded as spaCy's scorers forward it.
    The figures are spaCy's, so they know nothing of this package's settings (label map,
    beta, unit) or of gold kept beside the reference docs.
    """
    from spacy.scorer import Scorer, get_ner_prf

    if source == "ents":
        scores = get_ner_prf(examples, **dict(spacy_cfg or {}))
        return {attr + key[len("ents") :]: value for key, value in scores.items()}
    kwargs = dict(spacy_cfg or {})
    kwargs.setdefault("allow_overlap", True)
    kwargs.setdefault("getter", lambda doc, _attr: source_spans(doc, source))
    kwargs.setdefault("has_annotation", lambda doc: source in doc.spans)
    kwargs["attr"] = attr
    return Scorer.score_spans(examples, **kwargs)


def score_source(
    examples: Iterable[Example],
    *,
    source: str,
    attr: str,
    settings: ScorerSettings,
    spacy_cfg: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Score ``source`` (``"ents"`` or a spans key) and name the figures after ``attr``.

    The strategy's figures are always under ``{attr}_{infix}_...`` (``ents_iou_f``), in both
    modes, so score weights on them select models whatever the mode.
    ``settings.mode="add"``: besides them, spaCy's own ``{attr}_p/_r/_f/_per_type``, computed
    by spaCy (:func:`spacy_figures`, given ``spacy_cfg``). ``"replace"``: the strategy's
    figures under ``{attr}_...`` as well, and this package's exact ones under
    ``{attr}_exact_...``. With several thresholds each one also gets
    ``{attr}_{infix}{tag}_...``. ``{attr}_unaligned`` counts predictions that could not be
    projected (token unit); ``{attr}_unannotated`` the skipped examples; ``{attr}_kept_gold``
    the gold spans read from beside the reference docs, and ``{attr}_unaligned_gold`` those of
    them counted as FN (token unit, not on tokens).

    With no gold and no predicted spans at all (a dev set without this annotation, or a clean
    set where the model rightly finds nothing) every figure is ``None`` and every per-type
    score ``None``, as spaCy's own scorers report it; the counts still say how many examples
    were skipped as unannotated. Nothing here reads as perfect, and ``spacy train`` and
    ``nlp.evaluate`` go on.
    """
    main, exact = settings.evaluators()
    examples = list(examples)  # read twice in add mode: here and by spaCy's scorer
    converted = examples_to_batch(examples, source=source, unit=settings.settings.unit)
    add = settings.mode == "add"
    result: EvaluationResult | None
    with _as_ap_error():
        try:
            result = main.tally_batch(converted.batch).result()
        except EmptyEvaluationError:
            result = None
    if add:
        out = spacy_figures(examples, source=source, attr=attr, spacy_cfg=spacy_cfg)
    else:
        exact_result = result
        if result is not None and exact is not main:
            exact_result = exact.tally_batch(converted.batch).result()
        first = exact_result.scores() if exact_result is not None else None
        out = _figures(first, f"{attr}_exact")
    out.update(_strategy_figures(result, settings.settings, attr, add))
    if settings.settings.sweep:
        out.update(_ap_figures(result, attr))
    if settings.slice_by is not None:
        key = settings.slice_by
        slices = slice_names([examples[i].reference.user_data.get(key) for i in converted.read])
        out.update(_slice_figures(result, slices, attr))
    notes = result.notes if result is not None else {}
    out[f"{attr}_unaligned"] = float(notes.get("unaligned_predictions", 0))
    out[f"{attr}_unannotated"] = float(converted.unannotated)
    out[f"{attr}_kept_gold"] = float(converted.kept_gold)
    out[f"{attr}_unaligned_gold"] = float(notes.get("unaligned_gold", 0))
    return out


@contextmanager
def _as_ap_error() -> Iterator[None]:
    """The sweep's refusals (a strategy it cannot sweep, a prediction without a score) as a
    scorer's setting names them."""
    try:
        yield
    except InvalidInputError as exc:
        flags = "--sweep, --choose-thresholds"
        raise ValueError(str(exc).replace(flags, "average_precision = true", 1)) from None


def _ap_figures(result: EvaluationResult | None, attr: str) -> dict[str, Any]:
    """``{attr}_ap`` (micro) and ``{attr}_ap_per_type``: average precision over the
    predictions' scores (semantics §9) at the first threshold; ``None`` without a run."""
    if result is None or not result.sweep:
        return {f"{attr}_ap": None, f"{attr}_ap_per_type": None}
    sweep = result.sweep[0]
    per_type = {k: v["average_precision"] for k, v in sorted(sweep["per_label"].items())}
    return {
        f"{attr}_ap": sweep["micro"]["average_precision"],
        f"{attr}_ap_per_type": per_type or None,
    }


def _strategy_figures(
    result: EvaluationResult | None, settings: Settings, attr: str, add: bool
) -> dict[str, Any]:
    """The chosen strategy's figures: under ``{attr}_{infix}`` (and ``attr`` itself unless
    ``add``) at the first threshold, and under ``{attr}_{infix}{tag}`` at each threshold
    when there are several."""
    infix = get_strategy(settings.strategy).infix  # the strategy's keys beside spaCy's
    taus = settings.thresholds
    runs: Sequence[ThresholdScores | None] = (
        result.levels[result.settings.levels[0]] if result is not None else [None] * len(taus)
    )
    out: dict[str, Any] = {}
    for primary in (f"{attr}_{infix}",) if add else (f"{attr}_{infix}", attr):
        out.update(_figures(runs[0], primary))
        out.update(_side_figures(runs[0], primary, settings.strategy))
    if len(runs) > 1:
        for tau, run in zip(taus, runs, strict=True):
            assert tau is not None
            out.update(_figures(run, f"{attr}_{infix}{threshold_tag(tau)}"))
    return out


def _score_ents(
    settings: ScorerSettings, examples: Iterable[Example], **spacy_cfg: Any
) -> dict[str, Any]:
    return score_source(
        examples, source="ents", attr="ents", settings=settings, spacy_cfg=spacy_cfg
    )


def _score_spans(
    settings: ScorerSettings,
    examples: Iterable[Example],
    *,
    spans_key: str | None = None,
    configured_key: str | None = None,
    **spacy_cfg: Any,
) -> dict[str, Any]:
    if spans_key is not None and configured_key is not None and spans_key != configured_key:
        raise ValueError(
            f"the component scores spans_key {spans_key!r} but its scorer is configured with "
            f"spans_key {configured_key!r}; set one of them, or both the same"
        )
    key = spans_key if spans_key is not None else configured_key
    if key is None:
        raise ValueError(
            "no spans key: the component does not pass one, so set spans_key in the scorer's "
            'config (e.g. spans_key = "sc")'
        )
    return score_source(
        examples, source=key, attr=f"spans_{key}", settings=settings, spacy_cfg=spacy_cfg
    )


def make_ents_scorer(
    strategy: StrategyName = DEFAULT_STRATEGY,
    thresholds: Sequence[IoUThreshold] = (0.5,),
    beta: Beta = 1.0,
    unit: UnitName = "char",
    label_map: dict[str, str] | None = None,
    mode: KeyMode = "add",
    strategy_options: dict[str, Any] | None = None,
    average_precision: NoScores = False,
    slice_by: str | None = None,
) -> Scorer:
    """``spacy_span_eval.ents_scorer.v1``: for components that set ``Doc.ents``.

    The annotations are checked by spaCy's config system (:mod:`.config_types`): a bad value
    is a "Config validation error" naming its config path. ``strategy_options``: the
    strategy's options (``coverage``, ``min_gold``, ...), a section of the config.
    ``average_precision``: only ``False`` (``Doc.ents`` carry no scores; the spans
    scorer's writes ``{attr}_ap`` and ``{attr}_ap_per_type``).
    ``slice_by``: a reference ``Doc.user_data`` key; also ``{attr}_per_slice`` and
    ``{attr}_worst_slice_f`` (:func:`_slice_figures`)."""
    settings = ScorerSettings.of(
        strategy,
        thresholds,
        beta,
        unit,
        label_map,
        mode,
        strategy_options,
        average_precision,
        slice_by,
    )
    return partial(_score_ents, settings)


def make_spans_scorer(
    spans_key: str | None = None,
    strategy: StrategyName = DEFAULT_STRATEGY,
    thresholds: Sequence[IoUThreshold] = (0.5,),
    beta: Beta = 1.0,
    unit: UnitName = "char",
    label_map: dict[str, str] | None = None,
    mode: KeyMode = "add",
    strategy_options: dict[str, Any] | None = None,
    average_precision: bool = False,
    slice_by: str | None = None,
) -> Scorer:
    """``spacy_span_eval.spans_scorer.v1``: for components that set ``Doc.spans[key]``."""
    settings = ScorerSettings.of(
        strategy,
        thresholds,
        beta,
        unit,
        label_map,
        mode,
        strategy_options,
        average_precision,
        slice_by,
    )
    return partial(_score_spans, settings, configured_key=spans_key)
