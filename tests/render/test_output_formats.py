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
