"""``spacy_span_eval.ConsoleLogger.v1``: spaCy's training table with readable headers, plus a
per-label table.

It prints the row spaCy's ``spacy.ConsoleLogger.v3`` prints (epoch, step, one loss per
trainable component, one column per weighted score, the weighted score) and writes the same
JSONL log, with these differences, the first two so that a figure reads the same everywhere:

- **Headers are never cut.** spaCy cuts a column name longer than 13 characters to 10 and
  ``...`` (``spans_sc_iou_f`` showed as ``SPANS_SC_I...``); here each column is as wide as its
  name.
- **An undefined figure is ``-`` in the table and ``null`` in the JSONL log**, as in the
  per-label table and this package's JSON (semantics §3). spaCy's training loop drops a
  ``None`` score before any logger sees it, and spaCy's logger then prints (and logs) 0.0; this
  logger knows the weighted keys, so a weighted key missing from the scores is an undefined
  figure (a precision with nothing predicted, early in training).
- **Average precision and the worst slice written are shown**: a ``*_ap`` or
  ``*_worst_slice_f`` key a scorer writes is a column even when no score weight names it (a
  ``null`` weight hides it).

Every ``every`` evaluations it adds a table per label with P/R/F and the ledger counts, read
from the ``*_per_type`` scores this package's scorers write. Only the micro figures reach the
row, and a label that drifts is easy to miss there.

At setup it asks every scorer of the pipeline which keys it writes (each component's
``score`` with no examples: spaCy's scorers and this package's answer with every key, ``None``
valued), and refuses a ``per_type_keys`` entry or a score weight above 0 that names no such
key, naming the key and the keys that are written. spaCy's training loop would otherwise drop
the missing key without a word: a per-label table never printed, or a weighted score that is
always 0 (the model kept as "best" is then the first one).
"""

import difflib
import sys
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import IO, Any, Literal

import srsly
import tqdm
from spacy.language import Language
from wasabi.printer import Printer
from wasabi.tables import row, table

from ..errors import printable
from .config_types import PositiveCount

__all__ = [
    "UNDEFINED",
    "check_score_keys",
    "console_logger_v1",
    "per_type_tables",
    "score_cell",
    "written_keys",
]

COLUMNS: tuple[tuple[str, str], ...] = (
    ("P", "p"),
    ("R", "r"),
    ("F", "f"),
    ("GOLD", "num_annotated"),
    ("PRED", "num_predicted"),
    ("TP", "tp"),
    ("FN", "fn"),
    ("CREDITED", "credited"),
    ("FP", "fp"),
)
COUNT_FIELD = "num_annotated"  # marks a per-type dict written by this package

LogStep = Callable[[dict[str, Any] | None], None]
Finalize = Callable[[], None]


#: How an undefined ratio shows in every table this logger prints (``null`` in its JSONL).
UNDEFINED = "-"


def score_cell(value: float | None, *, percent: bool = True) -> str:
    """A score as the training table shows it: percent with two decimals, ``-`` when
    undefined."""
    return UNDEFINED if value is None else f"{float(value) * (100 if percent else 1):.2f}"


def _cell(value: Any, field: str) -> str:
    """A per-label table's cell: a ratio in percent, a count as a whole number."""
    if field in ("p", "r", "f"):
        return score_cell(value)
    return UNDEFINED if value is None else str(int(value))


def per_type_tables(scores: Mapping[str, Any], keys: Sequence[str] | None = None) -> list[str]:
    """Rendered tables, one per ``*_per_type`` score that carries ledger counts.

    ``keys`` restricts and orders them; by default every such score, in key order.
    """
    names = (
        list(keys)
        if keys is not None
        else sorted(
            k
            for k, v in scores.items()
            if k.endswith("_per_type")
            and isinstance(v, Mapping)
            and any(isinstance(row, Mapping) and COUNT_FIELD in row for row in v.values())
        )
    )
    out = []
    for name in names:
        per_type = scores.get(name)
        if not isinstance(per_type, Mapping) or not all(
            isinstance(row, Mapping) for row in per_type.values()
        ):
            continue  # undefined (None) this time, or not a table of labels
        rows = [
            [label, *(_cell(row.get(f), f) for _, f in COLUMNS)]
            for label, row in sorted(per_type.items())
        ]
        numbers: list[Literal["r"]] = ["r"] * len(COLUMNS)
        rendered = table(
            rows, header=["LABEL", *(h for h, _ in COLUMNS)], aligns=("l", *numbers), divider=True
        )
        out.append(f"{name}\n{rendered.strip(chr(10))}")
    return out


