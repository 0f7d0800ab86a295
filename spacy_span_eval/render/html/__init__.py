"""The self-contained HTML report page: one system, or two side by side.

:mod:`.page` (and with it Jinja2 and the chart code) is imported when a page is rendered, not
when this package is: the CLI imports the renderers to list its formats, and scoring files
must not pay for a page it does not write.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...engine.bootstrap import BootstrapIntervals
    from ...engine.paired import PairedTest
    from ...jobs.disagreements import Disagreements
    from ...jobs.system_run import SystemRun

__all__ = ["render_page"]


def render_page(
    runs: Sequence[SystemRun],
    *,
    intervals: Sequence[BootstrapIntervals | None] | None = None,
    comparison: PairedTest | None = None,
    disagreements: Disagreements | None = None,
    title: str | None = None,
) -> str:
    """The report page of one system, or of two with their paired comparison
    (:func:`.page.render_page`)."""
    from .page import render_page as render

    return render(
        runs,
        intervals=intervals,
        comparison=comparison,
        disagreements=disagreements,
        title=title,
    )
