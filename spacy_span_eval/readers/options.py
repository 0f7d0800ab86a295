"""How to read: :class:`ReadingOptions`, for a pair of files (what every command takes) and,
made by :meth:`ReadingOptions.for_side`, for the one file a reader gets.

Every format reads the options that concern it and ignores the others (a JSON reader has no
tag column). The command line's input flags fill a :class:`ReadingOptions` field by field
(``spacy_span_eval.cli.options``), all but the :data:`PER_SIDE_STATE`. How to run
(processes, a pipeline's GPU) is not reading: see ``jobs.options.RunOptions``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

__all__ = ["CHOICES", "PAIRS_MODES", "PER_SIDE_STATE", "SIDES", "ReadingOptions"]

#: How gold and predicted content must agree (one meaning for every format):
#: ``text``: the same tokens or text (character texts may differ in trailing whitespace);
#: ``position``: token files (CoNLL) pair each sentence's tokens by position;
#: ``chars``: character texts are aligned character by character (:mod:`.char_align`).
ALIGN_MODES: tuple[str, ...] = ("text", "position", "chars")
#: ``--align chars``: the least share of the longer text's characters two texts must keep.
MIN_SHARED = 0.9
#: Predictions as strings (:mod:`.grounding`): the last tier a string is looked for at, which
#: occurrences it takes, and how a found span snaps to tokens (spaCy's ``alignment_mode``).
GROUNDING_TIERS: tuple[str, ...] = ("exact", "caseless", "fuzzy")
OCCURRENCES: tuple[str, ...] = ("all", "first")
SNAP_MODES: tuple[str, ...] = ("strict", "contract", "expand")
#: The two sides of a pair.
SIDES: tuple[str, ...] = ("gold", "predicted")
#: Which documents are scored: those of both files (each must pair), or the gold file's.
PAIRS_MODES: tuple[str, ...] = ("both", "gold")
#: The fields of :class:`ReadingOptions` that are the state of one side's reading, not a
#: user's choice: no flag and no API keyword sets them.
PER_SIDE_STATE: tuple[str, ...] = ("comment", "side")
#: The choices among a file's annotations, which only some formats make (see
#: ``InputFormat.selects``); ``annotator`` and ``session`` have a field per side as well.
CHOICES: tuple[str, ...] = ("annotator", "session", "model_version")


def _one_of(choices: tuple[str, ...]) -> Callable[[Any, attrs.Attribute[str], str], None]:
    def check(instance: object, attribute: attrs.Attribute[str], value: str) -> None:
        if value not in choices:
            raise ValueError(
                f"unknown {attribute.name} {value!r}; choose one of {', '.join(choices)}"
            )

    return check


def _share(instance: object, attribute: attrs.Attribute[float], value: float) -> None:
    if not 0 <= value <= 1:
        raise ValueError(f"{attribute.name} must be between 0 and 1, not {value!r}")


@attrs.frozen
class ReadingOptions:
    """How to read gold and predictions (or gold for a pipeline) into documents.

    ``input_format``: a registered format for both files (``None``: from each file name).
    ``unit``: ``token`` or ``char`` (``None``: the gold format's own). ``scheme``, ``repair``,
    ``tag_column``, ``delimiter``: CoNLL; ``pred_tag_column`` is the predictions file's tag
    column when it differs from ``tag_column``. ``source``: ``"ents"`` or a span group key,
    for ``.spacy`` files and pipelines. ``align``: ``"text"`` (the tokens or the text must
    agree; texts may differ in trailing whitespace), ``"position"`` (CoNLL: pair each
    sentence's tokens by position, as conlleval does, and count the ones whose strings differ)
    or ``"chars"`` (char unit: align the two texts character by character, :mod:`.char_align`);
    ``align_share``: with ``"chars"``, the least share of the longer text's characters that
    two texts must keep to pair.
    ``model_version``: Label Studio, the predictions'
    ``model_version`` to read (``None``: the only one). ``annotator``, ``session``: whose
    annotations to read (``None``: all; Prodigy's ``_annotator_id``/``_session_id``, Label
    Studio's ``completed_by``, a doccano zip's member per user), on both sides unless
    ``gold_annotator``/``pred_annotator`` (``gold_session``/``pred_session``) name one side's
    own. ``pairs``:
    ``"both"`` (every document on both sides) or ``"gold"`` (the gold file's documents;
    predictions for others are counted and left out). ``grounding``, ``similarity``,
    ``occurrence``, ``snap``: how predicted strings are found in the gold text
    (:mod:`.grounding`: the last tier tried, the fuzzy tier's least similarity, every
    occurrence or the first, and spaCy's ``alignment_mode`` onto tokens).

    The :data:`PER_SIDE_STATE`: ``comment``, the CoNLL comment prefix; ``side``, which file of
    the pair this is (``"gold"`` or ``"predicted"``).
    """

    input_format: str | None = None
    unit: str | None = None
    scheme: str = "IOB2"
    repair: str = "conlleval"
    tag_column: int = -1
    pred_tag_column: int | None = None
    delimiter: str = "auto"
    source: str = "ents"
    align: str = attrs.field(default="text", validator=_one_of(ALIGN_MODES))
    align_share: float = attrs.field(default=MIN_SHARED, validator=_share)
    model_version: str | None = None
    annotator: str | None = None
    session: str | None = None
    gold_annotator: str | None = None
    pred_annotator: str | None = None
    gold_session: str | None = None
    pred_session: str | None = None
    pairs: str = attrs.field(default="both", validator=_one_of(PAIRS_MODES))
    grounding: str = attrs.field(default="fuzzy", validator=_one_of(GROUNDING_TIERS))
    similarity: float = attrs.field(default=0.9, validator=_share)
    occurrence: str = attrs.field(default="all", validator=_one_of(OCCURRENCES))
    snap: str = attrs.field(default="strict", validator=_one_of(SNAP_MODES))
    # (the PER_SIDE_STATE)
    comment: str | None = "#"
    side: str = attrs.field(default="gold", validator=_one_of(SIDES))

    def for_side(self, side: str = "gold") -> ReadingOptions:
        """These options for one file of the pair (``"gold"`` or ``"predicted"``): a side's
        own ``tag_column``, ``annotator`` or ``session`` (``pred_tag_column``,
        ``gold_annotator``, ...) replaces the plain one when it is set; the gold file's
        format is its own when ``input_format`` is ``strings``."""
        own = "pred_" if side == "predicted" else "gold_"
        changes = {
            name: getattr(self, own + name)
            for name in ("tag_column", "annotator", "session")
            if getattr(self, own + name, None) is not None
        }
        if own == "gold_" and self.input_format == "strings":  # (the predictions' format only)
            changes["input_format"] = None
        return attrs.evolve(self, side=side, **changes)
