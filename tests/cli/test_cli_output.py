"""What `evaluate` prints and writes: tables, hierarchy levels, JSON envelope, files, silence."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from spacy_span_eval.api import evaluate_files
from spacy_span_eval.cli import app

from conftest import cli, write_pair

runner = CliRunner()

# Sentence 1: PER found; sentence 2: LOC cut short (IoU 0.5), ORG missed, spurious PER.
GOLD = "John B-PER\nSmith I-PER\nsaid O\n\nNew B-LOC\nYork I-LOC\nand O\nAcme B-ORG\n. O\n"
PRED = "John B-PER\nSmith I-PER\nsaid O\n\nNew B-LOC\nYork O\nand B-PER\nAcme O\n. O\n"


@pytest.fixture
def inputs(tmp_path):
    return tuple(map(str, write_pair(tmp_path, GOLD, PRED)))


def invoke(*args):
    result = runner.invoke(app, ["evaluate", *map(str, args)])
    assert result.exit_code == 0, result.output
    return result.stdout


def row(text: str, name: str) -> list[str]:
    (line,) = [ln for ln in text.splitlines() if ln.startswith(name + " ")]
    return line.split()


def test_wide_keeps_a_full_ledger_table_per_threshold(inputs):
    text = invoke(*inputs, "-t", "0.5", "-t", "1.0", "--wide")
    assert "== two_sided · IoU >= 0.5 · token unit" in text
    assert "== two_sided · IoU >= 1 · token unit" in text
    header = "label gold pred TP FN credited FP P R F1".split()
    assert [ln.split() for ln in text.splitlines() if ln.startswith("label")] == [header] * 2
    locs = [ln.split() for ln in text.splitlines() if ln.startswith("LOC ")]
    assert locs[0] == ["LOC", "1", "1", "1", "0", "1", "0", "1.0000", "1.0000", "1.0000"]
    assert locs[1] == ["LOC", "1", "1", "0", "1", "0", "1", "0.0000", "0.0000", "0.0000"]
    orgs = [ln.split() for ln in text.splitlines() if ln.startswith("ORG ")]
    assert orgs[0][-3:] == ["-", "0.0000", "0.0000"]  # no ORG predicted: P undefined
    assert "gold: " in text and "repaired chunks: 0" in text


def test_thresholds_side_by_side_in_one_table(inputs):
    text = invoke(*inputs, "-t", "0.5", "-t", "1.0")
    lines = text.splitlines()
    assert "== two_sided · token unit" in text and "IoU >= 0.5 ·" not in text
    # One table: one header row with a P, R, F1 group per threshold, under the group titles.
    (h,) = [i for i, ln in enumerate(lines) if ln.startswith("label")]
    assert lines[h].split() == ["label", "gold", "pred", "P", "R", "F1", "P", "R", "F1"]
    titles = lines[h - 2]
    assert titles.split() == ["IoU", ">=", "0.5", "IoU", ">=", "1"]
    # Each title sits over its own group: the 0.5 title left of the second group's P.
    second_p = lines[h].index("P", lines[h].index("F1"))
    assert titles.index("IoU >= 0.5") < second_p <= titles.index("IoU >= 1") + 8
    # LOC: found at IoU 0.5 (half its tokens), missed at 1; ORG never predicted.
    assert row(text, "LOC") == [
        "LOC",
        "1",
        "1",
        "1.0000",
        "1.0000",
        "1.0000",
        "0.0000",
        "0.0000",
        "0.0000",
    ]
    assert row(text, "ORG") == ["ORG", "1", "0", "-", "0.0000", "0.0000", "-", "0.0000", "0.0000"]
    assert row(text, "micro") == [
        "micro",
        "3",
        "3",
        "0.6667",
        "0.6667",
        "0.6667",
        "0.3333",
        "0.3333",
        "0.3333",
    ]
    assert row(text, "macro")[0] == "macro" and len(row(text, "macro")) == 7  # no counts
    assert "credited" not in text


def test_markdown_names_each_figure_with_its_threshold(inputs):
    text = invoke(*inputs, "-t", "0.5", "-t", "1.0", "--format", "markdown")
    assert "| label | gold | pred | P @0.5 | R @0.5 | F1 @0.5 | P @1 | R @1 | F1 @1 |" in text
    assert "| LOC | 1 | 1 | 1.0000 | 1.0000 | 1.0000 | 0.0000 | 0.0000 | 0.0000 |" in text
    wide = invoke(*inputs, "-t", "0.5", "-t", "1.0", "--format", "markdown", "--wide")
    assert wide.count("| label | gold | pred | TP | FN | credited | FP | P | R | F1 |") == 2


def test_support_counts_have_thousands_separators(tmp_path):
    # 1,200 one-token sentences, each a gold PER; the prediction finds every other one.
    gold, pred = tmp_path / "g.conll", tmp_path / "p.conll"
    gold.write_text("".join("Ann B-PER\n\n" for _ in range(1200)))
    pred.write_text("".join(f"Ann {'B-PER' if i % 2 else 'O'}\n\n" for i in range(1200)))
    text = invoke(gold, pred)
    assert row(text, "PER")[:3] == ["PER", "1,200", "600"]
    assert "Documents: 1,200" in text and "1,200 spans" in text
    assert row(invoke(gold, pred, "--wide"), "PER")[:4] == ["PER", "1,200", "600", "600"]
    report = json.loads(invoke(gold, pred, "--format", "json"))
    assert report["result"]["levels"]["labels"][0]["per_label"]["PER"]["num_annotated"] == 1200


def test_json_is_the_same_with_and_without_wide(inputs):
    plain = json.loads(invoke(*inputs, "-t", "0.5", "-t", "1.0", "--format", "json"))
    wide = json.loads(invoke(*inputs, "-t", "0.5", "-t", "1.0", "--format", "json", "--wide"))
    assert plain == wide


def test_entity_agnostic_row_and_macro(inputs):
    text = invoke(*inputs, "--strategy", "exact", "--wide")
    assert row(text, "any entity")[2:] == [
        "3",
        "3",
        "1",
        "2",
        "1",
        "2",
        "0.3333",
        "0.3333",
        "0.3333",
    ]
    assert row(text, "micro")[1:] == ["3", "3", "1", "2", "1", "2", "0.3333", "0.3333", "0.3333"]
    assert len(row(text, "macro")) == 4  # averages only: no counts


def test_hierarchy_levels_are_tabled(inputs, tmp_path):
    tree = tmp_path / "tree.json"
    tree.write_text('{"branch": {"PER": "named", "ORG": "named", "LOC": "place"}}')
    text = invoke(*inputs, "--strategy", "exact", "--hierarchy", tree, "--wide")
    assert "exact · token unit · level 'labels'" in text
    assert "exact · token unit · level 'branch'" in text
    assert row(text, "named")[1:4] == ["2", "2", "1"]
    compact = invoke(*inputs, "--strategy", "exact", "--hierarchy", tree)
    assert "exact · token unit · level 'branch'" in compact
    assert row(compact, "named") == ["named", "2", "2", "0.5000", "0.5000", "0.5000"]


def test_json_envelope(inputs):
    report = json.loads(invoke(*inputs, "--format", "json", "--errors", "2"))
    assert report["schema"] == "spacy-span-eval/report" and report["version"] == 1
    assert report["command"] == "evaluate" and report["gate"] is None
    assert report["inputs"]["gold"] == {
        "path": inputs[0],
        "format": "conll",
        "documents": 2,
        "spans": 3,
        "repaired": 0,
    }
    assert report["result"]["schema"] == "spacy-span-eval/result"
    (run,) = report["result"]["levels"]["labels"]
    assert len(run["errors"]) == 2 and run["errors_total"] == 2 and run["threshold"] == 0.5
    assert run["per_label"]["ORG"]["precision"] is None


def test_char_unit_on_conll(inputs):
    report = json.loads(invoke(*inputs, "--unit", "char", "--format", "json", "--errors", "5"))
    assert report["result"]["settings"]["unit"] == "char"
    (run,) = report["result"]["levels"]["labels"]
    texts = {(e["kind"], e["text"]) for e in run["errors"]}
    assert ("false_negative", "Acme") in texts and ("false_positive", "and") in texts


def test_output_file_and_silent(inputs, tmp_path):
    out = tmp_path / "report.json"
    result = runner.invoke(
        app, ["evaluate", *inputs, "--format", "json", "-o", str(out), "--silent"]
    )
    assert result.exit_code == 0 and result.stdout == ""
    assert json.loads(out.read_text())["command"] == "evaluate"


def test_markdown_escapes_pipes_in_error_text(tmp_path):
    gold, pred = tmp_path / "g.jsonl", tmp_path / "p.jsonl"
    gold.write_text('{"text": "a|b c", "spans": [{"start": 0, "end": 3, "label": "X"}]}\n')
    pred.write_text('{"text": "a|b c", "spans": []}\n')
    text = invoke(gold, pred, "--format", "markdown", "--errors", "1", "--wide")
    assert "'a\\|b'" in text and "| X | 1 | 0 | 0 | 1 | 0 | 0 | - | 0.0000 | 0.0000 |" in text
    compact = invoke(gold, pred, "--format", "markdown", "--errors", "1")
    assert "'a\\|b'" in compact and "| X | 1 | 0 | - | 0.0000 | 0.0000 |" in compact


def test_python_api_is_silent_by_default(inputs, capsys):
    report = evaluate_files(*inputs, strategy="exact")
    assert capsys.readouterr().out == ""
    assert report.result.micro.tp == 1 and report.to_dict()["command"] == "evaluate"


# -- what a text run counts ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "details"),
    [
        pytest.param((), False, id="text"),
        pytest.param(("--errors", "2"), True, id="text --errors"),
        pytest.param(("-f", "json"), True, id="json"),
        pytest.param(("-f", "markdown"), True, id="markdown"),
    ],
)
def test_confusion_and_error_kinds_are_counted_only_for_outputs_that_show_them(
    inputs, monkeypatch, args, details
):
    seen = {}

    def evaluate_files_spy(*a, **kw):
        seen["details"] = kw["details"]
        return evaluate_files(*a, **kw)

    monkeypatch.setattr("spacy_span_eval.cli.evaluate_files", evaluate_files_spy)
    invoke(*inputs, *args)
    assert seen == {"details": details}


def test_a_text_run_without_details_prints_what_a_detailed_one_prints(inputs, tmp_path):
    outputs = []
    for details in (True, False):
        out = tmp_path / f"details-{details}.txt"
        report = evaluate_files(*inputs, output=out, details=details)
        outputs.append(out.read_text())
        run = report.result.scores()
        assert run.detailed is details
        assert (run.error_kinds() is None) is not details
    assert outputs[0] == outputs[1]


def test_gate_counts_details_only_for_outputs_that_show_them(inputs, tmp_path, monkeypatch):
    floors = tmp_path / "floors.json"
    floors.write_text(json.dumps({"floors": {"PER": {"recall": 0.1}}}))
    seen = []

    import spacy_span_eval.api as api

    def gate_spy(*a, **kw):
        seen.append((kw["error_strings"], kw["details"]))
        return gate(*a, **kw)

    gate = api.gate
    monkeypatch.setattr(api, "gate", gate_spy)
    for args in ((), ("-f", "json")):
        result = runner.invoke(app, ["gate", *inputs, "--floors", str(floors), *args])
        assert result.exit_code == 0, result.output
    assert seen == [(False, False), (True, True)]


# -------------------------------------------------------------------------------------------------
# Figures at the edges, read through the command line on asymmetric fixtures (P != R, gold
# != predictions, macro != weighted), so a swapped column, a swapped side or a swapped cell
# changes a number the test reads. The expected values are worked by hand below each fixture.
# -------------------------------------------------------------------------------------------------

# Token, gold tag, predicted tag (a conlleval file). Worked by hand, exact matching:
#   gold  PER: John Smith, Ann, Bob      LOC: Paris, Rome
#   pred  PER: John Smith, Ann           LOC: visited, Rome      ORG: ".", left
#   PER  gold 3 pred 2 TP 2 -> P 1,   R 2/3
#   LOC  gold 2 pred 2 TP 1 -> P 1/2, R 1/2
#   ORG  gold 0 pred 2      -> P 0,   R undefined
#   micro gold 5 pred 6 TP 3 -> P 1/2, R 3/5, F 6/11
#   macro    P (1 + 1/2 + 0) / 3 = 1/2,          R (2/3 + 1/2) / 2 = 7/12
#   weighted P (3 * 1 + 2 * 1/2) / 5 = 4/5,      R (3 * 2/3 + 2 * 1/2) / 5 = 3/5
CONLLEVAL = """\
John B-PER B-PER
Smith I-PER I-PER
visited O B-LOC
Paris B-LOC O
. O B-ORG

