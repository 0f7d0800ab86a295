"""Renderers: a value in, text out (plain text, Markdown, JSON, HTML). Pure: they never read
files, score or print."""
