"""seqeval 1.2.2's own tests/test_metrics.py, unchanged, passes with seqeval.metrics resolved to
spacy_span_eval.seqeval (all but its 20,000-run statistical test, which `make seqeval-suite`
runs too). The file is fetched by `make seqeval-suite-files` (CI does it); without it the test
skips, and fails under CI=true."""

from __future__ import annotations

import shutil

import pytest
from seqeval_suite import SLOW, run, suite_folder

from conftest import skip_or_fail


@pytest.mark.slow
def test_seqevals_own_test_file_passes_against_this_module():
    folder = suite_folder()
    if not (folder / "test_metrics.py").is_file():
        skip_or_fail(f"seqeval's test file not found in {folder} (make seqeval-suite-files)")
    if shutil.which("perl") is None:
        skip_or_fail("perl is needed to run conlleval.pl, which seqeval's tests call")
    done = run(folder, quick=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "seqeval resolved to spacy_span_eval.seqeval.metrics" in done.stdout
    assert " passed" in done.stdout and " failed" not in done.stdout
    assert "1 deselected" in done.stdout, f"{SLOW} should be the only test left out"
