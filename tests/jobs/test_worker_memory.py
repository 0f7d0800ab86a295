"""A worker keeps what it frees: memory freed and taken again faults no page in again.

Run in fresh interpreters (the setting is process-wide), with page faults counted by the
kernel: a count, not a time."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from spacy_span_eval.jobs.worker_memory import keep_freed_memory

glibc = pytest.mark.skipif(
    sys.platform != "linux" or not (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc"),
    reason="mallopt is glibc's",
)

SCRIPT = """
import resource, sys
import numpy as np
from spacy_span_eval.jobs.worker_memory import keep_freed_memory
if sys.argv[1] == "keep":
    assert keep_freed_memory()
def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
def unit_of_work():  # arrays of a few MB alive together, then all freed
    blocks = [np.ones(4 << 20, dtype=np.uint8) for _ in range(6)]
    del blocks
unit_of_work()
unit_of_work()
before = faults()
unit_of_work()
print(faults() - before)
"""


def faults_in_a_third_unit_of_work(mode: str) -> int:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, mode],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
    )
    return int(done.stdout.strip())


@glibc
def test_memory_freed_is_taken_again_without_faulting_its_pages_in():
    pages = (24 << 20) // os.sysconf("SC_PAGE_SIZE")
    assert faults_in_a_third_unit_of_work("default") > pages // 4  # (glibc gave it back)
    assert faults_in_a_third_unit_of_work("keep") < pages // 20


def test_elsewhere_nothing_is_changed(monkeypatch):
    monkeypatch.setattr(sys, "platform", "darwin")
    assert keep_freed_memory() is False