def written_keys(nlp: Language) -> frozenset[str] | None:
    """The score keys ``nlp.evaluate`` writes for this pipeline, ``None`` where that cannot be
    told.

    Each scorer is asked with no examples (the tokenizer's and every component's ``score``,
    disabled ones too: training disables frozen components around the logger's setup and
    evaluates them all the same); spaCy's scorers and this package's answer an empty
    evaluation with every key they write, valued ``None``. ``speed`` is ``nlp.evaluate``'s
    own. A scorer that fails on no examples makes the answer unknown (``None``), and nothing is
    checked.
    """
    keys = {"speed"}
    components = getattr(nlp, "components", None) or getattr(nlp, "pipeline", [])
    scorers = [getattr(nlp, "tokenizer", None), *(proc for _, proc in components)]
    try:
        for scorer in scorers:
            if hasattr(scorer, "score"):
                keys.update(scorer.score([]))
    except Exception:  # a scorer of another package that needs examples: no check
        return None
    return frozenset(keys)


def _unknown(key: str, what: str, written: Sequence[str]) -> str:
    near = difflib.get_close_matches(key, written, n=3)
    hint = f" (did you mean {', '.join(map(repr, near))}?)" if near else ""
    return (
        f"{what} {key!r} is not a score any component of this pipeline writes{hint}; "
        f"written: {', '.join(written) or 'none'}"
    )


def check_score_keys(
    nlp: Language, per_type_keys: Sequence[str] | None, stderr: IO[str] | None = None
) -> frozenset[str]:
    """Refuse ``per_type_keys`` entries and score weights above 0 that name no key the
    pipeline writes (:func:`written_keys`); warn on ``stderr`` about a key weighted 0 (shown
    only) that is never written: spaCy's own default weights have one (the tagger's
    ``pos_acc``, written only by components that set ``POS``). Returns the keys written
    (none where that cannot be told)."""
    written = written_keys(nlp)
    if written is None:
        return frozenset()
    per_type = sorted(k for k in written if k.endswith("_per_type"))
    for key in per_type_keys or ():
        if key not in per_type:
            raise ValueError(_unknown(key, "per_type_keys:", per_type))
    scalar = sorted(k for k in written if not k.endswith("_per_type"))
    weights = nlp.config["training"]["score_weights"]
    for key, weight in weights.items():
        if weight is None or key in written:
            continue
        message = _unknown(key, "[training.score_weights]", scalar)
        if weight:
            raise ValueError(
                f"{message}. spaCy would count it as 0 at every evaluation, so the model kept "
                "as best would not depend on it"
            )
        if stderr is not None:
            warning = printable(f"{message}; its column shows -")
            print(Printer(no_print=True).warn(warning), file=stderr)
    return written


class _Row:
    """The training table: its columns (from the pipeline and its score weights, and the
    average precision and worst slice keys ``written`` that no weight names), the header and
    one row (and JSONL record) per evaluation."""

    def __init__(self, nlp: Language, written: frozenset[str] = frozenset()) -> None:
        self.pipes = [name for name, proc in nlp.pipeline if getattr(proc, "is_trainable", False)]
        weights = nlp.config["training"]["score_weights"]
        self.scores = [key for key, weight in weights.items() if weight is not None]
        shown = ("_ap", "_worst_slice_f")  # written, so shown unweighted
        self.scores += sorted(k for k in written if k.endswith(shown) and k not in weights)
        names = ["E", "#", *(f"Loss {p}" for p in self.pipes), *self.scores, "Score"]
        widths = [3, 6, *(8 for _ in self.pipes), *(6 for _ in self.scores), 6]
        self.header = [name.upper() for name in names]
        self.widths = [max(len(name), width) for name, width in zip(names, widths, strict=True)]

    def head(self) -> str:
        """The header and the rule under it."""
        rule = ["-" * w for w in self.widths]
        return "\n".join(row(cells, widths=self.widths, spacing=2) for cells in (self.header, rule))

    def line(self, info: Mapping[str, Any]) -> str:
        aligns: list[Literal["r"]] = ["r"] * len(self.widths)
        return row(self.cells(info), widths=self.widths, aligns=aligns, spacing=2)

    def values(self, info: Mapping[str, Any]) -> tuple[dict[str, float], dict[str, float | None]]:
        """Losses, and scores in percent (``speed`` as it is); ``None`` where undefined."""
        losses = {p: float(info["losses"][p]) for p in self.pipes if p in info["losses"]}
        scores: dict[str, float | None] = {}
        other = info.get("other_scores") or {}
        for key in self.scores:
            value = other.get(key)
            if value is not None and not isinstance(value, int | float):
                raise ValueError(
                    f"score {key!r} is a {type(value).__name__}; only numbers "
                    "can be columns of the training table (give it weight null)"
                )
            scores[key] = None if value is None else float(value) * (1 if key == "speed" else 100)
        return losses, scores

    def cells(self, info: Mapping[str, Any]) -> list[str]:
        losses, scores = self.values(info)
        return [
            str(info["epoch"]),
            str(info["step"]),
            *(f"{losses[p]:.2f}" if p in losses else UNDEFINED for p in self.pipes),
            *(score_cell(scores[k], percent=False) for k in self.scores),
            f"{float(info['score']):.2f}",
        ]

    def record(self, info: Mapping[str, Any]) -> dict[str, Any]:
        losses, scores = self.values(info)
        return {
            "epoch": info["epoch"],
            "step": info["step"],
            "losses": losses,
            "scores": scores,
            "score": float(info["score"]),
        }


