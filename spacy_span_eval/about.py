"""The package version, in one place (pyproject.toml reads it from here)."""

__version__ = "0.1.0"


def version_line() -> str:
    """What ``spacy-span-eval --version`` prints."""
    return f"spacy-span-eval {__version__}"
