"""The names of the output formats, apart from their renderers: the command line lists them
(``--format``) without importing the renderers, the engine or numpy."""

from __future__ import annotations

__all__ = ["COMPARE_FORMATS", "OUTPUT_FORMATS"]

#: The formats of ``evaluate``, ``gate`` and ``demo`` (each has one renderer in
#: :data:`.report.REPORT_RENDERERS`).
OUTPUT_FORMATS: tuple[str, ...] = ("text", "json", "markdown")
#: What ``compare`` writes: the report's formats and an HTML page (renderers:
#: :data:`.comparison.COMPARISON_RENDERERS`).
COMPARE_FORMATS: tuple[str, ...] = (*OUTPUT_FORMATS, "html")
