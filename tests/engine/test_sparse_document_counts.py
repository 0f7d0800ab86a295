"""Per-document counts are stored by their non-zero (document, label) cells, and the
bootstrap resamples them in that form with the figures a dense matrix gives."""

from __future__ import annotations

import random

import numpy as np
import pytest
from document_cells import append, append_cells, n_cells, nbytes

from spacy_span_eval import Document, SpanEvaluator
from spacy_span_eval.engine import bootstrap, paired, resampling
from spacy_span_eval.engine.bootstrap import bootstrap_intervals
from spacy_span_eval.engine.document_counts import DocumentCounts
from spacy_span_eval.engine.labels import Hierarchy, slice_names
from spacy_span_eval.engine.ledger import N_FIELDS, LedgerField
from spacy_span_eval.engine.paired import paired_test
from spacy_span_eval.engine.resampling import SparseRows
from spacy_span_eval.engine.slices import slice_tables


def many_label_docs(n_docs: int, n_labels: int, *, seed: int = 0, shift: float = 0.2):
    """Documents of one to three spans each, their labels drawn from ``n_labels``; a share
    ``shift`` of predictions relabelled or moved."""
    rng = random.Random(seed)
    docs = []
    for d in range(n_docs):
        words = [f"w{rng.randrange(50)}" for _ in range(9)]
        text = " ".join(words)
        starts = [sum(len(w) + 1 for w in words[:i]) for i in range(len(words))]
        gold, pred = [], []
        for i in rng.sample(range(0, 9, 2), rng.randint(1, 3)):
            span = (starts[i], starts[i] + len(words[i]))
            label = f"L{rng.randrange(n_labels)}"
            gold.append((*span, label))
            r = rng.random()
            if r < shift / 2:
                pred.append((*span, f"L{rng.randrange(n_labels)}"))
            elif r < shift:
                pred.append((span[0], span[1] - 1, label))
            else:
                pred.append((*span, label))
        docs.append(Document.create(id=f"d{d}", text=text, gold=gold, pred=pred))
    return docs


# -- storage ----------------------------------------------------------------------------------
def test_counts_hold_a_cell_per_document_and_label_with_a_span():
    """200 documents x 5,000 labels, one span each: ~200 cells, not 1,000,000 dense rows."""
    docs = [
        Document.create(id=f"d{i}", text="Ana is here", gold=[(0, 3, f"L{i * 25}")], pred=[])
        for i in range(200)
    ]
    labels = [f"L{i}" for i in range(5000)]
    result = SpanEvaluator(per_document=True, labels=labels).evaluate(docs)
    counts = result.documents
    assert counts.n_documents == 200 and n_cells(counts) == 200
    assert len(counts.labels) == 200
    dense_bytes = 200 * 5000 * len(counts.kept) * N_FIELDS * 4
    assert nbytes(counts) < dense_bytes / 100
    assert counts.total("L25")[0].tolist()[:2] == [1, 0]


def test_cells_grow_with_spans_not_with_labels():
    few = SpanEvaluator(per_document=True).evaluate(many_label_docs(300, 5))
    many = SpanEvaluator(per_document=True).evaluate(many_label_docs(300, 3000))
    # the same documents and spans, spread over 600x the labels: about as many cells
    assert n_cells(many.documents) <= 1.2 * n_cells(few.documents) + 50
    assert nbytes(many.documents) == nbytes(few.documents) or nbytes(many.documents) < 2**20


def test_dense_view_and_rows_equal_the_cells():
    counts = DocumentCounts(2, kept=(1,))
    append(counts, ["a", "b"], {"ORG": np.array([[[1, 0, 0, 1, 0, 0]], [[0] * 6]])})
    append_cells(counts, ["c"], np.array([0, 0]), ["PER", "ORG"], np.ones((2, 1, N_FIELDS), int))
    assert n_cells(counts) == 3 and counts.labels == ["ORG", "PER"]
    assert counts.counts["ORG"][:, 0, 0].tolist() == [1, 0, 1]
    assert counts.rows("PER", 1)[:, 0].tolist() == [0, 0, 1]
    assert [(d, [lab for lab, _ in cells]) for d, cells in counts.by_document()] == [
        ("a", ["ORG"]),
        ("b", []),
        ("c", ["ORG", "PER"]),
    ]


# -- the sparse product against dense numpy ---------------------------------------------------
def random_sparse(rng: np.random.Generator, n: int, cols: int, fill: float) -> np.ndarray:
    m = rng.integers(1, 6, (n, cols)).astype(np.float64)
    return np.where(rng.random((n, cols)) < fill, m, 0.0)


@pytest.mark.parametrize("fill", [0.0, 0.01, 0.2, 0.9])
def test_weights_times_sparse_rows_is_the_dense_product(fill):
    rng = np.random.default_rng(3)
    m = random_sparse(rng, 120, 70, fill)
    w = rng.integers(0, 4, (33, 120)).astype(np.float64)
    got = SparseRows.of(m).times(w)
    assert np.array_equal(got, w @ m)


