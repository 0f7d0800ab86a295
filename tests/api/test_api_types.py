"""The API's flat keywords are typed: they are the option sets' fields, and a type checker
refuses a misspelt one."""

from __future__ import annotations

import attrs
import pytest
from mypy import api as mypy_api

from spacy_span_eval.jobs.options import CompareKeywords, OptionKeywords, RunOptions, ScoringOptions
from spacy_span_eval.readers.options import PER_SIDE_STATE, ReadingOptions


def test_the_keywords_are_the_fields_of_the_option_sets():
    fields = {
        f.name for cls in (ReadingOptions, ScoringOptions, RunOptions) for f in attrs.fields(cls)
    } - set(PER_SIDE_STATE)
    assert set(OptionKeywords.__annotations__) == fields
    assert set(CompareKeywords.__annotations__) == fields - {"errors"}


@pytest.mark.slow  # (mypy reads the whole package)
def test_a_misspelt_keyword_fails_the_type_check_and_the_right_one_passes(tmp_path):
    right = tmp_path / "right.py"
    wrong = tmp_path / "wrong.py"
    call = 'from spacy_span_eval import evaluate_files\n\nevaluate_files("g", "p", {}=0.5)\n'
    right.write_text(call.format("threshold" + "s"))
    wrong.write_text(call.format("threshhold"))
    cache = ["--cache-dir", str(tmp_path / "cache"), "--no-error-summary"]
    out, _, status = mypy_api.run([*cache, str(right), str(wrong)])
    assert status == 1
    assert [line.split(":")[0] for line in out.splitlines() if ": error:" in line] == [str(wrong)]
    assert 'Unexpected keyword argument "threshhold"' in out
