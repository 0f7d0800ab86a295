"""Exact interval arithmetic for IoU against a selection of spans (semantics §2.1).

All arithmetic is on integers; IoU values are compared as fractions, so ties and threshold
edges are exact (no phantom characters, no ``end + 1``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np


def covered(g_start: int, g_end: int, spans: Sequence[tuple[int, int]]) -> int:
    """How many units of ``[g_start, g_end)`` the union of ``spans`` covers."""
    total, reach = 0, g_start  # everything in [g_start, reach) is counted
    for s, e in sorted(spans):
        s, e = max(s, reach), min(e, g_end)
        if e > s:
            total += e - s
            reach = e
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

    Same result as the first search (kept in the tests) in O(k log k) per round of a
    fractional search that converges in a few rounds, instead of visiting every window.
    Relative to g a candidate is *inner* (inside g: in every window), *left* (sticks out on
    the left only: selected when ``s >= a``), *right* (on the right only: selected when
    ``e <= b``) or *both*. Two kinds of window:

    - one that selects a "both" candidate covers all of g, and its union is at least that
      candidate's length; so the best of them is a shortest "both" candidate's own window,
      holding what lies inside it (:func:`_both_windows`);
    - one that selects none is fixed by how many left and right candidates it takes: the left
      ones cover a prefix ``[g.start, x)`` of g, the right ones a suffix ``[y, g.end)``, the
      inner ones a fixed union, and the union is ``hi(b) - lo(a)``. The IoU is a ratio of sums
      of one a-side and one b-side term (on either side of ``x >= y``), so
      ``inter - λ·union`` is maximised row by row with a prefix split and a suffix maximum,
      and λ rises to the best IoU (Dinkelbach's method, :class:`_SideWindows`).
    """
    if not cands:
        raise ValueError("best_window needs at least one candidate")
    gs, ge = g_start, g_end
    if all(gs <= s and e <= ge for s, e in cands):  # the one window is g: it takes them all
        return covered(gs, ge, cands), ge - gs, tuple(range(len(cands)))
    pairs = np.array(cands, dtype=np.int64).reshape(-1, 2)
    s_all, e_all = pairs[:, 0], pairs[:, 1]
    is_both = (s_all < gs) & (e_all > ge)
    a_options = np.unique(np.append(s_all[s_all < gs], gs))

    # The IoU of the best window with a "both" candidate is known up front; its tie-breaks
    # are only worked out when no other window does strictly better.
    floor = (ge - gs, int((e_all - s_all)[is_both].min())) if is_both.any() else None
    side = _SideWindows(gs, ge, s_all, e_all, is_both, a_options)
    best = side.best(floor) if side.any else None
    if floor is not None and (best is None or best[0] * floor[1] == floor[0] * best[1]):
        with_both = _both_windows(gs, ge, s_all, e_all, is_both, a_options)
        if _better(with_both, best):
            best = with_both
    assert best is not None
    inter, union, _, a, b = best
    sel = tuple(np.flatnonzero((s_all >= a) & (e_all <= b)).tolist())
    return inter, union, sel


def _better(
    new: tuple[int, int, int, int, int], old: tuple[int, int, int, int, int] | None
) -> bool:
    """Whether window ``new`` beats ``old``: higher IoU, then fewer spans, smaller a, b."""
    if old is None:
        return True
    lhs, rhs = new[0] * old[1], old[0] * new[1]
    return lhs > rhs or (lhs == rhs and new[2:] < old[2:])