def test_sparse_rows_side_by_side_difference_and_order_are_numpys():
    rng = np.random.default_rng(4)
    a, b = random_sparse(rng, 40, 12, 0.1), random_sparse(rng, 40, 12, 0.1)
    order = rng.permutation(40)
    sa, sb = SparseRows.of(a), SparseRows.of(b)
    assert np.array_equal(sa.beside(sb).dense(), np.hstack([a, b]))
    assert np.array_equal(sb.minus(sa).dense(), b - a)
    assert np.array_equal(sa.take(order).dense(), a[order])
    assert np.array_equal(sa.sum(), a.sum(axis=0))


def dense_resampled_sums(m: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """The oracle: the resampled sums drawn from a dense matrix, rows grouped by equality
    (``np.unique``) in the order of one random projection, as the module documents."""
    n = m.shape[0]
    key = m @ np.random.default_rng(0x5EED).uniform(1.0, 2.0, m.shape[1])
    _, first, row_of = np.unique(key, return_index=True, return_inverse=True)
    distinct = m[first]
    assert np.array_equal(distinct[row_of.ravel()], m)
    if 4 * len(first) > n:
        weights = resampling.resample_weights(n, resamples=resamples, seed=seed)
        return np.concatenate([w @ m for w in weights])
    sizes = np.bincount(row_of.ravel(), minlength=len(first))
    counts = np.random.default_rng(seed).multinomial(n, sizes / n, size=resamples)
    return counts.astype(np.float64) @ distinct


@pytest.mark.parametrize("n,kinds,cols,seed", [(50, 50, 30, 0), (400, 12, 60, 1), (9, 1, 6, 2)])
def test_resampled_sums_of_sparse_rows_equal_the_dense_oracle(n, kinds, cols, seed):
    rng = np.random.default_rng(seed)
    table = random_sparse(rng, kinds, cols, 0.1)
    m = table[rng.integers(0, kinds, n)]
    got = resampling.resampled_sums(SparseRows.of(m), resamples=40, seed=seed)
    assert np.array_equal(got, dense_resampled_sums(m, 40, seed))
    assert np.array_equal(got, resampling.resampled_sums(m, resamples=40, seed=seed))


def dense_matrix(result, labels: list[str]) -> np.ndarray:
    """The documents x (labels x fields) rows at the first kept threshold, from the dense
    per-label view."""
    counts = result.documents.counts
    zero = np.zeros((result.documents.n_documents, N_FIELDS))
    return np.hstack([counts[lab][:, 0, :] if lab in counts else zero for lab in labels])


@pytest.mark.parametrize("n_labels", [3, 400])
def test_intervals_and_paired_tests_resample_the_dense_matrix(n_labels, monkeypatch):
    """What the bootstrap resamples (the sparse matrix) is the dense matrix, its sums are
    the oracle's, and the figures come out the same when the oracle's sums are used."""
    ev = SpanEvaluator(per_document=True, thresholds=(0.5,))
    a = ev.evaluate(many_label_docs(150, n_labels, seed=1))
    b = ev.evaluate(many_label_docs(150, n_labels, seed=1, shift=0.5))
    labels = sorted(set(a.documents.labels) | set(b.documents.labels))
    m_a = resampling.matrix(a.documents, labels, 0)
    assert np.array_equal(m_a.dense(), dense_matrix(a, labels))
    sparse = {
        "intervals": bootstrap_intervals(a, resamples=60, seed=5).to_dict(),
        "bootstrap": paired_test(a, b, resamples=60, seed=5, method="bootstrap").to_dict(),
        "permutation": paired_test(a, b, resamples=60, seed=5).to_dict(),
    }

    def oracle(m, *, resamples, seed):
        return dense_resampled_sums(m.dense(), resamples, seed)

    monkeypatch.setattr(bootstrap, "resampled_sums", oracle)
    monkeypatch.setattr(paired, "resampled_sums", oracle)
    monkeypatch.setattr(
        resampling.SparseRows, "times", lambda self, w: w @ self.dense(), raising=True
    )
    assert bootstrap_intervals(a, resamples=60, seed=5).to_dict() == sparse["intervals"]
    again = paired_test(a, b, resamples=60, seed=5, method="bootstrap").to_dict()
    assert again == sparse["bootstrap"]
    assert paired_test(a, b, resamples=60, seed=5).to_dict() == sparse["permutation"]


# -- slices (semantics §10) -------------------------------------------------------------------
@pytest.mark.parametrize(("n_slices", "seed"), [(1, 0), (2, 1), (3, 2), (7, 3), (40, 4)])
def test_slice_ledgers_add_up_to_the_totals_and_equal_each_slice_alone(n_slices, seed):
    docs = many_label_docs(120, 6, seed=seed, shift=0.4)
    rng = random.Random(seed)
    values = [f"s{rng.randrange(n_slices)}" for _ in docs]
    evaluator = SpanEvaluator(per_document=True, strategy="overlap", thresholds=(0.0, 0.5, 1.0))
    counts = evaluator.evaluate(docs).documents
    slices, labels, rows = counts.by_slice(values)
    assert slices == sorted(set(values))
    for j, label in enumerate(labels):
        assert rows[:, j].sum(axis=0).tolist() == counts.total(label).tolist()
    for i, name in enumerate(slices):
        alone = evaluator.evaluate(
            [d for d, v in zip(docs, values, strict=True) if v == name]
        ).documents
        for j, label in enumerate(labels):
            assert rows[i, j].tolist() == alone.total(label).tolist()


def test_slice_values_must_name_every_document():
    counts = DocumentCounts(1)
    append(counts, ["a", "b"], {})
    with pytest.raises(ValueError, match="1 slice values for 2 documents"):
        counts.by_slice(["x"])


@pytest.mark.parametrize(
    ("values", "names"),
    [
        (["news", 3, True, None], ["news", "3", "true", "(none)"]),
        ([{"a": 1}, [1, "b"], 2.5, "é"], ['{"a": 1}', '[1, "b"]', "2.5", "é"]),
        ([1, "1", "x"], ["1", '"1"', "x"]),  # (a string that reads as another value)
        (["(none)", None], ['"(none)"', "(none)"]),
        (['"1"', "1", 1], ['"\\"1\\""', '"1"', "1"]),  # (a string that starts with a quote)
        (["1", "true", "{}"], ["1", "true", "{}"]),  # (strings only: as written)
    ],
)
def test_a_slice_reads_as_its_value_is_written_and_one_slice_is_one_value(values, names):
    assert slice_names(values) == names


@pytest.mark.parametrize(
    ("values", "order"),
    [
        (["10", "2", "-1", "2"], ["-1", "2", "10"]),
        (["10", "2", "(none)"], ["(none)", "2", "10"]),
        (["10", "2", "b", "(none)"], ["(none)", "10", "2", "b"]),
        (["2.5", "10"], ["10", "2.5"]),
    ],
)
def test_slices_sort_as_numbers_when_every_value_is_an_integer(values, order):
    counts = DocumentCounts(1)
    append(counts, [str(i) for i in range(len(values))], {})
    assert counts.by_slice(values)[0] == order


@pytest.mark.parametrize(("n_slices", "seed"), [(1, 0), (3, 1), (9, 2)])
def test_each_levels_slices_add_up_to_its_totals_and_equal_each_slice_alone(n_slices, seed):
    """A coarser level is matched anew (a relabel within a branch is a hit there), so its
    slices are its own ledgers, not sums of the base labels' (semantics §10)."""
    docs = many_label_docs(90, 6, seed=seed, shift=0.6)
    values = [f"s{random.Random(seed + d).randrange(n_slices)}" for d in range(len(docs))]
    branch = Hierarchy({"branch": {f"L{i}": "AB"[i % 2] for i in range(6)}})
    evaluator = SpanEvaluator(
        per_document=True, hierarchy=branch, thresholds=(0.5, 1.0), span_lengths=(1, 2, 3)
    )
    result = evaluator.evaluate(docs)
    tables = slice_tables(result, {"f": values}, ["f", "span-length"])
    runs = {(r["level"], r["threshold"]): r["slices"] for r in tables["f"]}
    assert list(runs) == [(lv, t) for lv in ("labels", "branch") for t in (0.5, 1.0)]
    keys = [f.key for f in LedgerField]
    for (level, t), table in runs.items():
        for s in table:
            alone = evaluator.evaluate(
                [d for d, v in zip(docs, values, strict=True) if v == s["slice"]]
            )
            want = {k: v.to_dict() for k, v in alone.scores(t, level=level).per_label.items()}
            assert {
                k: v for k, v in s["per_label"].items() if v["num_annotated"] + v["num_predicted"]
            } == want
        for label, ledger in result.scores(t, level=level).per_label.items():
            assert [sum(s["per_label"][label][k] for s in table) for k in keys] == list(
                ledger.to_row()
            )
    assert [(r["level"], r["threshold"]) for r in tables["span-length"]] == list(runs)
    for run in tables["span-length"]:  # each side's buckets add up to that side's totals
        for label, ledger in result.scores(run["threshold"], level=run["level"]).per_label.items():
            rows = [s["per_label"][label] for s in run["slices"]]
            assert sum(r["num_annotated"] for r in rows) == ledger.num_annotated
            assert sum(r["num_predicted"] for r in rows) == ledger.num_predicted
