"""The self-contained HTML report page (:func:`~.page.render_page`): one system, or two side by
side. Importing it loads Jinja2 and the chart code, so the renderers that share a module with
lighter formats import it only when a page is rendered."""

from .page import render_page

__all__ = ["render_page"]
