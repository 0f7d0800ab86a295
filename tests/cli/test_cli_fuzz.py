"""Random bytes and random small JSON through every reader, by way of the CLI (in-process): the
exit code is 0 or 2 (1 only for a gate that read its floors and failed), an error prints
nothing on stdout and one line on stderr, and nothing prints a traceback (semantics §7)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from spacy_span_eval.cli import app

runner = CliRunner()
FUZZ = settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

GOOD_GOLD = (
    '{"id": "d1", "text": "Ana met Bo", "spans": [{"start": 0, "end": 3, "label": "PER"}]}\n'
)

# -- inputs -----------------------------------------------------------------------------------
scalars = (
    st.none()
    | st.booleans()
    | st.integers(-3, 40)
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8)
)
KEYS = [
    "text",
    "full_text",
    "spans",
    "id",
    "start",
    "end",
    "label",
    "entity_type",
    "start_position",
    "end_position",
    "floors",
    "gate",
    "recall",
    "precision",
    "f",
    "min_support",
    "strategy",
    "threshold",
    "level",
    "label_map",
    "hierarchy",
    "PER",
    "branch",
]
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=4), inner, max_size=5)
    ),
    max_leaves=12,
)


def _dumps(value: object) -> str:
    return json.dumps(value, allow_nan=True)


json_texts = st.one_of(
    json_values.map(_dumps),
    st.lists(json_values, min_size=1, max_size=3).map(
        lambda vs: "".join(_dumps(v) + "\n" for v in vs)
    ),
)
TAGS = ["O", "B-PER", "I-PER", "E-PER", "S-LOC", "I-", "B-", "X", "-DOCSTART-", "#"]
conll_texts = st.lists(
    st.one_of(
        st.just(""),
        st.lists(st.sampled_from(TAGS) | st.text(max_size=4), min_size=1, max_size=3).map(" ".join),
    ),
    max_size=8,
).map(lambda lines: "\n".join(lines) + "\n")
raw_bytes = st.binary(max_size=64)


def as_bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def check(result, *, gate: bool = False) -> None:
    out, err = result.stdout, result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in out + err
    allowed = {0, 1, 2} if gate else {0, 2}
    assert result.exit_code in allowed, (result.exit_code, err)
    if result.exit_code == 1:
        assert "Gate failed" in err
    if result.exit_code == 2:
        assert out == "", out
        if not err.startswith("Usage:"):  # typer's usage errors print their own box
            assert len(err.strip().splitlines()) == 1, err
            assert err.startswith("\u2718 ")


def run(*args: object):
    return runner.invoke(app, [str(a) for a in args])


# -- gold and predictions, in each format -----------------------------------------------------
@pytest.mark.parametrize(
    "fmt,suffix",
    [
        ("jsonl", ".jsonl"),
        ("presidio", ".json"),
        ("prodigy", ".jsonl"),
        ("labelstudio", ".json"),
        ("doccano", ".jsonl"),
    ],
)
@FUZZ
@given(data=st.one_of(json_texts.map(as_bytes), raw_bytes))
def test_json_readers(tmp_path, fmt, suffix, data):
    path = tmp_path / f"in{suffix}"
    path.write_bytes(data)
    check(run("evaluate", path, path, "--input-format", fmt))


@FUZZ
@given(data=st.one_of(conll_texts.map(as_bytes), raw_bytes))
def test_conll_reader(tmp_path, data):
    path = tmp_path / "in.conll"
    path.write_bytes(data)
    check(run("evaluate", path, path, "--scheme", "IOBES"))


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=raw_bytes)
def test_docbin_reader(tmp_path, data):
    path = tmp_path / "in.spacy"
    path.write_bytes(data)
    check(run("evaluate", path, path))


# -- settings files ---------------------------------------------------------------------------
@pytest.fixture
def inputs(tmp_path):
    gold = tmp_path / "gold.jsonl"
    gold.write_text(GOOD_GOLD)
    return gold


yaml_texts = json_values.map(_dumps)  # JSON is YAML
cfg_texts = st.lists(
    st.one_of(
        st.sampled_from(
            ["[floors]", "[floors.PER]", "[gate]", "[label_map]", "[hierarchy.branch]"]
        ),
        st.tuples(st.sampled_from(KEYS), scalars.map(_dumps)).map(lambda kv: f"{kv[0]} = {kv[1]}"),
    ),
    max_size=6,
).map("\n".join)


@pytest.mark.parametrize(
    "flag,suffix",
    [
        ("--floors", ".json"),
        ("--floors", ".yaml"),
        ("--floors", ".cfg"),
        ("--label-map", ".json"),
        ("--label-map", ".cfg"),
        ("--hierarchy", ".json"),
    ],
)
@FUZZ
@given(data=st.data())
def test_settings_readers(inputs, tmp_path, flag, suffix, data):
    texts = {".json": json_texts, ".yaml": yaml_texts, ".cfg": cfg_texts}[suffix]
    content = data.draw(st.one_of(texts.map(as_bytes), raw_bytes))
    path = tmp_path / f"settings{suffix}"
    path.write_bytes(content)
    command = "gate" if flag == "--floors" else "evaluate"
    check(run(command, inputs, inputs, flag, path), gate=command == "gate")
