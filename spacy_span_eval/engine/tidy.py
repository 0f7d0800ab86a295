"""A result as tidy rows, for notebooks and data frames: one row per (level, threshold, label)
with the ledger and the ratios, and one row per (document, threshold[, label]) from the
per-document ledgers.

These are plain dicts (standard library only), so the engine never imports pandas: a data
frame is built from them on request (:func:`frame`, which imports pandas then), and so is the
compact HTML table a notebook shows for a result (:func:`html_table`, ``html.escape`` only).
Both live here rather than in ``render/`` because they back :class:`~.result.EvaluationResult`'s
own methods (``to_frame``, ``_repr_html_``), and the engine may not import the rooms above it.

An undefined ratio is ``None`` in the rows, ``-`` in the HTML table (as in every text table)
and pandas' missing value (NaN) in a frame, whose float columns cannot hold ``None``.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from .ledger import FIELD_NAMES, RATIOS, Ledger
from .settings import plural

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "DOCUMENT_COLUMNS",
    "RESULT_COLUMNS",
    "SLICE_COLUMNS",
    "SWEEP_COLUMNS",
    "document_rows",
    "frame",
    "html_table",
    "run_rows",
    "slice_rows",
    "sweep_rows",
]

#: Columns of :func:`run_rows`: ``row`` is ``"label"``, ``"micro"`` (every label pooled),
#: ``"macro"`` and ``"weighted"`` (the averages over labels: ratios only, no ledger) or
#: ``"entity_agnostic"`` (labels collapsed into one); ``label`` is empty but for labels.
RESULT_COLUMNS: tuple[str, ...] = ("level", "threshold", "row", "label", *FIELD_NAMES, *RATIOS)
#: Columns of a sliced report's frame: :data:`RESULT_COLUMNS` with ``slice_by`` (the field)
#: and ``slice`` (its value), both missing on the whole corpus's rows, as ``label`` is on the
#: aggregates' (:func:`slice_rows`).
SLICE_COLUMNS: tuple[str, ...] = (*RESULT_COLUMNS[:2], "slice_by", "slice", *RESULT_COLUMNS[2:])
#: Columns of :func:`sweep_rows`: per IoU ``threshold``, ``row`` ``"label"`` or ``"micro"``
#: (``label`` empty), each point of the sweep: its prediction ``score`` and the ledger of the
#: predictions with that score or more.
SWEEP_COLUMNS: tuple[str, ...] = ("threshold", "row", "label", "score", *FIELD_NAMES, *RATIOS)
#: Columns of :func:`document_rows`: ``row`` is ``"document"`` (all its labels) or
#: ``"label"``; ``errors`` is ``fn + fp``, what to sort documents by.
DOCUMENT_COLUMNS: tuple[str, ...] = (
    "document",
    "threshold",
    "row",
    "label",
    *FIELD_NAMES,
    "errors",
    *RATIOS,
)


def run_rows(level: str, run: Any) -> Iterator[dict[str, Any]]:
    """Tidy rows of one level's :class:`~.result.ThresholdScores`: each label (sorted), then
    ``micro``, ``macro``, ``weighted`` and ``entity_agnostic``, the rows of the notebook
    table."""
    b, z = run.beta, run.zero_division
    head = {"level": level, "threshold": run.threshold}
    for label, ledger in sorted(run.per_label.items()):
        yield {**head, "row": "label", "label": label, **ledger.to_dict(b, z)}
    yield {**head, "row": "micro", "label": None, **run.micro.to_dict(b, z)}
    for name in ("macro", "weighted"):  # averages: ratios, no ledger
        yield {**head, "row": name, "label": None, **{k: getattr(run, name)[k] for k in RATIOS}}
    agnostic = run.entity_agnostic.to_dict(b, z)
    yield {**head, "row": "entity_agnostic", "label": None, **agnostic}


def slice_rows(
    slices: Mapping[str, Iterable[Mapping[str, Any]]], level: str
) -> Iterator[dict[str, Any]]:
    """Tidy rows of a report's per-slice tables (``{field: [{"threshold", "slices"}]}``, at
    ``level`` unless a table names its own): per field, level, threshold and slice, each
    label's row, then ``micro``, as the tables hold them."""
    for name, runs in slices.items():
        for run in runs:
            for table in run["slices"]:
                head = {
                    "level": run.get("level", level),
                    "threshold": run["threshold"],
                    "slice_by": name,
                }
                rows = [*(("label", k, v) for k, v in table["per_label"].items())]
                for row, label, ledger in [*rows, ("micro", None, table["micro"])]:
                    yield {**head, "slice": table["slice"], "row": row, "label": label, **ledger}


