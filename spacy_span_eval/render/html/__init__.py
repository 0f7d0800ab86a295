"""The self-contained HTML report page: one system, or two side by side."""

from __future__ import annotations

from .page import render_page

__all__ = ["render_page"]
