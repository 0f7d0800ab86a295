"""``compare``: two systems' predictions against the same gold, with a paired test.

Both prediction files are paired with the gold file and scored with the same settings; the
paired test (:func:`~.bootstrap.paired_test`) resamples the same documents for both, so the
interval and p-value of each F difference account for how much the corpus alone can move
it. Rendered as text, Markdown, JSON (schema ``spacy-span-eval/comparison``) or the HTML
report with the two systems side by side.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import srsly
from wasabi import MarkdownRenderer, table

from .bootstrap import BootstrapIntervals, PairedTest, paired_test
from .commands import blocks, msg
from .labels import LabelMap
from .labels_io import as_label_map
from .report.build import intervals_of, score_system, write_text
from .report.collect import SystemRun
from .report.html import render_page
from .report.inputs import InputOptions

__all__ = ["COMPARISON_SCHEMA", "COMPARISON_VERSION", "COMPARE_FORMATS", "Comparison",
           "compare_files"]

COMPARISON_SCHEMA = "spacy-span-eval/comparison"
COMPARISON_VERSION = 1
COMPARE_FORMATS: tuple[str, ...] = ("text", "json", "markdown", "html")
ALIGNS = ("l", "r", "r", "r", "r", "r", "r")


def _fmt(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.4f}" if signed else f"{value:.4f}"


@dataclass
class Comparison:
    """Two scored systems, their intervals and the paired test of their F differences."""

    runs: tuple[SystemRun, SystemRun]
    test: PairedTest
    intervals: tuple[BootstrapIntervals | None, BootstrapIntervals | None]

    @property
    def names(self) -> tuple[str, str]:
        return self.runs[0].name, self.runs[1].name

    def rows(self) -> tuple[list[str], list[list[str]]]:
        """Header and rows: each label, then micro and macro."""
        a, b = self.names
        f = "F1" if self.runs[0].main.beta == 1 else f"F{self.runs[0].main.beta:g}"
        header = ["", "gold", f"{f} {a}", f"{f} {b}", "difference", "interval", "p"]
        gold = self.runs[0].main
        out = []
        for name, d in self.test.rows.items():
            ledger = gold.micro if name == "micro" else gold.per_label.get(name)
            support = "" if name == "macro" or ledger is None else str(ledger.num_annotated)
            interval = ("-" if d.low is None or d.high is None
                        else f"[{d.low:+.4f}, {d.high:+.4f}]")
            out.append([name, support, _fmt(d.f_a), _fmt(d.f_b), _fmt(d.difference, True),
                        interval, "-" if d.p_value is None else f"{d.p_value:.4g}"])
        return header, out

    def caption(self) -> str:
        t = self.test
        method = ("paired bootstrap (null centred on the observed difference)"
                  if t.method == "bootstrap" else "approximate randomization")
        where = "" if t.threshold is None else f" at IoU >= {t.threshold:g}"
        return (f"{self.names[0]} minus {self.names[1]}{where} on {t.n_documents} documents: "
                f"{t.confidence:.0%} paired-bootstrap percentile intervals and two-sided "
                f"p-values by {method}, {t.resamples} resamples, seed {t.seed} (the smallest "
                f"p-value they can show is {1 / (t.resamples + 1):.2g}).")

    def to_dict(self) -> dict:
        systems = {}
        for run, bi in zip(self.runs, self.intervals, strict=True):
            systems[run.name] = {"inputs": run.inputs, "scores": run.main.to_dict(),
                                 "intervals": None if bi is None else bi.to_dict()}
            systems[run.name]["scores"].pop("errors")
        return {"schema": COMPARISON_SCHEMA, "version": COMPARISON_VERSION,
                "settings": self.runs[0].result.settings.to_dict(),
                "threshold": self.runs[0].threshold, "documents": self.test.n_documents,
                "systems": systems, "comparison": self.test.to_dict()}

    def render(self, output_format: str = "text", *, title: str | None = None) -> str:
        if output_format == "json":
            return srsly.json_dumps(self.to_dict(), indent=2)
        header, rows = self.rows()
        if output_format == "text":
            return "\n".join([f"== Comparison: {self.names[0]} vs {self.names[1]}",
                              table(rows, header=header, divider=True, aligns=ALIGNS),
                              textwrap.fill(self.caption(), 100)])
        if output_format == "markdown":
            md = MarkdownRenderer()
            md.add(md.title(2, f"Comparison: {self.names[0]} vs {self.names[1]}"))
            md.add(md.table(rows, header, aligns=ALIGNS))
            md.add(self.caption())
            return md.text
        if output_format == "html":
            return render_page(list(self.runs), intervals=list(self.intervals),
                               comparison=self.test, title=title)
        raise ValueError(f"unknown output format {output_format!r}; choose one of "
                         f"{', '.join(COMPARE_FORMATS)}")


def _names(pred_a: Path | str, pred_b: Path | str, names: tuple[str, str] | None
           ) -> tuple[str, str]:
    if names is not None:
        if names[0] == names[1]:
            raise ValueError(f"the two systems need different names, not {names[0]!r} twice")
        return names
    a, b = Path(pred_a).stem, Path(pred_b).stem
    return (a, b) if a != b else ("A", "B")


def compare_files(
    gold: Path | str,
    pred_a: Path | str,
    pred_b: Path | str,
    *,
    names: tuple[str, str] | None = None,
    strategy: str = "two_sided",
    threshold: float = 0.5,
    beta: float = 1.0,
    label_map: Path | str | LabelMap | Mapping[str, str] | None = None,
    strict_labels: bool = False,
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    method: str = "bootstrap",
    errors: int | None = None,
    output_format: str = "text",
    output: Path | str | None = None,
    title: str | None = None,
    options: InputOptions | None = None,
    silent: bool = True,
) -> Comparison:
    """Score ``pred_a`` and ``pred_b`` against ``gold`` and test their F differences.

    ``errors``: error records kept per system for the HTML page (default 300 for ``html``,
    none otherwise). ``output`` writes the rendered comparison to a file.
    """
    if output_format not in COMPARE_FORMATS:
        raise ValueError(f"unknown output format {output_format!r}; choose one of "
                         f"{', '.join(COMPARE_FORMATS)}")
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1 for a paired test, not {resamples}")
    keep = errors if errors is not None else (300 if output_format == "html" else 0)
    mapping = as_label_map(label_map, strict=strict_labels)
    runs = tuple(score_system(gold, pred, model=None, name=name, strategy=strategy,
                              threshold=threshold, beta=beta, label_map=mapping, errors=keep,
                              floors=None, options=options or InputOptions(),
                              progress=not silent)
                 for pred, name in zip((pred_a, pred_b), _names(pred_a, pred_b, names),
                                       strict=True))
    run_a, run_b = runs
    test = paired_test(run_a.result, run_b.result, threshold=run_a.threshold,
                       resamples=resamples, seed=seed, confidence=confidence, method=method)
    intervals = tuple(intervals_of(r, resamples=resamples, seed=seed, confidence=confidence)
                      for r in runs)
    comparison = Comparison((run_a, run_b), test, (intervals[0], intervals[1]))
    rendered = comparison.render(output_format, title=title)
    if output is not None:
        write_text(output, rendered if rendered.endswith("\n") else rendered + "\n",
                   f"{output_format} comparison")
    if not silent:
        if output is not None:
            msg.good(f"Saved the {output_format} comparison to {output}")
        else:
            blocks.text(rendered)
    return comparison
