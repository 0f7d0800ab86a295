"""Shared fixtures: where the real corpora are, and how their absence is handled."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

REPO = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("SPACY_SPAN_EVAL_DATA", REPO.parent / "shared" / "data"))

# CI explores the same examples on every run, so a landing never hinges on a lucky draw;
# local runs keep exploring new ones (run with --hypothesis-seed to vary them on purpose).
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI") == "true":
    settings.load_profile("ci")


def data_path(*parts: str) -> Path:
    """A file under the shared corpora; skip when absent, except under CI=true (then fail)."""
    path = DATA.joinpath(*parts)
    if not path.exists():
        message = f"shared corpus not found at {path} (set SPACY_SPAN_EVAL_DATA)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path
