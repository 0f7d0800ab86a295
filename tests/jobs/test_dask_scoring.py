"""Scoring on a real dask.distributed cluster (2 worker processes on loopback) gives exactly the
single-process numbers, whatever the partitioning, and survives a worker killed mid-run."""

from __future__ import annotations

import importlib
import logging
import os
import signal
from functools import partial
from pathlib import Path

import pytest

from conftest import DEMO_BRANCH, skip_or_fail

pytestmark = pytest.mark.processes  # a two-worker cluster on loopback


def _need(module: str):
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        skip_or_fail(
            f"CI must run the Dask tests; {module} is not installed ({exc}): "
            "pip install 'spacy-span-eval[dask]'",
            module=True,
        )


dask = _need("dask")
db = _need("dask.bag")
distributed = _need("distributed")

from test_scoring_roads import SLICE_BY, sliced_pair  # noqa: E402

from spacy_span_eval import (  # noqa: E402
    Document,
    Hierarchy,
    InvalidInputError,
    Span,
    SpanEvaluator,
)
from spacy_span_eval.api import evaluate_files  # noqa: E402
from spacy_span_eval.engine.rows import document_from_row  # noqa: E402
from spacy_span_eval.jobs import scoring  # noqa: E402
from spacy_span_eval.jobs.dask_scoring import bag_tally, score_bag, score_dataframe  # noqa: E402
from spacy_span_eval.jobs.scoring import road_for, score_documents  # noqa: E402
from spacy_span_eval.readers.demo_corpus import gold_documents, recognizer  # noqa: E402

BRANCH = Hierarchy(DEMO_BRANCH)
N_DOCS = 3000
# A replacement worker starts a fresh interpreter with spaCy and numpy: on two loaded cores
# that has taken over a minute.
WORKER_START_S = 180


def _rows(n: int) -> list[dict]:
    return [
        {
            "id": s.id,
            "text": s.text,
            "gold": [(x.start, x.end, x.label) for x in s.spans],
            "pred": [(x.start, x.end, x.label) for x in recognizer(s)],
        }
        for s in gold_documents(n, seed=11)
    ]


ROWS = _rows(N_DOCS)
DOCS = [document_from_row(r, unit="char") for r in ROWS]


def _evaluators() -> dict[str, SpanEvaluator]:
    return {
        # several thresholds, a hierarchy level, and a cap that bites in the first partition
        "two_sided": SpanEvaluator(
            thresholds=(0.25, 0.5, 0.75, 0.9), hierarchy=BRANCH, max_errors=30, batch_size=128
        ),
        "two_sided_pooled": SpanEvaluator(
            thresholds=(0.5, 0.8), coverage="pooled", one_to_one=True, max_errors=200
        ),
        "exact": SpanEvaluator(strategy="exact", max_errors=None),
        "semeval": SpanEvaluator(strategy="semeval", hierarchy=BRANCH, max_errors=50),
    }


EVALUATORS = _evaluators()
WANT = {name: ev.evaluate(DOCS).to_dict() for name, ev in EVALUATORS.items()}


@pytest.fixture(scope="module")
def client():
    # allowed-failures: how many worker deaths one task may witness before Dask gives up on
    # it; 3 (Dask's default, pinned here) lets the killed-worker tests retry their partition.
    with dask.config.set({"distributed.scheduler.allowed-failures": 3}):
        cluster = distributed.LocalCluster(
            n_workers=2,
            processes=True,
            threads_per_worker=1,
            host="127.0.0.1",
            dashboard_address=":0",
        )
        with cluster, distributed.Client(cluster) as c:
            yield c


def _same_as_one_process(tallies: dict) -> None:
    for name, tally in tallies.items():
        assert tally.n_documents == N_DOCS, name
        assert tally.result().to_dict() == WANT[name], name