def console_logger_v1(
    every: PositiveCount = 1,
    per_type_keys: list[str] | None = None,
    progress_bar: Literal["train", "eval"] | None = None,
    console_output: bool = True,
    output_file: str | None = None,
) -> Callable[..., tuple[LogStep, Finalize]]:
    """spaCy's training table (readable headers, ``-`` for an undefined figure), its JSONL log
    (``null`` for one) in ``output_file``, and per-label tables every ``every`` evaluations.

    ``per_type_keys`` picks the tables (e.g. ``["ents_iou_per_type"]``); by default all the
    per-type scores written by this package's scorers and component. A key the pipeline does
    not write is an error at setup, as is a score weight above 0 on such a key
    (:func:`check_score_keys`). ``progress_bar``:
    ``"train"`` or ``"eval"`` as in ``spacy.ConsoleLogger.v3``, or ``None``.
    """
    if every < 1 or every != int(every):
        raise ValueError(f"every must be a whole number >= 1, not {every!r}")
    if progress_bar not in (None, "train", "eval"):
        raise ValueError(f"progress_bar must be 'train', 'eval' or null, not {progress_bar!r}")
    return partial(
        _setup,
        every=int(every),
        per_type_keys=per_type_keys,
        progress_bar=progress_bar,
        console_output=console_output,
        log_path=Path(output_file) if output_file else None,
    )


def _setup(
    nlp: Language,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
    *,
    every: int,
    per_type_keys: Sequence[str] | None,
    progress_bar: str | None,
    console_output: bool,
    log_path: Path | None,
) -> tuple[LogStep, Finalize]:
    """The logger of one training run, as spaCy calls it with the pipeline (``stdout`` and
    ``stderr``: the process's by default)."""
    out, err = stdout or sys.stdout, stderr or sys.stderr
    row = _Row(nlp, check_score_keys(nlp, per_type_keys, err))

    def write(text: str) -> None:
        print(text, file=out, flush=True)

    log = _open_log(log_path, write)
    if console_output:
        write(row.head())
    seen = 0
    bar: tqdm.tqdm | None = None

    def step(info: dict[str, Any] | None) -> None:
        nonlocal seen, bar
        if info is None:
            if bar is not None:
                bar.update(1)
            return
        if log is not None:
            log.write(srsly.json_dumps(row.record(info)) + "\n")
        if bar is not None:
            bar.close()
            bar = None
        if not console_output:
            return
        write(row.line(info))
        if progress_bar is not None:
            bar = _progress(nlp, info, progress_bar, err)
        seen += 1
        scores = info.get("other_scores") or {}
        if seen % every == 0 and (tables := per_type_tables(scores, per_type_keys)):
            title = f"Per label, epoch {info['epoch']}, step {info['step']}:"
            write(printable("\n".join([title, *tables])))  # (label names are data)

    def finalize() -> None:
        if bar is not None:
            bar.close()
        if log is not None:
            log.close()

    return step, finalize


def _open_log(path: Path | None, write: Callable[[str], None]) -> IO[str] | None:
    """The JSONL log, opened for the run (closed by the logger's ``finalize``); none where
    no file is asked for, or where the file exists (said on the console: it is kept)."""
    if path is None:
        return None
    printer = Printer(no_print=True)
    if path.exists():
        write(printer.warn(f"Saving logs is disabled because {path} already exists."))
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    write(printer.info(f"Saving results to {path}"))
    return open(path, "w", encoding="utf-8")  # noqa: SIM115 (closed by finalize)


def _progress(nlp: Language, info: Mapping[str, Any], kind: str, stderr: IO[str]) -> tqdm.tqdm:
    """A progress bar to the next evaluation (``"eval"``) or over the whole run (``"train"``);
    quiet when stderr is not a terminal."""
    training = nlp.config["training"]
    if kind == "train":
        total, initial = training["max_steps"], info["step"]
        desc = f"Last Eval Epoch: {info['epoch']}"
    else:
        total, initial, desc = training["eval_frequency"], 0, f"Epoch {info['epoch'] + 1}"
    bar = tqdm.tqdm(total=total, initial=initial, disable=None, leave=False, file=stderr)
    bar.set_description(desc)
    return bar
