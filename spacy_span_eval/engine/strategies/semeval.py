"""SemEval-2013 / MUC scoring (semantics §2.5): nervaluate's four schemas in one pass.

Each schema sorts the overlapping (gold, prediction) pairs of a document into ``correct``,
``incorrect`` or ``partial``; a one-to-one assignment then leaves each annotation matched or
``missed`` and each prediction matched or ``spurious``:

========  =================================  ===================
schema    a matched pair is ``correct`` when  otherwise
========  =================================  ===================
strict    same boundaries and same label     ``incorrect``
exact     same boundaries                    ``incorrect``
partial   same boundaries                    ``partial`` (half)
ent_type  same label                         ``incorrect``
========  =================================  ===================

**The assignment** (one per schema and scope; greedy, order-independent by construction):
the overlapping pairs in order of ``correct`` first, then higher IoU, then gold start, gold
end, prediction start, prediction end, gold label, predicted label; a pair is taken when
neither of its spans is taken yet. Only identical spans can tie on every key, and swapping
identical spans changes no count.

**Scopes.** Per label, each label's annotations and predictions are matched among themselves
(as nervaluate's per-type tables do); overall, every annotation and prediction of a document
are matched together, so a pair may cross labels. The overall counts are therefore not the
sum of the labels' (a PER annotation predicted as ORG is one ``incorrect`` overall, and one
``missed`` PER plus one ``spurious`` ORG per label); both are additive over documents.

**The ledger** is the strict schema per label: ``tp`` and ``credited`` are the strict
``correct``, ``num_annotated`` its ``possible`` and ``num_predicted`` its ``actual``, so
``fn = incorrect + missed`` and ``fp = incorrect + spurious``. Its micro figures equal the
overall strict figures (``correct``, ``possible`` and ``actual`` agree in both scopes). The
five counts of every schema, per label and overall, are the strategy's side table.

**Unaligned spans** (ones a reader could not put in the unit, semantics §1) match nothing: each
is one ``missed`` (gold) or ``spurious`` (prediction) of its label and overall, in every
schema, as it is one ``fn`` or ``fp`` in the ledger.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import numpy as np

from ..columns import SpanColumns, assign, overlap_pairs
from ..ledger import f_beta, ratio
from .base import Match, Outcome, SideCounts, SideTable, Strategy
from .exact import SameBoundaries
from .two_sided import pairwise_iou

SCHEMAS: tuple[str, ...] = ("strict", "exact", "partial", "ent_type")
COUNTS: tuple[str, ...] = ("correct", "incorrect", "partial", "missed", "spurious")
COR, INC, PAR, MIS, SPU = range(len(COUNTS))


class SemEval(SameBoundaries, Strategy):
    # (SameBoundaries: another label's prediction "covers" an annotation as the strict ledger
    # would have counted it, had the label been right: the same boundaries.)
    name: ClassVar[str] = "semeval"
    infix: ClassVar[str] = "semeval"
    side_table: ClassVar[SideTable] = SideTable(
        "schemas",
        "SemEval-2013 schemas (as nervaluate)",
        "schema",
        SCHEMAS,
        COUNTS,
        unmatched_gold="missed",
        unmatched_pred="spurious",
    )

    @classmethod
    def side_figures(
        cls,
        row: str,
        counts: Mapping[str, int],
        beta: float = 1.0,
        zero_division: float | None = None,
    ) -> dict[str, int | float | None]:
        """MUC / SemEval-2013: ``possible`` = correct + incorrect + partial + missed,
        ``actual`` = correct + incorrect + partial + spurious; precision and recall credit a
        ``partial`` match half (only the partial schema has any)."""
        cor, inc, par, mis, spu = (int(counts[k]) for k in COUNTS)
        possible, actual = cor + inc + par + mis, cor + inc + par + spu
        credit = cor + par / 2
        p, r = ratio(credit, actual, zero_division), ratio(credit, possible, zero_division)
        return {
            "possible": possible,
            "actual": actual,
            "precision": p,
            "recall": r,
            "f": f_beta(p, r, beta, zero_division),
        }

    def run(self, gold: SpanColumns, pred: SpanColumns, n_labels: int) -> Outcome:
        n_g, n_p = len(gold), len(pred)
        pg, pp = overlap_pairs(gold, pred, gold.doc, pred.doc)  # every label, one document
        gs, ge, ps, pe = gold.start[pg], gold.end[pg], pred.start[pp], pred.end[pp]
        gl, pl = gold.label[pg], pred.label[pp]
        same_label = gl == pl
        same_bounds = (gs == ps) & (ge == pe)
        iou = pairwise_iou(gs, ge, ps, pe)
        # Every key but "correct first"; each schema puts its correct pairs in front (stable).
        base = np.lexsort((pl, gl, pe, ps, ge, gs, -iou))
        correct = {
            "strict": same_bounds & same_label,
            "exact": same_bounds,
            "partial": same_bounds,
            "ent_type": same_label,
        }
        within = np.flatnonzero(same_label)  # the per-label scope's pairs

        per_label = np.zeros((n_labels, len(SCHEMAS), len(COUNTS)), dtype=np.int64)
        overall = np.zeros((len(SCHEMAS), len(COUNTS)), dtype=np.int64)
        gold_tp = np.zeros(n_g, dtype=bool)
        credited = np.zeros(n_p, dtype=bool)
        for k, schema in enumerate(SCHEMAS):
            cor = correct[schema]
            order = base[np.argsort(~cor[base], kind="stable")]
            other = PAR if schema == "partial" else INC
            # Overall: every pair of a document.
            g_pair, p_pair = assign(pg, pp, order, n_g, n_p)
            hit = g_pair[g_pair >= 0]
            n_cor = int(cor[hit].sum())
            overall[k, [COR, other, MIS, SPU]] = (
                n_cor,
                hit.size - n_cor,
                n_g - hit.size,
                (p_pair < 0).sum(),
            )
            # Per label: the same-label pairs only, counted under that label.
            sub = np.searchsorted(within, order[same_label[order]])
            g_pair, p_pair = assign(pg[within], pp[within], sub, n_g, n_p)
            g_cor = _correct(g_pair, cor[within])
            for j, ids in (
                (COR, gold.label[g_cor]),
                (other, gold.label[(g_pair >= 0) & ~g_cor]),
                (MIS, gold.label[g_pair < 0]),
                (SPU, pred.label[p_pair < 0]),
            ):
                per_label[:, k, j] = np.bincount(ids, minlength=n_labels)
            if schema == "strict":  # the ledger (semantics §2.5)
                gold_tp, credited = g_cor, _correct(p_pair, cor[within])

        match = _match(gold_tp, credited, pg[within], pp[within], iou[within])
        return Outcome(gold, pred, match, side=SideCounts(per_label[None], overall[None]))


def _match(
    gold_tp: np.ndarray, credited: np.ndarray, pg: np.ndarray, pp: np.ndarray, iou: np.ndarray
) -> Match:
    """The strict schema's ledger, each span scored by its best same-label pair's IoU (``pg``,
    ``pp``, ``iou``): alone, an annotation is found by an identical prediction of its label."""
    gold_score = np.zeros(gold_tp.shape[0])
    np.maximum.at(gold_score, pg, iou)
    pred_score = np.zeros(credited.shape[0])
    np.maximum.at(pred_score, pp, iou)
    return Match(
        gold_tp[None, :], credited[None, :], gold_score, pred_score, (gold_score == 1.0)[None, :]
    )


def _correct(pair: np.ndarray, correct: np.ndarray) -> np.ndarray:
    """Per span, whether it is matched by a pair that is ``correct`` (``pair``: the index of
    its pair, -1 when unmatched)."""
    matched = pair >= 0
    out = np.zeros(pair.size, dtype=bool)
    out[matched] = correct[pair[matched]]
    return out
