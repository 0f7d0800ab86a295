"""What ``report`` returns: the systems shown, their intervals and the page (a module of its
own, so that importing the API loads no bootstrap or report job)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..engine.bootstrap import BootstrapIntervals
    from ..engine.gates import GateVerdict
    from .system_run import SystemRun

__all__ = ["HtmlReport"]


@dataclass
class HtmlReport:
    """The systems shown, their intervals and the page (``""`` until it is rendered: the
    report job scores, the API renders)."""

    runs: list[SystemRun] = field(repr=False)
    intervals: list[BootstrapIntervals | None] = field(repr=False)
    html: str = field(default="", repr=False)

    @property
    def verdict(self) -> GateVerdict | None:
        return self.runs[0].verdict

    def _repr_html_(self) -> str:
        """The notebook view: each system's scores at the main threshold (the page itself is
        in :attr:`html`)."""
        return "".join(run.result._repr_html_() for run in self.runs)
