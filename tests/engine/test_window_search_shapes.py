"""The window search of ``two_sided`` on shapes the small hypothesis cases rarely reach: many
candidates sticking out on both sides of one annotation, many of the same length, and
coordinates too large for 64-bit products. The package must return the reference window
(``tests/reference_windows.py``) exactly: IoU parts and selection."""

from __future__ import annotations

import random

import pytest

from spacy_span_eval.engine.strategies.intervals import best_window

from reference_windows import best_window_reference


def straddling(seed: int, n: int) -> tuple[int, int, list[tuple[int, int]]]:
    """One annotation and ``n`` candidates around it: on both sides, one side, inside."""
    rng = random.Random(seed)
    gs, ge = 100, 140
    cands = []
    for _ in range(n):
        s = rng.choice([rng.randrange(60, 100), rng.randrange(100, 139)])
        e = rng.choice([rng.randrange(max(s, 100) + 1, 141), rng.randrange(141, 190)])
        cands.append((s, e))
    return gs, ge, cands


@pytest.mark.parametrize("seed", range(30))
def test_straddling_candidates_give_the_reference_window(seed):
    gs, ge, cands = straddling(seed, 25)
    assert best_window(gs, ge, cands) == best_window_reference(gs, ge, cands)


@pytest.mark.parametrize("seed", range(10))
def test_candidates_of_one_length_give_the_reference_window(seed):
    rng = random.Random(seed)
    cands = [(s, s + 50) for s in (rng.randrange(60, 100) for _ in range(20))]
    cands += [(s, s + 30) for s in (rng.randrange(80, 120) for _ in range(10))]
    assert best_window(95, 140, cands) == best_window_reference(95, 140, cands)


@pytest.mark.parametrize("seed", range(10))
def test_coordinates_past_64_bit_products_stay_exact(seed):
    gs, ge, cands = straddling(seed, 12)
    scale = 1 << 33  # squares of these spans do not fit in 64 bits
    big = [(s * scale + 7, e * scale - 3) for s, e in cands]
    got = best_window(gs * scale, ge * scale, big)
    assert got == best_window_reference(gs * scale, ge * scale, big)


def test_no_candidate_is_an_error():
    with pytest.raises(ValueError, match="at least one candidate"):
        best_window(0, 5, [])