def _both_windows(
    gs: int,
    ge: int,
    s_all: np.ndarray,
    e_all: np.ndarray,
    is_both: np.ndarray,
    a_options: np.ndarray,
) -> tuple[int, int, int, int, int]:
    """The best window that selects a "both" candidate: ``(inter, union, count, a, b)``.

    Its union contains every "both" candidate it selects, so it is at least the shortest
    one's length, which that candidate's own window ``[s, e)`` reaches (it selects only what
    lies inside ``[s, e)``). Among the shortest: fewer spans inside, then the smallest ``a``
    that adds nothing (above the last start before ``s`` of a candidate ending by ``e``), then
    the smaller end.
    """
    lengths = e_all - s_all
    shortest = int(lengths[is_both].min())
    tight = np.flatnonzero(is_both & (lengths == shortest))
    counts, starts = [], []
    rows = max(1, _CELLS // len(s_all))
    for lo in range(0, len(tight), rows):
        ts, te = s_all[tight[lo : lo + rows], None], e_all[tight[lo : lo + rows], None]
        ends_by = e_all[None, :] <= te
        counts.append((ends_by & (s_all[None, :] >= ts)).sum(axis=1))
        before = np.where(ends_by & (s_all[None, :] < ts), s_all[None, :], _FLOOR).max(axis=1)
        starts.append(a_options[np.searchsorted(a_options, before, side="right")])
    count, a, b = np.concatenate(counts), np.concatenate(starts), e_all[tight]
    pick = int(np.lexsort((b, a, count))[0])  # every one has the same IoU
    return ge - gs, shortest, int(count[pick]), int(a[pick]), int(b[pick])


_CELLS = 1 << 20  # cells of one candidates-by-candidates block
_FLOOR = np.iinfo(np.int64).min


class _SideWindows:
    """The windows that select no "both" candidate, indexed by (k, j): the left candidates
    from the k-th distinct start on, the right ones up to the j-th distinct end.

    Coordinates are taken relative to g.start. With ``x(k)`` the furthest end of the left
    ones and ``y(j)`` the nearest start of the right ones, ``U(t)`` the length of
    ``[g.start, t)`` the inner union leaves uncovered, the window's intersection is
    ``|g| - max(0, U(y) - U(x))`` and its union ``hi(j) - lo(k)``. A window is allowed when
    it selects no "both" candidate: ``k`` at least ``kmin(j)``.
    """

    def __init__(
        self,
        gs: int,
        ge: int,
        s_all: np.ndarray,
        e_all: np.ndarray,
        is_both: np.ndarray,
        a_options: np.ndarray,
    ) -> None:
        self.gs, self.a_options = gs, a_options
        self.full = full = ge - gs
        s, e = s_all - gs, e_all - gs
        inner = (s >= 0) & (e <= full)
        left = (s < 0) & (e <= full)
        right = (s >= 0) & (e > full)
        self.n_inner = int(inner.sum())
        uncovered = _uncovered(s[inner], e[inner])

        order = np.argsort(s[left], kind="stable")
        ls, le = s[left][order], e[left][order]
        starts = np.unique(ls)
        first = np.searchsorted(ls, starts)
        x = np.maximum.accumulate(le[::-1])[::-1][first] if len(ls) else le
        self.lo = np.append(starts, 0)  # lo(k); k = m takes no left candidate
        self.n_left = np.append(len(ls) - first, 0)
        self.ux = uncovered(np.append(x, 0))

        order = np.argsort(e[right], kind="stable")
        rs, re_ = s[right][order], e[right][order]
        ends = np.unique(re_)
        last = np.searchsorted(re_, ends, side="right")
        y = np.minimum.accumulate(rs)[last - 1] if len(rs) else rs
        self.hi = np.insert(ends, 0, full)  # hi(j); j = 0 takes no right candidate
        self.n_right = np.insert(last, 0, 0)
        self.uy = uncovered(np.insert(y, 0, full))

        # The last "both" start among those ending by hi(j): a must lie above it.
        order = np.argsort(e[is_both], kind="stable")
        bs, be = s[is_both][order], e[is_both][order]
        at = np.searchsorted(be, self.hi, side="right") - 1
        self.above = (
            np.where(at >= 0, np.maximum.accumulate(bs)[np.maximum(at, 0)], _FLOOR)
            if len(bs)
            else np.full(len(self.hi), _FLOOR)
        )
        self.kmin = np.searchsorted(self.lo, self.above, side="right")
        # Part one of row j (U(x) >= U(y): all of g is covered) is k <= t(j); U(x) falls with k.
        self.t = np.searchsorted(-self.ux, -self.uy, side="right") - 1
        self.m = len(starts)
        self.any = self.n_inner > 0 or self.m > 0 or len(ends) > 0
        span = int(max(e_all.max(), ge) - min(s_all.min(), gs))
        self.dtype: Any = np.int64 if span < 1 << 30 else object  # products stay exact

    def rows(self, p: int, q: int) -> tuple[np.ndarray, np.ndarray]:
        """Per row j, the largest ``q·inter - p·union`` over allowed k, and the largest k
        that reaches it."""
        lo, hi = self.lo.astype(self.dtype), self.hi.astype(self.dtype)
        ux, uy = self.ux.astype(self.dtype), self.uy.astype(self.dtype)
        floor = _FLOOR if self.dtype is np.int64 else -(1 << 256)
        a_term = p * lo
        c_term = q * ux + p * lo
        b_term = q * self.full - p * hi
        d_term = q * self.full - q * uy - p * hi
        top, top_at = _suffix_max(c_term)
        t, kmin, m = self.t, self.kmin, self.m
        one = t >= kmin
        val1 = np.where(one, a_term[np.maximum(t, 0)] + b_term, floor)
        start = np.maximum(t + 1, kmin)
        two = start <= m
        at = np.minimum(start, m)
        val2 = np.where(two, top[at] + d_term, floor)
        k2 = top_at[at]
        use2 = two & (val2 >= val1)
        vals = np.where(use2, val2, val1)
        ks = np.where(use2, k2, t)
        if not self.n_inner:  # row 0 without k = m selects nothing
            if m:
                row0 = q * np.minimum(self.full, self.full - uy[0] + ux[:m]) - p * (hi[0] - lo[:m])
                k0 = m - 1 - int(np.argmax(row0[::-1]))
                vals[0], ks[0] = row0[k0], k0
            else:
                vals[0] = floor
        valid = one | two
        if not self.n_inner:
            valid[0] = bool(m)
        return np.where(valid, vals, floor), ks

    def iou(self, k: int, j: int) -> tuple[int, int]:
        inter = self.full - max(0, int(self.uy[j]) - int(self.ux[k]))
        return inter, int(self.hi[j]) - int(self.lo[k])

    def best(self, floor: tuple[int, int] | None) -> tuple[int, int, int, int, int] | None:
        """The best of these windows when its IoU reaches ``floor`` (a fraction), else None."""
        p, q = floor if floor is not None else (0, 1)
        while True:
            vals, ks = self.rows(p, q)
            j = int(np.argmax(vals))
            top = vals[j]
            if top <= 0:
                break
            p, q = self.iou(int(ks[j]), j)
        if top < 0:
            return None
        rows = np.flatnonzero(vals == 0)
        ks = ks[rows].astype(np.int64)
        counts = self.n_inner + self.n_left[ks] + self.n_right[rows]
        below = np.where(ks > 0, self.lo[np.maximum(ks - 1, 0)], _FLOOR)
        lower = np.maximum(below, self.above[rows]) + self.gs
        a = self.a_options[np.searchsorted(self.a_options, lower, side="right")]
        b = self.hi[rows] + self.gs
        pick = int(np.lexsort((b, a, counts))[0])
        inter, union = self.iou(int(ks[pick]), int(rows[pick]))
        return inter, union, int(counts[pick]), int(a[pick]), int(b[pick])


def _uncovered(starts: np.ndarray, ends: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """``U(t)``: how much of ``[0, t)`` the union of the spans leaves uncovered (t >= 0)."""
    order = np.argsort(starts, kind="stable")
    s, e = starts[order], ends[order]
    reach = np.maximum.accumulate(e) if len(e) else e
    new = np.ones(len(s), dtype=bool)
    new[1:] = s[1:] > reach[:-1]
    piece_s = s[new]
    piece_e = reach[np.append(np.flatnonzero(new)[1:] - 1, len(s) - 1)] if len(s) else s
    before = np.concatenate(([0], np.cumsum(piece_e - piece_s)))

    def uncovered(t: np.ndarray) -> np.ndarray:
        if not len(piece_s):
            return t.copy()
        k = np.searchsorted(piece_s, t, side="right") - 1
        kk = np.maximum(k, 0)
        inside = np.where(k >= 0, before[kk] + np.minimum(t, piece_e[kk]) - piece_s[kk], 0)
        result: np.ndarray = t - inside
        return result

    return uncovered


def _suffix_max(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The maximum of ``values[k:]`` for each k, and the largest index that reaches it."""
    rev = values[::-1]
    top = np.maximum.accumulate(rev)
    record = np.ones(len(rev), dtype=bool)
    record[1:] = rev[1:] > top[:-1]
    first = np.maximum.accumulate(np.where(record, np.arange(len(rev)), 0))
    return top[::-1], (len(rev) - 1 - first)[::-1]


def minimal_cover(cands: Sequence[tuple[int, int]], selection: Sequence[int]) -> tuple[int, ...]:
    """The minimal cover of the selection's union (semantics §2.1), as sorted indices into
    ``cands``.

    Walk each connected piece of the union left to right; at each point ``x`` not yet covered
    (the piece's start, then the end of the last span taken) take, among the selected spans
    with ``start <= x < end``, the one that ends furthest (ties: smaller start, then earlier in
    ``cands``). The union is unchanged; nested spans and identical duplicates drop out.
    """
    chosen: list[int] = []
    x: float = -math.inf  # everything before x is covered
    pick = -1  # the span over x that ends furthest so far (-1: none yet)
    for i in sorted(selection, key=lambda i: (cands[i][0], i)):
        s, e = cands[i]
        if pick >= 0 and s > x:  # i starts past x: the pick is taken, x moves to its end
            chosen.append(pick)
            x, pick = cands[pick][1], -1
        x = max(x, s)  # (past x: a gap, the next piece starts at s)
        # Strictly further only: an equal end keeps the earlier pick, which has the smaller
        # start (or the same start and an earlier index).
        if e > (x if pick < 0 else cands[pick][1]):
            pick = i
    chosen += [pick] if pick >= 0 else []
    return tuple(sorted(chosen))
