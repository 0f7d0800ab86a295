"""``compare`` shows p-values as computed and corrects the labels' verdicts for multiple
comparisons (Holm over the labels of each figure); micro and macro stay single tests."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from spacy_span_eval.cli import app
from spacy_span_eval.render.verdicts import format_p, holm_line

runner = CliRunner()
LABELS = ("LOC", "ORG", "PER", "MISC", "DATE", "TIME")


@pytest.fixture
def files(tmp_path):
    """20 one-entity sentences per label; A finds all, B misses 4 of the 20 LOC. With 1,000
    resamples and seed 16, LOC's recall difference has the paired bootstrap's p = 47/1001 =
    0.04695."""
    gold: list[str] = []
    b: list[str] = []
    for k, label in enumerate(LABELS):
        for i in range(20):
            gold.append(f"w B-{label}\nx O\n\n")
            b.append(f"w {'O' if k == 0 and i < 4 else 'B-' + label}\nx O\n\n")
    paths = tmp_path / "gold.conll", tmp_path / "a.conll", tmp_path / "b.conll"
    for path, text in zip(paths, (gold, gold, b), strict=True):
        path.write_text("".join(text))
    return paths


ARGS = ("--resamples", "1000", "--seed", "16", "--method", "bootstrap")


def test_p_values_are_shown_as_computed_never_rounded_onto_the_threshold():
    assert format_p(47 / 1001) == "p = 0.047"  # not 0.05
    assert format_p(50 / 1001) == "p = 0.04995"  # 0.050 would read as the threshold
    assert format_p(0.0504) == "p = 0.0504"
    assert format_p(0.05) == "p = 0.050"


def test_a_label_at_p_0_047_is_not_called_significant_after_holm(files):
    result = runner.invoke(app, ["compare", *map(str, files), *ARGS])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Label-level p-values are Holm-adjusted over 6 labels" in out
    assert "p = 0.05" not in out  # nothing is rounded onto the threshold
    sentences = out.split("\nLOC:\n", 1)[1].splitlines()
    recall = next(s for s in sentences if "recall" in s)
    # 6 labels: Holm multiplies the smallest p by 6 -> 0.28.
    assert recall.strip().endswith("p = 0.047, Holm p = 0.28, could be chance"), recall
    # micro is one test of the whole corpus: no Holm p in its sentences or its table row.
    micro = out.split("\nmicro:\n", 1)[1].split("\nmacro:\n", 1)[0]
    assert "Holm" not in micro


def test_json_keeps_the_raw_p_value_and_adds_the_holm_one(files, tmp_path):
    path = tmp_path / "cmp.json"
    result = runner.invoke(app, ["compare", *map(str, files), *ARGS, "-f", "json", "-o", str(path)])
    assert result.exit_code == 0, result.output
    data = json.loads(path.read_text())["comparison"]
    recall = data["per_label"]["LOC"]["figures"]["recall"]
    assert recall["p_value"] == pytest.approx(47 / 1001)
    assert recall["p_holm"] == pytest.approx(6 * 47 / 1001)
    assert "p_holm" not in data["micro"]["figures"]["recall"]
    assert "p_holm" not in data["macro"]["figures"]["recall"]


def test_markdown_and_html_say_the_labels_are_holm_adjusted(files, tmp_path):
    md = runner.invoke(app, ["compare", *map(str, files), *ARGS, "-f", "markdown"])
    assert md.exit_code == 0, md.output
    assert "Label-level p-values are Holm-adjusted over 6 labels" in md.stdout
    assert "p = 0.047, Holm p = 0.28, could be chance" in md.stdout
    page = tmp_path / "cmp.html"
    html = runner.invoke(app, ["compare", *map(str, files), *ARGS, "-f", "html", "-o", str(page)])
    assert html.exit_code == 0, html.output
    text = page.read_text(encoding="utf-8")
    assert "Label-level p-values are Holm-adjusted over 6 labels" in text
    assert "p = 0.047, Holm p = 0.28, could be chance" in text


class _Sizes:
    """A paired test whose figures were adjusted over different numbers of labels."""

    def __init__(self, sizes: dict[str, int]) -> None:
        self.sizes = sizes

    def family_sizes(self) -> dict[str, int]:
        return self.sizes


@pytest.mark.parametrize(
    ("sizes", "words"),
    [
        ({"precision": 3, "recall": 3, "f": 3}, "over 3 labels (one family per figure"),
        ({"precision": 1, "recall": 1, "f": 1}, "over 1 label (one family per figure"),
        (
            {"precision": 3, "recall": 2, "f": 3},
            "one family per figure: 3 labels for precision, 2 for recall, 3 for F (a label",
        ),
        (
            {"precision": 1, "recall": 2, "f": 2},
            "one family per figure: 1 label for precision, 2 for recall, 2 for F (a label",
        ),
    ],
)
def test_the_holm_sentence_counts_each_figures_labels_in_plain_words(sizes, words):
    assert words in holm_line(_Sizes(sizes))  # type: ignore[arg-type]


def test_compare_per_slice_adjusts_over_slices_and_labels(tmp_path):
    """20 EU documents with a LOC, 20 US ones with a PER; B misses 6 EU LOCs. Each slice is
    tested on its documents alone; the p-values of LOC and PER in EU and US form one family."""
    paths = [tmp_path / f"{n}.jsonl" for n in ("gold", "a", "b")]
    for path, missed in zip(paths, (0, 0, 6), strict=True):
        rows = [
            {
                "id": f"{j}{i}",
                "text": "Ana smiled",
                "spans": [] if j == "EU" and i < missed else [{"start": 0, "end": 3, "label": lab}],
                "meta": {"j": j},
            }
            for j, lab in (("EU", "LOC"), ("US", "PER"))
            for i in range(20)
        ]
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    args = ["compare", *map(str, paths), "--slice-by", "meta.j", "--resamples", "500"]
    result = runner.invoke(app, [*args, "-f", "json"])
    assert result.exit_code == 0, result.output
    sliced = json.loads(result.stdout)["slices"]["meta.j"]
    assert [sliced[k]["documents"] for k in ("EU", "US")] == [20, 20]
    f = {
        (k, lab): sliced[k]["per_label"][lab]["figures"]["f"]
        for k in sliced
        for lab in ("LOC", "PER")
    }
    tested = {key: d for key, d in f.items() if d["difference"] is not None}
    assert set(tested) == {("EU", "LOC"), ("US", "PER")}
    assert tested["US", "PER"]["p_value"] == 1.0 and tested["EU", "LOC"]["p_value"] < 0.05
    # Holm over the two: the smaller p doubled
    assert tested["EU", "LOC"]["p_holm"] == pytest.approx(2 * tested["EU", "LOC"]["p_value"])
    text = runner.invoke(app, args).stdout
    title = "== F1 per slice by meta.j (Holm over slices x labels; 2 of 2 under 30 documents: small"
    assert title in text
    bad = runner.invoke(app, [*args[:4], "--slice-by", "span-length"])
    assert bad.exit_code == 2 and "span lengths are no slices of documents" in bad.output
