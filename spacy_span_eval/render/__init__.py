"""Renderers: a value in, text out (plain text, Markdown, JSON, HTML). Pure: they never read
files, score or print.

The names of the output formats are kept here, apart from their renderers: the command line
lists them (``--format``) without importing the renderers, the engine or numpy. Each
command's formats are listed on their own, so a new format of one command touches only that
command's renderers."""

#: The formats of ``evaluate``, ``gate`` and ``demo`` (each has one renderer in
#: :data:`.report.REPORT_RENDERERS`).
OUTPUT_FORMATS: tuple[str, ...] = ("text", "json", "markdown")
#: What ``compare`` writes (renderers: :data:`.comparison.COMPARISON_RENDERERS`).
COMPARE_FORMATS: tuple[str, ...] = ("text", "json", "markdown", "html")
