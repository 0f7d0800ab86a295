"""``evaluate --n-process`` and ``--dask-scheduler`` print exactly what one process prints."""

from __future__ import annotations

import json

import pytest
import srsly
from typer.testing import CliRunner

from spacy_span_eval.cli import app
from spacy_span_eval.readers.demo_corpus import gold_documents, recognizer

from conftest import needs

pytestmark = pytest.mark.processes  # --n-process and a Dask cluster


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("parallel")
    sentences = list(gold_documents(5000, seed=21))
    srsly.write_jsonl(
        folder / "gold.jsonl",
        [
            {
                "id": s.id,
                "text": s.text,
                "spans": [{"start": x.start, "end": x.end, "label": x.label} for x in s.spans],
            }
            for s in sentences
        ],
    )
    srsly.write_jsonl(
        folder / "pred.jsonl",
        [
            {
                "id": s.id,
                "text": s.text,
                # a score each, for --sweep (semantics §9): the scores travel every road
                "spans": [
                    {"start": x.start, "end": x.end, "label": x.label, "score": x.start % 7 / 7}
                    for x in recognizer(s)
                ],
            }
            for s in sentences
        ],
    )
    return folder / "gold.jsonl", folder / "pred.jsonl"


def scores(files, *extra):
    gold, pred = files
    run = CliRunner().invoke(
        app,
        [
            "evaluate",
            str(gold),
            str(pred),
            "-t",
            "0.5",
            "-t",
            "0.9",
            "--errors",
            "25",
            "--format",
            "json",
            *extra,
        ],
    )
    assert run.exit_code == 0, run.output
    return json.loads(run.output)["result"]


def test_two_processes_print_the_single_process_numbers(files):
    assert scores(files, "--n-process", "2") == scores(files)


def test_a_dask_cluster_prints_the_single_process_numbers(files):
    distributed = needs("distributed", "the dask extra")
    # ":0": any free port for the dashboard, so another cluster on this machine cannot clash.
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=":0"
    ) as cluster:
        on_cluster = scores(files, "--dask-scheduler", cluster.scheduler_address)
    assert on_cluster == scores(files)


@pytest.mark.parametrize("road", ["processes", "dask"])
def test_a_sweep_on_every_road_is_the_single_process_sweep(files, road):
    if road == "processes":
        assert scores(files, "--sweep", "--n-process", "2") == scores(files, "--sweep")
        return
    distributed = needs("distributed", "the dask extra")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=":0"
    ) as cluster:
        on_cluster = scores(files, "--sweep", "--dask-scheduler", cluster.scheduler_address)
    assert on_cluster["sweep"] == scores(files, "--sweep")["sweep"]
