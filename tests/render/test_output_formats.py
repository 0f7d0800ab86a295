"""Each output format is one renderer in its command's table: a format named without a renderer
fails when the renderers are imported, never falls back to another format's output."""

from __future__ import annotations

import importlib

import pytest

import spacy_span_eval.render.comparison as comparison
import spacy_span_eval.render.report as report
from spacy_span_eval.cli.options import CompareFormat, OutputFormat


def test_every_listed_format_has_its_own_renderer():
    assert tuple(report.REPORT_RENDERERS) == report.OUTPUT_FORMATS
    assert tuple(comparison.COMPARISON_RENDERERS) == report.COMPARE_FORMATS
    assert len(set(report.REPORT_RENDERERS.values())) == len(report.OUTPUT_FORMATS)
    assert len(set(comparison.COMPARISON_RENDERERS.values())) == len(report.COMPARE_FORMATS)
    # the command line offers exactly these
    assert [f.value for f in OutputFormat] == list(report.OUTPUT_FORMATS)
    assert [f.value for f in CompareFormat] == list(report.COMPARE_FORMATS)


def test_a_compare_format_without_a_renderer_fails_at_import(monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(report, "COMPARE_FORMATS", (*report.COMPARE_FORMATS, "yaml"))
        with pytest.raises(ImportError, match="comparison formats .* and renderers .* differ"):
            importlib.reload(comparison)
    importlib.reload(comparison)  # as it was


def test_a_report_format_without_a_renderer_is_refused_not_replaced(monkeypatch):
    monkeypatch.setattr(report, "OUTPUT_FORMATS", (*report.OUTPUT_FORMATS, "yaml"))
    with pytest.raises((KeyError, ValueError), match="yaml"):
        report.render_report(object(), "yaml")  # type: ignore[arg-type]


def test_a_new_format_is_a_renderer_in_its_table_and_its_name(monkeypatch):
    # The recipe of docs/architecture.md, and nothing else: a renderer in the command's table
    # and its name in the command's list of formats.
    from spacy_span_eval import Document, SpanEvaluator
    from spacy_span_eval.jobs.evaluate import Report

    def toy(rep: Report, errors: int, wide: bool) -> str:
        return f"toy {rep.command}: {rep.result.n_documents} document(s), errors={errors}"

    monkeypatch.setattr(report, "OUTPUT_FORMATS", (*report.OUTPUT_FORMATS, "toy"))
    monkeypatch.setitem(report.REPORT_RENDERERS, "toy", toy)
    report.check_renderers("report", report.OUTPUT_FORMATS, report.REPORT_RENDERERS)
    doc = Document.create(id="d", text="Ana met Bo", gold=[(0, 3, "PER")], pred=[(0, 3, "PER")])
    rep = Report("evaluate", SpanEvaluator(strategy="exact").evaluate([doc]))
    assert report.render_report(rep, "toy", errors=2) == "toy evaluate: 1 document(s), errors=2"
    assert report.render_outputs(rep, "toy").report == "toy evaluate: 1 document(s), errors=0"
    # a report format is not a compare format by itself: compare lists its own
    with pytest.raises(ValueError, match="unknown output format 'toy'"):
        comparison.render_comparison(object(), "toy")  # type: ignore[arg-type]

    monkeypatch.setitem(comparison.COMPARISON_RENDERERS, "toy", lambda c, title: f"toy {title}")
    assert comparison.render_comparison(object(), "toy", title="A vs B") == "toy A vs B"  # type: ignore[arg-type]
