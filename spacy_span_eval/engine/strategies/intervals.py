"""Exact interval arithmetic for IoU against a selection of spans (semantics §2.1).

All arithmetic is on integers; IoU values are compared as fractions, so ties and threshold
edges are exact (no phantom characters, no ``end + 1``).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence


def covered(g_start: int, g_end: int, spans: Sequence[tuple[int, int]]) -> int:
    """How many units of ``[g_start, g_end)`` the union of ``spans`` covers."""
    clipped = sorted((max(s, g_start), min(e, g_end)) for s, e in spans)
    total = 0
    cur_s, cur_e = 0, None  # cur_s is read only once cur_e is set
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


def best_window(
    g_start: int, g_end: int, cands: Sequence[tuple[int, int]]
) -> tuple[int, int, tuple[int, ...]]:
    """The best selection of ``cands`` (all overlapping g) by the window rule of semantics §2.1.

    Windows ``[a, b)`` with ``a`` in {g.start} ∪ candidate starts (<= g.start) and ``b`` in
    {g.end} ∪ candidate ends (>= g.end); a window selects every candidate inside it. Highest
    IoU wins; ties: fewer spans, then smaller ``a``, then smaller ``b``. Returns
    ``(intersection, union, selected indices)``: the whole window, in input order, before
    :func:`minimal_cover` reduces it.

    Same result as the first search (kept in the tests), in O(|a| * (|b| + |both|) + k log k) for k
    candidates instead of O(|a| * |b| * k log k). Relative to g a candidate is *inner* (inside
    g: in every window), *left* (sticks out on the left only: selected when ``s >= a``),
    *right* (on the right only: selected when ``e <= b``) or *both*. Within g the left ones
    cover a prefix ``[g.start, x(a))``, the right ones a suffix ``[y(b), g.end)``, a "both" one
    all of g, and the inner ones a fixed union whose share of ``[x, y)`` comes from prefix
    sums; so each window costs O(1) once its ``a``- and ``b``-side aggregates are known.
    """
    gs, ge = g_start, g_end
    inner: list[tuple[int, int]] = []
    left: list[tuple[int, int]] = []  # sorted by start below
    right: list[tuple[int, int]] = []  # (end, start), sorted by end below
    both: list[tuple[int, int]] = []  # (end, start), sorted by end below
    for s, e in cands:
        if s < gs:
            if e > ge:
                both.append((e, s))
            else:
                left.append((s, e))
        elif e > ge:
            right.append((e, s))
        else:
            inner.append((s, e))
    if not (inner or left or right or both):
        raise ValueError("best_window needs at least one candidate")
    left.sort()
    right.sort()
    both.sort()
    n_inner = len(inner)

    # The inner union as disjoint pieces with prefix lengths: in_g(t) = |inner ∩ [gs, t)|.
    piece_s: list[int] = []
    piece_e: list[int] = []
    for s, e in sorted(inner):
        if piece_e and s <= piece_e[-1]:
            if e > piece_e[-1]:
                piece_e[-1] = e
        else:
            piece_s.append(s)
            piece_e.append(e)
    before = [0]
    for s, e in zip(piece_s, piece_e, strict=True):
        before.append(before[-1] + e - s)

    def in_g(t: int) -> int:
        k = bisect_right(piece_s, t) - 1
        if k < 0:
            return 0
        return before[k] + min(t, piece_e[k]) - piece_s[k]

    # b side: right candidates with e <= b (a prefix of `right`).
    b_options = sorted({ge} | {e for e, _ in right} | {e for e, _ in both})
    b_side = []  # (b, n_right, y, in_g(y), hi_right)
    r_ends = [e for e, _ in right]
    min_start: list[int] = []
    for _, s in right:
        min_start.append(s if not min_start or s < min_start[-1] else min_start[-1])
    for b in b_options:
        k = bisect_right(r_ends, b)
        if k:
            y = min_start[k - 1]
            b_side.append((b, k, y, in_g(y), r_ends[k - 1]))
        else:
            b_side.append((b, 0, ge, in_g(ge), ge))

    # a side: left candidates with s >= a (a suffix of `left`).
    l_starts = [s for s, _ in left]
    max_end = [0] * len(left)
    for i in range(len(left) - 1, -1, -1):
        e = left[i][1]
        max_end[i] = e if i == len(left) - 1 or e > max_end[i + 1] else max_end[i + 1]
    a_options = sorted({gs} | set(l_starts) | {s for _, s in both})

    full = ge - gs
    best: tuple[int, int, int] | None = None  # (inter, union, count)
    best_ab = (gs, ge)
    for a in a_options:
        k = bisect_left(l_starts, a)
        n_left = len(left) - k
        if n_left:
            x, lo_left = max_end[k], l_starts[k]
        else:
            x, lo_left = gs, gs
        in_x = in_g(x)
        eligible = [(e, s) for e, s in both if s >= a]
        j, n_both, lo_both, n_eligible = 0, 0, gs, len(eligible)
        for b, n_right, y, in_y, hi_right in b_side:
            while j < n_eligible and eligible[j][0] <= b:
                if eligible[j][1] < lo_both:
                    lo_both = eligible[j][1]
                j += 1
                n_both += 1
            count = n_inner + n_left + n_right + n_both
            if not count:
                continue
            if n_both:
                inter = full
                hi = max(eligible[j - 1][0], hi_right)  # `both` is sorted by end
                lo = min(lo_both, lo_left)
            else:
                inter = full if x >= y else (x - gs) + (ge - y) + in_y - in_x
                hi, lo = hi_right, lo_left
            union = hi - lo
            if best is None:
                best, best_ab = (inter, union, count), (a, b)
                continue
            b_inter, b_union, b_count = best
            lhs, rhs = inter * b_union, b_inter * union
            # Strictly better IoU, or equal IoU with fewer spans; a and b only ever grow,
            # so the first window found wins the remaining ties.
            if lhs > rhs or (lhs == rhs and count < b_count):
                best, best_ab = (inter, union, count), (a, b)
    assert best is not None
    a, b = best_ab
    sel = tuple(i for i, (s, e) in enumerate(cands) if s >= a and e <= b)
    return best[0], best[1], sel


def minimal_cover(cands: Sequence[tuple[int, int]], selection: Sequence[int]) -> tuple[int, ...]:
    """The minimal cover of the selection's union (semantics §2.1), as sorted indices into
    ``cands``.

    Walk each connected piece of the union left to right; at each point ``x`` not yet covered
    (the piece's start, then the end of the last span taken) take, among the selected spans
    with ``start <= x < end``, the one that ends furthest (ties: smaller start, then earlier in
    ``cands``). The union is unchanged; nested spans and identical duplicates drop out.
    """
    order = sorted(selection, key=lambda i: (cands[i][0], i))
    chosen: list[int] = []
    n, j = len(order), 0
    x = None  # everything before x is covered
    while j < n:
        if x is None or cands[order[j]][0] > x:
            x = cands[order[j]][0]  # a gap: the next piece starts here
        pick, pick_end = -1, x
        while j < n and cands[order[j]][0] <= x:
            i = order[j]
            # Strictly further only: an equal end keeps the earlier pick, which has the
            # smaller start (or the same start and an earlier index).
            if cands[i][1] > pick_end:
                pick, pick_end = i, cands[i][1]
            j += 1
        if pick >= 0:
            chosen.append(pick)
            x = pick_end
    return tuple(sorted(chosen))
