"""The window search of ``two_sided`` as first written: the reference that
``tests/engine/test_best_selection_oracle.py`` and ``bench/bench_dense_overlaps.py`` compare
the package's ``best_window`` (``engine/strategies/intervals.py``) with. Not used for
scoring, so it lives with the tests, not in the package."""

from __future__ import annotations

from collections.abc import Sequence

from spacy_span_eval.engine.strategies.intervals import iou_parts


def best_window_reference(
    g_start: int, g_end: int, cands: Sequence[tuple[int, int]]
) -> tuple[int, int, tuple[int, ...]]:
    """The window search as first written: every window, each union recomputed from scratch.

    O(|a| * |b| * k log k), cubic or worse in the candidates of one annotation.
    """
    a_options = sorted({g_start} | {s for s, _ in cands if s <= g_start})
    b_options = sorted({g_end} | {e for _, e in cands if e >= g_end})
    best: tuple[int, int, tuple[int, ...]] | None = None
    for a in a_options:
        inside_a = [i for i, (s, _) in enumerate(cands) if s >= a]
        for b in b_options:
            sel = tuple(i for i in inside_a if cands[i][1] <= b)
            if not sel:
                continue
            inter, union = iou_parts(g_start, g_end, [cands[i] for i in sel])
            if best is None:
                best = (inter, union, sel)
                continue
            b_inter, b_union, b_sel = best
            lhs, rhs = inter * b_union, b_inter * union
            if lhs > rhs or (lhs == rhs and len(sel) < len(b_sel)):
                best = (inter, union, sel)
    assert best is not None, "best_window_reference needs at least one candidate"
    return best
