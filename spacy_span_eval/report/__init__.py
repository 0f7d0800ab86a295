"""Reports people can read: one self-contained HTML page per evaluation (or comparison).

:func:`report_files` reads, scores and writes the page; :func:`run_system` and
:func:`render_page` are the two halves for callers that already have documents.
"""

from __future__ import annotations

from .build import HtmlReport, report_files
from .collect import CURVE_THRESHOLDS, DocumentView, SystemRun, run_system
from .html import render_page
from .inputs import InputOptions

__all__ = ["CURVE_THRESHOLDS", "DocumentView", "HtmlReport", "InputOptions", "SystemRun",
           "render_page", "report_files", "run_system"]