Ann B-PER B-PER
saw O O
Rome B-LOC B-LOC

Bob B-PER O
left O B-ORG
"""


@pytest.fixture
def conlleval(tmp_path):
    path = tmp_path / "system.conll"
    path.write_text(CONLLEVAL, encoding="utf-8")
    return path


def _json(*args):
    code, out = cli("evaluate", *args, "--strategy", "exact", "-f", "json", "-o", "-")
    assert code == 0, out
    start = out.index("{")
    level = json.loads(out[start : out.rindex("}") + 1])["result"]["levels"]["labels"][0]
    return level


def test_predictions_read_from_their_own_tag_column(conlleval):
    level = _json(conlleval, conlleval, "--tag-column", "-2", "--pred-tag-column", "-1")
    micro = level["micro"]
    assert (micro["num_annotated"], micro["num_predicted"], micro["tp"]) == (5, 6, 3)
    assert micro["precision"] == pytest.approx(1 / 2)
    assert micro["recall"] == pytest.approx(3 / 5)
    assert micro["f"] == pytest.approx(6 / 11)
    assert level["per_label"]["PER"]["recall"] == pytest.approx(2 / 3)


def test_the_two_columns_swapped_swap_precision_and_recall(conlleval):
    level = _json(conlleval, conlleval, "--tag-column", "-1", "--pred-tag-column", "-2")
    micro = level["micro"]
    assert (micro["num_annotated"], micro["num_predicted"]) == (6, 5)
    assert (micro["precision"], micro["recall"]) == pytest.approx((3 / 5, 1 / 2))


def test_without_a_predicted_column_both_sides_read_the_same_column(conlleval):
    micro = _json(conlleval, conlleval, "--tag-column", "-2")["micro"]
    assert (micro["precision"], micro["recall"]) == (1.0, 1.0)


def _table_row(out: str, name: str) -> list[str]:
    # cli() flattens the output to one line; a row is the name, then its cells up to the next
    # row's name.
    names = ["LOC", "ORG", "PER", "--", "micro", "macro", "weighted", "any entity", "Documents"]
    after = out.split(f" {name} ", 1)[1]
    stop = min(
        (after.index(f" {n} ") for n in names if n != name and f" {n} " in after),
        default=len(after),
    )
    return after[:stop].split()


@pytest.mark.parametrize("wide", [False, True])
def test_text_table_summary_rows_hold_their_own_precision_and_recall(conlleval, wide):
    args = ["evaluate", conlleval, conlleval, "--tag-column", "-2", "--pred-tag-column", "-1"]
    code, out = cli(*args, "--strategy", "exact", *(["--wide"] if wide else []))
    assert code == 0, out
    # Each summary row ends with P, R, F1 (4 decimals).
    assert _table_row(out, "macro")[-3:-1] == ["0.5000", "0.5833"]
    assert _table_row(out, "weighted")[-3:-1] == ["0.8000", "0.6000"]
    assert _table_row(out, "micro")[-3:] == ["0.5000", "0.6000", "0.5455"]
    assert _table_row(out, "PER")[-3:-1] == ["1.0000", "0.6667"]


def test_a_tab_delimiter_refuses_a_space_separated_file(conlleval):
    code, out = cli("evaluate", conlleval, conlleval, "--delimiter", "tab", "--tag-column", "-2")
    assert code == 2, out
    assert "system.conll" in out and "line 1" in out


def test_capped_error_records_are_listed_by_start_then_end(tmp_path):
    # One document, gold missed three times: [0, 10), [2, 3) and [2, 8). By start then end:
    # [0, 10), [2, 3), [2, 8); ordered by end first it would begin with [2, 3).
    text = "abcdefghijklmnop"
    gold = tmp_path / "gold.jsonl"
    pred = tmp_path / "pred.jsonl"
    spans = [
        {"start": 2, "end": 8, "label": "X"},
        {"start": 0, "end": 10, "label": "X"},
        {"start": 2, "end": 3, "label": "X"},
    ]
    gold.write_text(json.dumps({"id": "d", "text": text, "spans": spans}) + "\n")
    pred.write_text(json.dumps({"id": "d", "text": text, "spans": []}) + "\n")
    code, out = cli(
        "evaluate", gold, pred, "--strategy", "exact", "--errors", "2", "-f", "json", "-o", "-"
    )
    assert code == 0, out
    level = json.loads(out[out.index("{") : out.rindex("}") + 1])["result"]["levels"]
    errors = level["labels"][0]["errors"]
    assert [(e["start"], e["end"]) for e in errors] == [(0, 10), (2, 3)]
    assert level["labels"][0]["errors_total"] == 3


def test_sweep_in_json_text_and_markdown(tmp_path):
    """``--sweep`` (semantics §9): per label and micro, points, AP, best score and ECE in
    JSON; AP, the best score with its P/R/F and mAP in text and Markdown."""
    text = "Ana met Bo in Rome"
    gold = [{"start": 0, "end": 3, "label": "P"}, {"start": 8, "end": 10, "label": "P"}]
    pred = [
        {"start": 0, "end": 3, "label": "P", "score": 0.9},
        {"start": 4, "end": 7, "label": "P", "score": 0.8},
        {"start": 8, "end": 10, "label": "P", "score": 0.4},
    ]
    (tmp_path / "g.jsonl").write_text(json.dumps({"text": text, "spans": gold}) + "\n")
    (tmp_path / "p.jsonl").write_text(json.dumps({"text": text, "spans": pred}) + "\n")
    files = (tmp_path / "g.jsonl", tmp_path / "p.jsonl")
    code, out = cli("evaluate", *files, "--sweep", "--format", "json", "--quiet")
    assert code == 0
    sweep = json.loads(out)["result"]["sweep"][0]
    assert sweep["threshold"] == 0.5 and sweep["map"] == pytest.approx(0.5 * 1 + 0.5 * 2 / 3)
    points = sweep["per_label"]["P"]["points"]
    assert [(p["score"], p["tp"], p["num_predicted"]) for p in points] == [
        (0.9, 1, 1),
        (0.8, 1, 2),
        (0.4, 2, 3),
    ]
    assert sweep["per_label"]["P"]["best"]["score"] == 0.4
    assert len(sweep["micro"]["reliability"]) == 10
    code, out = cli("evaluate", *files, "--sweep", "--quiet")
    assert code == 0 and "Operating points (IoU >= 0.5) · mAP 0.8333" in out
    code, out = cli("evaluate", *files, "--sweep", "--format", "markdown", "--quiet")
    assert code == 0 and "### Operating points (IoU >= 0.5) · mAP 0.8333" in out