def document_rows(
    documents: Any,
    thresholds: Iterable[float | None],
    *,
    beta: float = 1.0,
    zero_division: float | None = None,
    per_label: bool = True,
) -> Iterator[dict[str, Any]]:
    """Tidy rows of per-document ledgers (a :class:`~.document_counts.DocumentCounts`), in
    stream order: per document and threshold, the whole document (``row="document"``) and,
    with ``per_label``, each label it has a span of."""
    taus = list(thresholds)
    # One document at a time from the stored cells (a document holds few labels of many).
    for doc_id, cells in documents.by_document():
        table = [(label, rows.tolist()) for label, rows in cells]
        for t, tau in enumerate(taus):
            head = {"document": doc_id, "threshold": tau}
            whole = sum((Ledger.from_row(rows[t]) for _, rows in table), Ledger())
            yield {
                **head,
                "row": "document",
                "label": None,
                **whole.to_dict(beta, zero_division, errors=True),
            }
            for label, rows in table if per_label else ():
                ledger = Ledger.from_row(rows[t])
                if ledger.num_annotated or ledger.num_predicted:
                    yield {
                        **head,
                        "row": "label",
                        "label": label,
                        **ledger.to_dict(beta, zero_division, errors=True),
                    }


def sweep_rows(result: Any) -> Iterator[dict[str, Any]]:
    """Tidy rows of a result's sweep (:data:`SWEEP_COLUMNS`), from the highest score down."""
    for entry in result.sweep or ():
        for row, label, figures in [
            *(("label", k, v) for k, v in entry["per_label"].items()),
            ("micro", None, entry["micro"]),
        ]:
            for point in figures["points"]:
                yield {"threshold": entry["threshold"], "row": row, "label": label, **point}


def frame(rows: Iterable[Mapping[str, Any]], columns: tuple[str, ...]) -> pd.DataFrame:
    """A pandas ``DataFrame`` of ``rows`` (pandas is imported here, on first use)."""
    try:
        import pandas as pd
    except ImportError:
        raise ImportError(
            "a data frame needs pandas, which spacy-span-eval does not install by default: "
            'pip install -e ".[pandas]" in the clone, or pip install pandas'
        ) from None
    df = pd.DataFrame.from_records(list(rows), columns=list(columns))
    # counts stay integers where a row (an average) has none
    return df.astype({name: "Int64" for name in FIELD_NAMES})


def _html_cell(value: Any) -> str:
    """A notebook cell: counts with thousands separators, ratios to 4 places, ``-`` when
    undefined."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def html_table(result: Any) -> str:
    """A compact HTML view of a result, with the rows of the text table: per threshold of
    the first level, one row per label (counts, P, R, F), then micro, macro, weighted and
    any entity; the engine's notes below; undefined ratios as ``-``."""
    s = result.settings
    level = s.levels[0]
    f_name = "F1" if s.beta == 1 else f"F{s.beta:g}"
    head = ["label", "gold", "pred", "TP", "FN", "credited", "FP", "P", "R", f_name]
    parts = ['<div class="spacy-span-eval-result">']
    for run in result.levels[level]:
        title = s.strategy if run.threshold is None else f"{s.strategy}, IoU ≥ {run.threshold:g}"
        parts.append(
            f"<p><b>{html.escape(title)}</b> · {html.escape(level)} · "
            f"{plural(result.n_documents, 'document')} · {s.unit} unit</p>"
        )
        parts.append(
            "<table><thead><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>"
        )
        for row in run_rows(level, run):
            name = {"label": row["label"], "entity_agnostic": "any entity"}.get(
                row["row"], row["row"]
            )
            cells = ["" if k not in row else _html_cell(row[k]) for k in (*FIELD_NAMES, *RATIOS)]
            name_cell = (
                html.escape(name) if row["row"] == "label" else f"<b>{html.escape(name)}</b>"
            )
            parts.append(
                f'<tr><td style="text-align:left">{name_cell}</td>'
                + "".join(f"<td>{c}</td>" for c in cells)
                + "</tr>"
            )
        parts.append("</tbody></table>")
    if result.notes:
        notes = sorted(result.notes.items())
        parts.append(
            "<p>notes: "
            + html.escape(", ".join(f"{k.replace('_', ' ')} {v:,}" for k, v in notes))
            + "</p>"
        )
    if len(s.levels) > 1:
        parts.append(
            f"<p>also scored: levels {html.escape(', '.join(s.levels[1:]))} "
            "(<code>result.to_frame()</code> has every level)</p>"
        )
    parts.append("</div>")
    return "\n".join(parts)
