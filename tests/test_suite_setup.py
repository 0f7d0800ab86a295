"""The suite's own setup: CI=true makes hypothesis derandomized in every process pytest runs
tests in (pytest-xdist workers load conftest.py too), so a CI run is repeatable."""

from __future__ import annotations

from hypothesis import settings

from conftest import CI


def test_hypothesis_is_derandomized_exactly_under_ci():
    assert settings.default.derandomize is CI
    if CI:
        assert settings.get_profile("ci").derandomize
