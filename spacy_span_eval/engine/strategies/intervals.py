"""Exact interval arithmetic for IoU against a selection of spans (SPEC 2.1).

All arithmetic is on integers; IoU values are compared as fractions, so ties and threshold
edges are exact (no phantom characters, no ``end + 1``).
"""

from __future__ import annotations

from collections.abc import Sequence


def covered(g_start: int, g_end: int, spans: Sequence[tuple[int, int]]) -> int:
    """How many units of ``[g_start, g_end)`` the union of ``spans`` covers."""
    clipped = sorted((max(s, g_start), min(e, g_end)) for s, e in spans)
    total = 0
    cur_s, cur_e = None, None
    for s, e in clipped:
        if s >= e:
            continue
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        elif e > cur_e:
            cur_e = e
    if cur_e is not None:
        total += cur_e - cur_s
    return total


def iou_parts(g_start: int, g_end: int, spans: Sequence[tuple[int, int]]) -> tuple[int, int]:
    """``(|g ∩ ∪S|, |g ∪ ∪S|)`` for spans that all overlap g (so the union is one interval)."""
    lo = min(g_start, min(s for s, _ in spans))
    hi = max(g_end, max(e for _, e in spans))
    return covered(g_start, g_end, spans), hi - lo


def best_window(g_start: int, g_end: int, cands: Sequence[tuple[int, int]]
                ) -> tuple[int, int, tuple[int, ...]]:
    """The best selection of ``cands`` (all overlapping g) by the window rule of SPEC 2.1.

    Windows ``[a, b)`` with ``a`` in {g.start} ∪ candidate starts (<= g.start) and ``b`` in
    {g.end} ∪ candidate ends (>= g.end); a window selects every candidate inside it. Highest
    IoU wins; ties: fewer spans, then smaller ``a``, then smaller ``b``. Returns
    ``(intersection, union, selected indices)``.
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
            # Strictly better IoU, or equal IoU with fewer spans; a and b only ever grow,
            # so the first window found wins the remaining ties.
            if lhs > rhs or (lhs == rhs and len(sel) < len(b_sel)):
                best = (inter, union, sel)
    assert best is not None, "best_window needs at least one candidate"
    return best