def _bag(items: list, npartitions: int):
    """Exactly ``npartitions`` contiguous partitions (from_sequence may round the count)."""
    bounds = [len(items) * i // npartitions for i in range(npartitions + 1)]
    parts = [items[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
    bag = db.from_sequence(parts, partition_size=1).flatten()
    assert bag.npartitions == npartitions
    return bag


@pytest.mark.parametrize("npartitions", [1, 2, 7, 64])
def test_bag_of_rows_gives_the_single_process_result(client, npartitions):
    bag = _bag(ROWS, npartitions)
    items = {name: bag_tally(bag, ev, split_every=4) for name, ev in EVALUATORS.items()}
    (tallies,) = dask.compute(items)
    _same_as_one_process(tallies)


def test_bag_of_documents_with_unaligned_predictions(client):
    docs = [
        Document.create(
            id=d.id,
            text=d.text,
            gold=d.gold,
            pred=d.pred,
            unaligned_pred=[(Span(0, 2, "ORG"), "no token boundary")] if i % 5 == 1 else [],
        )
        for i, d in enumerate(DOCS[:400])
    ]
    ev = EVALUATORS["two_sided"]
    want = ev.evaluate(docs).to_dict()
    assert want["notes"]["unaligned_predictions"] == 80
    got = score_bag(_bag(docs, 7), ev)
    assert got.result().to_dict() == want


def _frame(rows: list[dict], npartitions: int):
    dd, pd, pa = _need("dask.dataframe"), _need("pandas"), _need("pyarrow")
    span = pa.struct([("start", pa.int64()), ("end", pa.int64()), ("label", pa.string())])
    spans = pd.ArrowDtype(pa.list_(span))

    def as_structs(side: str) -> list:
        return [
            [dict(zip(("start", "end", "label"), s, strict=True)) for s in r[side]] for r in rows
        ]

    pdf = pd.DataFrame(
        {
            "doc_id": [r["id"] for r in rows],
            "text": [r["text"] for r in rows],
            "gold": pd.Series(as_structs("gold"), dtype=spans),
            "pred_spans": pd.Series(as_structs("pred"), dtype=spans),
            "unused": 0,
        }
    )
    return dd.from_pandas(pdf, npartitions=npartitions)


def test_dataframe_with_arrow_span_lists(client):
    df = _frame(ROWS, npartitions=7)
    for name in ("two_sided", "exact"):
        got = score_dataframe(df, EVALUATORS[name], columns={"id": "doc_id", "pred": "pred_spans"})
        assert got.result().to_dict() == WANT[name], name


def test_dataframe_with_stringified_spans_is_an_error(client):
    # Dask's default convert-string turns a pandas object column of lists into strings.
    dd, pd = _need("dask.dataframe"), _need("pandas")
    pdf = pd.DataFrame({"id": ["a"], "text": ["hello"], "gold": [[(0, 5, "X")]], "pred": [[]]})
    with pytest.raises(InvalidInputError, match="is a string, not a list of spans"):
        score_dataframe(dd.from_pandas(pdf, npartitions=1), EVALUATORS["exact"])
    with pytest.raises(ValueError, match="no 'gold' column"):
        score_dataframe(
            dd.from_pandas(pdf.drop(columns="gold"), npartitions=1), EVALUATORS["exact"]
        )


def test_stream_sent_to_a_scheduler_address(client):
    ev = EVALUATORS["two_sided"]
    got = score_documents(
        iter(DOCS), ev, dask_scheduler=client.scheduler.address, partition_size=300
    )
    _same_as_one_process({"two_sided": got})


@pytest.mark.parametrize("fmt", ["conll", "jsonl"])
def test_slices_of_a_file_pair_scored_on_the_cluster(client, tmp_path, monkeypatch, fmt):
    g, p = sliced_pair(tmp_path, fmt)
    want = evaluate_files(g, p, slice_by=SLICE_BY[fmt], thresholds=(0.5, 1.0))
    chosen = []
    monkeypatch.setattr(
        scoring, "road_for", lambda source, run: chosen.append(road_for(source, run)) or chosen[-1]
    )
    address = client.scheduler.address
    got = evaluate_files(
        g, p, slice_by=SLICE_BY[fmt], thresholds=(0.5, 1.0), dask_scheduler=address
    )
    assert [type(r) for r in chosen] == [scoring.OnCluster]
    assert got.to_dict() == want.to_dict()


def test_raw_rows_parsed_on_the_cluster(client):
    got = score_documents(
        ROWS,
        EVALUATORS["exact"],
        dask_scheduler=client,
        parse=partial(document_from_row, unit="char"),
    )
    _same_as_one_process({"exact": got})


# -- a worker dies mid-run ----------------------------------------------------------------
# These run inside the worker processes. The workers are spawned with this process's
# sys.path, so they import this module by name to find them.
VICTIM = ROWS[N_DOCS // 2]["id"]


def _die_once(row: dict, flag: str) -> dict:
    """Kill this worker process on the victim row, on the first attempt only."""
    if row["id"] == VICTIM and not os.path.exists(flag):
        Path(flag).touch()
        os.kill(os.getpid(), signal.SIGKILL)
    return row


class _DyingEvaluator(SpanEvaluator):
    """Kills its worker while scoring the batch holding the victim, the first time only."""

    flag = ""

    def tally_batches(self, batches, **kwargs):
        def watched():
            for batch in batches:
                if VICTIM in batch.doc_ids and not os.path.exists(self.flag):
                    Path(self.flag).touch()
                    os.kill(os.getpid(), signal.SIGKILL)
                yield batch

        return super().tally_batches(watched(), **kwargs)


def _workers(client) -> set[str]:
    return set(client.scheduler_info()["workers"])


def test_worker_killed_mid_bag_changes_nothing(client, tmp_path):
    flag = str(tmp_path / "killed-once")
    before = _workers(client)
    bag = _bag(ROWS, 16).map(_die_once, flag)
    items = {name: bag_tally(bag, ev) for name, ev in EVALUATORS.items()}
    (tallies,) = dask.compute(items)
    assert os.path.exists(flag), "the victim's worker was never killed"
    _same_as_one_process(tallies)
    client.wait_for_workers(2, timeout=WORKER_START_S)
    assert _workers(client) != before  # one worker really died and was replaced


def test_worker_killed_mid_stream_changes_nothing(client, tmp_path):
    ev = _DyingEvaluator(
        thresholds=(0.25, 0.5, 0.75, 0.9), hierarchy=BRANCH, max_errors=30, batch_size=128
    )
    ev.flag = str(tmp_path / "killed-once")
    client.wait_for_workers(2, timeout=WORKER_START_S)
    before = _workers(client)
    got = score_documents(DOCS, ev, dask_scheduler=client, partition_size=256)
    assert os.path.exists(ev.flag), "the victim's worker was never killed"
    _same_as_one_process({"two_sided": got})
    client.wait_for_workers(2, timeout=WORKER_START_S)
    assert _workers(client) != before


# -- a cluster that goes away: one line --------------------------------------------------------
class _Client:
    """Stands in for a client whose scheduler answers, then goes away."""

    closed = False

    def nthreads(self):
        return {"w": 1}

    def close(self):
        self.closed = True


@pytest.mark.parametrize(
    "lost,line",
    [
        (
            distributed.client.FutureCancelledError(
                "k-0", "scheduler-connection-lost", "Client lost the connection."
            ),
            "the Dask scheduler at 'tcp://h:1' went away mid-run "
            "(scheduler-connection-lost); check it and its workers, then run again",
        ),
        (
            distributed.comm.CommClosedError("in <TCPConnector>: ConnectionRefusedError"),
            "the Dask scheduler at 'tcp://h:1' went away mid-run (CommClosedError: in "
            "<TCPConnector>: ConnectionRefusedError); check it and its workers, then run again",
        ),
        (
            distributed.KilledWorker("k-0", "w", "a worker died"),
            "the Dask workers died each time they ran a part (killed, or out of memory); "
            "check them, then run again",
        ),
    ],
)
def test_a_cluster_gone_mid_run_is_one_line(monkeypatch, capfd, lost, line):
    from spacy_span_eval.cli.typer_app import describe_failure
    from spacy_span_eval.jobs import dask_scoring

    client = _Client()
    monkeypatch.setattr(dask_scoring, "connect", lambda address, timeout: client)

    def merge(*args, **kwargs):
        logging.getLogger("distributed.client").error("Traceback: the scheduler went away")
        raise lost

    monkeypatch.setattr(scoring, "merge_in_order", merge)
    with pytest.raises(Exception) as raised:
        scoring.OnCluster("tcp://h:1").score_chunks([], EVALUATORS["exact"])
    assert describe_failure(raised.value) == line
    assert client.closed
    assert "Traceback" not in capfd.readouterr().err  # (distributed's log left unprinted)
