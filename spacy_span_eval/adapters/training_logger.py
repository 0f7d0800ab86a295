"""``spacy_span_eval.ConsoleLogger.v1``: spaCy's console logger plus a per-label table.

The wrapped logger prints its usual per-evaluation row (and writes its JSONL log if asked);
every ``every`` evaluations this logger adds a table per label with P/R/F and the ledger
counts, read from the ``*_per_type`` scores this package's scorers write. Only the micro
figures reach the stock row, and a label that drifts is easy to miss there.
"""

import sys
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Any

from spacy.language import Language
from spacy.util import registry
from wasabi import table

__all__ = ["console_logger_v1", "per_type_tables"]

COLUMNS: tuple[tuple[str, str], ...] = (
    ("P", "p"), ("R", "r"), ("F", "f"), ("GOLD", "num_annotated"), ("PRED", "num_predicted"),
    ("TP", "tp"), ("FN", "fn"), ("CREDITED", "credited"), ("FP", "fp"))
COUNT_FIELD = "num_annotated"  # marks a per-type dict written by this package

LogStep = Callable[[dict[str, Any] | None], None]
Finalize = Callable[[], None]


def _cell(value: Any, field: str) -> str:
    if value is None:
        return "-"
    if field in ("p", "r", "f"):
        return f"{value * 100:.2f}"
    return str(int(value))


def per_type_tables(scores: Mapping[str, Any], keys: Sequence[str] | None = None) -> list[str]:
    """Rendered tables, one per ``*_per_type`` score that carries ledger counts.

    ``keys`` restricts and orders them; by default every such score, in key order.
    """
    names = list(keys) if keys is not None else sorted(
        k for k, v in scores.items() if k.endswith("_per_type") and isinstance(v, Mapping)
        and any(isinstance(row, Mapping) and COUNT_FIELD in row for row in v.values()))
    out = []
    for name in names:
        per_type = scores.get(name)
        if not per_type:
            continue
        rows = [[label, *(_cell(row.get(f), f) for _, f in COLUMNS)]
                for label, row in sorted(per_type.items())]
        rendered = table(rows, header=["LABEL", *(h for h, _ in COLUMNS)],
                         aligns=("l", *("r" for _ in COLUMNS)), divider=True)
        out.append(f"{name}\n{rendered.strip(chr(10))}")
    return out


def console_logger_v1(
    every: int = 1,
    per_type_keys: list[str] | None = None,
    progress_bar: str | None = None,
    console_output: bool = True,
    output_file: str | None = None,
) -> Callable[..., tuple[LogStep, Finalize]]:
    """Wrap ``spacy.ConsoleLogger.v3`` and print per-label tables every ``every`` evaluations.

    ``per_type_keys`` picks the tables (e.g. ``["ents_iou_per_type"]``); by default all the
    per-type scores written by this package's scorers and component.
    """
    if every < 1:
        raise ValueError(f"every must be >= 1, not {every!r}")
    console = registry.get("loggers", "spacy.ConsoleLogger.v3")(
        progress_bar=progress_bar, console_output=console_output, output_file=output_file)

    def setup(nlp: Language, stdout: IO = sys.stdout, stderr: IO = sys.stderr
              ) -> tuple[LogStep, Finalize]:
        log_step, finalize = console(nlp, stdout, stderr)
        seen = 0

        def step(info: dict[str, Any] | None) -> None:
            nonlocal seen
            log_step(info)
            if info is None or not console_output:
                return
            seen += 1
            if seen % every:
                return
            tables = per_type_tables(info.get("other_scores", {}), per_type_keys)
            if tables:
                head = f"Per label, epoch {info['epoch']}, step {info['step']}:"
                print("\n".join([head, *tables]), file=stdout, flush=True)

        return step, finalize

    return setup
