"""What `evaluate` prints and writes: tables, hierarchy levels, JSON envelope, files, silence."""

from __future__ import annotations

import json
import random
import re
from collections import Counter

import pytest
from typer.testing import CliRunner

from spacy_span_eval.api import evaluate_files
from spacy_span_eval.cli import app
from spacy_span_eval.errors import InvalidInputError
from spacy_span_eval.readers.schemes import encode

from conftest import cli, jsonl, span_records, write_pair

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
        "tokens": 8,
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

    def job_spy(*a, **kw):
        seen.append((kw["error_strings"], kw["details"]))
        return job(*a, **kw)

    job = api.evaluate
    monkeypatch.setattr(api, "evaluate", job_spy)
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


# A conlleval file (token, gold tag, predicted tag), its conlleval.pl output worked by hand:
# 12 tokens; tags equal on Ann Lee met . New / Acme Corp (7): in (O / B-LOC), Bob (B-PER /
# B-ORG), York (I-LOC / O), hired (O / B-PER), Eve (B-PER / I-PER) differ. Gold chunks (5):
# PER Ann Lee, PER Bob, LOC New York, ORG Acme Corp, PER Eve. Predicted (6): PER Ann Lee,
# ORG Bob, LOC in, LOC New, ORG Acme Corp, PER hired Eve. Correct: Ann Lee, Acme Corp.
#
#   processed 12 tokens with 5 phrases; found: 6 phrases; correct: 2.
#   accuracy:  58.33%; precision:  33.33%; recall:  40.00%; FB1:  36.36
#                 LOC: precision:   0.00%; recall:   0.00%; FB1:   0.00  2
#                 ORG: precision:  50.00%; recall: 100.00%; FB1:  66.67  2
#                 PER: precision:  50.00%; recall:  33.33%; FB1:  40.00  2
CONLLEVAL_FILE = (
    "Ann B-PER B-PER\nLee I-PER I-PER\nmet O O\nBob B-PER B-ORG\nin O B-LOC\nNew B-LOC B-LOC\n"
    "York I-LOC O\n. O O\n\nAcme B-ORG B-ORG\nCorp I-ORG I-ORG\nhired O B-PER\nEve B-PER I-PER\n"
)
CONLLEVAL_ARGS = ("--tag-column", "-2", "--pred-tag-column", "-1", "-s", "exact")
CONLLEVAL_TYPES = [  # label, found, precision, recall, F1 (as conlleval prints them)
    ("LOC", 2, "0.00", "0.00", "0.00"),
    ("ORG", 2, "50.00", "100.00", "66.67"),
    ("PER", 2, "50.00", "33.33", "40.00"),
]


@pytest.fixture
def conlleval_file(tmp_path):
    path = tmp_path / "out.txt"
    path.write_text(CONLLEVAL_FILE, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_exact_on_a_conlleval_file_prints_every_figure_conlleval_prints(conlleval_file, fmt):
    out = invoke(conlleval_file, conlleval_file, *CONLLEVAL_ARGS, "-f", fmt, "--wide")
    assert (
        "As conlleval: processed 12 tokens with 5 phrases; found: 6 phrases; correct: 2; "
        "accuracy: 58.33%"
    ) in out
    cells = (lambda r: r.split()) if fmt == "text" else (lambda r: r.strip("|").split("|"))
    rows: dict[str, list[str]] = {}
    for c in filter(None, map(cells, out.splitlines())):
        rows.setdefault(c[0].strip(), [x.strip() for x in c])  # (the scores table comes first)
    assert rows["micro"][1:4] == ["5", "6", "2"]  # phrases, found, correct
    assert [f"{float(x) * 100:.2f}" for x in rows["micro"][-3:]] == ["33.33", "40.00", "36.36"]
    for label, found, *prf in CONLLEVAL_TYPES:
        assert int(rows[label][2]) == found
        assert [f"{float(x) * 100:.2f}" for x in rows[label][-3:]] == prf


def test_a_conll_runs_json_has_its_tokens_and_token_accuracy(conlleval_file):
    out = invoke(conlleval_file, conlleval_file, *CONLLEVAL_ARGS, "-f", "json")
    inputs = json.loads(out)["inputs"]
    assert inputs["gold"]["tokens"] == 12
    predicted = inputs["predicted"]
    assert (predicted["tokens"], predicted["correct_tags"]) == (12, 7)
    assert predicted["token_accuracy"] == pytest.approx(7 / 12)
    # any strategy: the tokens and their tags are the reader's
    text = invoke(conlleval_file, conlleval_file, *CONLLEVAL_ARGS[:4])
    assert "Tokens: 12 processed; accuracy: 58.33% (7 tags equal, as conlleval counts them)" in text


# CONLLEVAL_FILE with a -DOCSTART- line before each document: conlleval.pl counts each as a
# token, a correct tag where its two tag columns are equal (O O: 14 tokens, 9 correct,
# "accuracy:  64.29%"); -X- O differs (8 correct). (conlleval.pl would also read that gold
# -X- as a chunk of type "X-": only the token figures are compared there.)
DOCSTART_FILE = "-DOCSTART- {} {}\n\n" + CONLLEVAL_FILE.replace("\n\n", "\n\n-DOCSTART- {} {}\n\n")


@pytest.mark.parametrize("n_process", ["1", "2"])
@pytest.mark.parametrize(
    "tags,correct,line",
    [
        (
            ("O", "O", "O", "O"),
            9,
            "As conlleval: processed 14 tokens with 5 phrases; found: 6 phrases; correct: 2; "
            "accuracy: 64.29%",
        ),
        (("O", "O", "-X-", "O"), 8, None),
    ],
)
def test_docstart_lines_are_tokens_as_conlleval_counts_them(
    tmp_path, n_process, tags, correct, line
):
    path = tmp_path / "out.txt"
    path.write_text(DOCSTART_FILE.format(*tags), encoding="utf-8")
    args = (path, path, *CONLLEVAL_ARGS, "--n-process", n_process)
    inputs = json.loads(invoke(*args, "-f", "json"))["inputs"]
    assert inputs["gold"]["tokens"] == 14
    predicted = inputs["predicted"]
    assert (predicted["tokens"], predicted["correct_tags"]) == (14, correct)
    assert predicted["token_accuracy"] == pytest.approx(correct / 14)
    if line is not None:
        assert line in invoke(*args)


def test_a_lone_document_and_span_read_in_the_singular(tmp_path):
    gold = tmp_path / "g.jsonl"
    gold.write_text('{"text": "Ada", "spans": [{"start": 0, "end": 3, "label": "PER"}]}\n')
    ledgers = tmp_path / "d.jsonl"
    out = runner.invoke(app, ["evaluate", str(gold), str(gold), "--per-document", str(ledgers)])
    assert out.exit_code == 0, out.output
    assert "gold: " in out.stdout and "(jsonl, 1 span)" in out.stdout
    assert f"Saved the ledgers of 1 document to {ledgers}" in out.stderr
    converted = runner.invoke(app, ["convert", str(gold), str(tmp_path / "g.spacy")])
    assert converted.exit_code == 0, converted.output
    assert "1 document, 1 span -> " in converted.output


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


@pytest.mark.parametrize(
    "scores, said",
    [((0.9, 0.4), False), ((0.0, 1.0), False), ((1.7, 0.4), True), ((0.9, -0.2), True)],
)
def test_the_sweep_table_says_when_ece_read_scores_outside_0_1(tmp_path, scores, said):
    """ECE takes scores as probabilities: one outside [0, 1] is counted as 0 or 1, and the
    table says so where ECE is shown."""
    text = "Ana met Bo"
    gold = [{"start": 0, "end": 3, "label": "P"}]
    pred = [
        {"start": a, "end": a + 2, "label": "P", "score": s}
        for a, s in zip((0, 8), scores, strict=True)
    ]
    (tmp_path / "g.jsonl").write_text(json.dumps({"text": text, "spans": gold}) + "\n")
    (tmp_path / "p.jsonl").write_text(json.dumps({"text": text, "spans": pred}) + "\n")
    for style in ("text", "markdown"):
        code, out = cli(
            "evaluate",
            tmp_path / "g.jsonl",
            tmp_path / "p.jsonl",
            "--sweep",
            "--format",
            style,
            "--quiet",
        )
        assert code == 0
        assert ("ECE takes scores as probabilities" in out) is said, out


def test_the_printed_best_score_keeps_the_predictions_it_was_scored_with(tmp_path):
    """A score such as spancat's float32 one is printed in full: rounded to 0.947435 it
    would leave out the very prediction its P/R/F count."""
    text = "Ana met Bo"
    best = 0.9474346041679382  # float32 0.9474346 as a float
    pred = [{"start": 0, "end": 3, "label": "P", "score": best}]
    (tmp_path / "g.jsonl").write_text(json.dumps({"text": text, "spans": pred[:1]}) + "\n")
    (tmp_path / "p.jsonl").write_text(json.dumps({"text": text, "spans": pred}) + "\n")
    for fmt in ("text", "markdown"):
        code, out = cli(
            "evaluate", tmp_path / "g.jsonl", tmp_path / "p.jsonl", "--sweep", "-f", fmt
        )
        assert code == 0 and re.search(rf"\b{best!r}\b", out), out


# -- slices (semantics §10) -------------------------------------------------------------------
def _slice_pair(tmp_path):
    """Three documents: two meta.j values and one without; a top-level ``source``."""
    docs = [
        ("Ann met Bob", [(0, 3, "PER"), (8, 11, "PER")], [(0, 3, "PER")], {"source": "mail"}),
        ("Paris is big", [(0, 5, "LOC")], [(0, 5, "LOC")], {"meta": {"j": "EU"}}),
        (
            "Carl in Rome",
            [(0, 4, "PER"), (8, 12, "LOC")],
            [(0, 4, "LOC"), (8, 12, "LOC")],
            {"id": "d3", "meta": {"j": "US"}},
        ),
    ]
    paths = []
    for side in (1, 2):
        path = tmp_path / f"{'gold' if side == 1 else 'pred'}.jsonl"
        lines = [
            json.dumps(
                {
                    "text": d[0],
                    "spans": [
                        dict(zip(("start", "end", "label"), s, strict=True)) for s in d[side]
                    ],
                    **d[3],
                }
            )
            for d in docs
        ]
        path.write_text("\n".join(lines) + "\n")
        paths.append(str(path))
    return paths


@pytest.mark.parametrize(
    ("field", "slices", "worst"),
    [
        ("source", ["(none)", "mail"], {"LOC": "(none)", "PER": "(none)"}),
        ("meta.j", ["(none)", "EU", "US"], {"LOC": "US", "PER": "US"}),
    ],
)
def test_slices_add_up_to_the_totals_and_name_the_worst(tmp_path, field, slices, worst):
    report = json.loads(invoke(*_slice_pair(tmp_path), "--slice-by", field, "-f", "json"))
    (run,) = report["slices"][field]
    assert [s["slice"] for s in run["slices"]] == slices
    assert run["worst"] == worst
    assert sum(s["documents"] for s in run["slices"]) == 3
    (whole,) = report["result"]["levels"]["labels"]
    for key in ("num_annotated", "num_predicted", "tp", "fn", "credited", "fp"):
        assert sum(s["micro"][key] for s in run["slices"]) == whole["micro"][key]
        for label, ledger in whole["per_label"].items():
            assert sum(s["per_label"][label][key] for s in run["slices"]) == ledger[key]


def test_slice_table_in_text_marks_the_worst_slice(tmp_path):
    text = invoke(*_slice_pair(tmp_path), "--slice-by", "meta.j")
    table = text.split("== Slices by meta.j at threshold 0.5")[1]
    assert row(table, "PER") == ["PER", "(none)", "1", "2", "1", "1.0000", "0.5000", "0.6667"]
    worst = [ln.split()[:2] for ln in table.splitlines() if ln.endswith("worst")]
    assert worst == [["US", "1"], ["US", "1"]]


def test_slice_tables_end_with_each_slices_micro_row(tmp_path):
    # (none): 1 of 2 PER found; EU: its LOC found; US: Carl read as LOC, Rome found
    micro = [
        ["micro", "(none)", "1", "2", "1", "1.0000", "0.5000", "0.6667"],
        ["", "EU", "1", "1", "1", "1.0000", "1.0000", "1.0000"],
        ["", "US", "1", "2", "2", "0.5000", "0.5000", "0.5000"],
    ]
    text = invoke(*_slice_pair(tmp_path), "--slice-by", "meta.j")
    lines = text.split("== Slices by meta.j")[1].split("\n\n")[1].splitlines()
    assert lines[-4].startswith("-- summary rows, not labels --")
    assert [ln.split() for ln in lines[-3:]] == [row[1 - bool(row[0]) :] for row in micro]
    markdown = invoke(*_slice_pair(tmp_path), "--slice-by", "meta.j", "-f", "markdown")
    rows = markdown.split("Slices by meta.j")[1].split("\n\n")[1].splitlines()
    assert [[c.strip() for c in ln.split("|")[1:-2]] for ln in rows[-3:]] == micro


def test_slice_intervals_resample_each_slice_on_its_own_documents(tmp_path):
    pair = _slice_pair(tmp_path)
    plain = json.loads(invoke(*pair, "--slice-by", "meta.j", "-f", "json"))
    assert all("intervals" not in s for s in plain["slices"]["meta.j"][0]["slices"])
    asked = ("--slice-by", "meta.j", "--resamples", "50", "--confidence", "0.9")
    (run,) = json.loads(invoke(*pair, *asked, "-f", "json"))["slices"]["meta.j"]
    by = {s["slice"]: s["intervals"] for s in run["slices"]}
    assert [by[k]["documents"] for k in ("(none)", "EU", "US")] == [1, 1, 1]
    assert [by[k]["resamples"] for k in by] == [50, 50, 50]
    # one document: every resample is that document, so only the Wilson bound widens it
    us = by["US"]["per_label"]["LOC"]["recall"]
    assert (us["estimate"], us["high"], us["support"], us["wilson"]) == (1.0, 1.0, 1, True)
    text = invoke(*pair, *asked)
    table = text.split("== Slices by meta.j at threshold 0.5")[1]
    assert "F1 90% CI" in table
    # (none) has no LOC: the first row is EU's, 1 of 1 found and right; its F interval is
    # the Wilson bound of 1 of 1 at 90%: 1 / (1 + z^2), z = 1.6449
    assert row(table, "LOC") == ["LOC", "EU", *"111", *["1.0000"] * 3, "0.2699-1.0000"]


def _docbin(path, docs):
    spacy = pytest.importorskip("spacy")
    from spacy.tokens import DocBin

    nlp, out = spacy.blank("en"), DocBin(store_user_data=True)
    for text, fields in docs:
        doc = nlp(text)
        doc.ents = [doc.char_span(0, 3, "PER")]
        doc.user_data.update(fields)
        out.add(doc)
    out.to_disk(path)


def _field_gold(tmp_path, fmt, parts=("x", None, "y", "x")):
    """A gold file (or folder) of ``fmt`` whose documents carry slice fields (a JSON format's
    and ``spacy``'s field ``part`` with the values ``parts``, ``None``: none)."""
    span = {"start": 0, "end": 3, "label": "PER"}
    texts = ["Ann came", "Bob went", "Cid sat", "Dan ran", "Eve ate", "Fay hid"][: len(parts)]
    if fmt == "conll":
        body = "".join(f"{t.split()[0]} B-PER\n{t.split()[1]} O\n\n" for t in texts)
        chunks = body.split("\n\n")
        path = tmp_path / "g.conll"
        path.write_text(
            f"# part = x\n{chunks[0]}\n\n-DOCSTART- O\n\n{chunks[1]}\n\n"
            f"# part = y\n{chunks[2]}\n\n# other = z\n{chunks[3]}\n"
        )
        return path
    if fmt in ("brat", "re3d"):
        for i, text in enumerate(texts):
            folder = tmp_path / fmt / ("." if i == 0 else "ab"[i % 2])
            folder.mkdir(parents=True, exist_ok=True)
            if fmt == "brat":
                (folder / f"d{i}.txt").write_text(text)
                (folder / f"d{i}.ann").write_text(f"T1\tPER 0 3\t{text[:3]}\n")
                continue
            with open(folder / "documents.json", "a") as f:
                f.write(json.dumps({"_id": f"d{i}", "text": text, "part": "xy"[i % 2]}) + "\n")
            with open(folder / "entities.json", "a") as f:
                row = {"documentId": f"d{i}", "begin": 0, "end": 3, "type": "PER"}
                f.write(json.dumps(row) + "\n")
        if fmt == "re3d":  # (the root is a source of its own only when it has no sub-folders)
            (tmp_path / fmt / "c").mkdir()
            for name in ("documents", "entities"):
                (tmp_path / fmt / f"{name}.json").rename(tmp_path / fmt / "c" / f"{name}.json")
        return tmp_path / fmt
    if fmt == "spacy":
        path = tmp_path / "g.spacy"
        _docbin(
            path, [(t, {} if p is None else {"part": p}) for t, p in zip(texts, parts, strict=True)]
        )
        return path
    records = []
    for i, (text, part) in enumerate(zip(texts, parts, strict=True)):
        fields = {} if part is None else {"part": part}
        records.append(
            {
                "jsonl": {"text": text, "spans": [span], "meta": fields},
                "presidio": {
                    "full_text": text,
                    "spans": [{"entity_type": "PER", "start_position": 0, "end_position": 3}],
                    **({"template_id": part} if part else {}),
                },
                "prodigy": {
                    "text": text,
                    "spans": [span],
                    "answer": "accept",
                    "meta": fields,
                    "_input_hash": i,
                },
                "labelstudio": {
                    "id": i,
                    "data": {"text": text, **fields},
                    "annotations": [
                        {
                            "result": [
                                {
                                    "from_name": "label",
                                    "to_name": "text",
                                    "type": "labels",
                                    "value": {"start": 0, "end": 3, "labels": ["PER"]},
                                }
                            ]
                        }
                    ],
                },
            }[fmt]
        )
    path = tmp_path / f"g.{'json' if fmt in ('presidio', 'labelstudio') else 'jsonl'}"
    array = "[\n" + ",\n".join(map(json.dumps, records)) + "\n]\n"  # (named by line)
    path.write_text(array if path.suffix == ".json" else jsonl(*records))
    return path


@pytest.mark.parametrize(
    ("fmt", "field", "want"),
    [
        ("conll", "part", {"(none)": 1, "x": 1, "y": 2}),
        ("conll", "other", {"(none)": 3, "z": 1}),
        ("conll", "document", {"g.conll": 1, "g.conll:5": 3}),
        ("jsonl", "meta.part", {"(none)": 1, "x": 2, "y": 1}),
        ("presidio", "template_id", {"(none)": 1, "x": 2, "y": 1}),
        ("prodigy", "meta.part", {"(none)": 1, "x": 2, "y": 1}),
        ("labelstudio", "data.part", {"(none)": 1, "x": 2, "y": 1}),
        ("spacy", "part", {"(none)": 1, "x": 2, "y": 1}),
        ("brat", "folder", {".": 1, "a": 1, "b": 2}),
        ("re3d", "folder", {"a": 1, "b": 2, "c": 1}),
        ("re3d", "part", {"x": 2, "y": 2}),
    ],
)
def test_slice_fields_of_every_format(tmp_path, fmt, field, want):
    gold = _field_gold(tmp_path, fmt)
    report = json.loads(invoke(gold, gold, "--slice-by", field, "-f", "json"))
    assert report["inputs"]["gold"]["format"] == fmt
    (run,) = report["slices"][field]
    assert {s["slice"]: s["documents"] for s in run["slices"]} == want
    assert {s["slice"]: s["micro"]["num_annotated"] for s in run["slices"]} == want


#: Values of a field as files hold them, and the slices they read as: a JSON value as JSON
#: writes it, a string as written unless it reads as another value or as ``(none)``.
TYPED = [True, {"a": 1}, 1, "1", "(none)", None]
AS_WRITTEN = ["true", '{"a": 1}', "1", '"1"', '"(none)"', "(none)"]


@pytest.mark.parametrize(
    ("fmt", "field"),
    [
        ("jsonl", "meta.part"),
        ("presidio", "template_id"),
        ("prodigy", "meta.part"),
        ("labelstudio", "data.part"),
        ("spacy", "part"),
        ("conll", "part"),
        ("brat", "folder"),
    ],
)
def test_slices_read_as_the_file_writes_their_values(tmp_path, fmt, field):
    gold, want = _field_gold(tmp_path, fmt, TYPED), AS_WRITTEN
    if fmt == "conll":  # (text only: 1 and "1" are one value; fields hold till -DOCSTART-)
        comments = ["", *(f"# part = {v}\n" for v in ("true", '{"a": 1}', "1", "(none)"))]
        gold.write_text("".join(f"{c}Ann B-PER\ncame O\n\n" for c in comments))
        want = ["(none)", "true", '{"a": 1}', "1", '"(none)"']
    if fmt == "brat":  # (every document has a folder)
        for old, new in zip("ab", ("(none)", "1"), strict=True):
            (gold / old).rename(gold / new)
        want = [".", '"(none)"', "1"]
    report = json.loads(invoke(gold, gold, "--slice-by", field, "-f", "json"))
    (run,) = report["slices"][field]
    assert sorted(s["slice"] for s in run["slices"]) == sorted(want)


@pytest.mark.parametrize(
    ("parts", "order"),
    [((10, 2, None, 1), ["(none)", "1", "2", "10"]), ((10, 2, "b", 1), ["1", "10", "2", "b"])],
)
@pytest.mark.parametrize("command", ["evaluate", "compare"])
def test_slices_sort_as_numbers_when_every_value_is_an_integer(tmp_path, command, parts, order):
    gold = str(_field_gold(tmp_path, "jsonl", parts))
    files = [gold] * (3 if command == "compare" else 2)
    result = runner.invoke(app, [command, *files, "--slice-by", "meta.part", "-f", "json"])
    report = json.loads(result.stdout)
    if command == "compare":
        assert list(report["slices"]["meta.part"]) == order
    else:
        assert [s["slice"] for s in report["slices"]["meta.part"][0]["slices"]] == order


@pytest.mark.parametrize(
    "fmt", ["conll", "jsonl", "presidio", "prodigy", "labelstudio", "spacy", "brat", "re3d"]
)
def test_a_field_no_document_of_a_format_has_is_refused(tmp_path, fmt):
    gold = _field_gold(tmp_path, fmt)
    result = runner.invoke(app, ["evaluate", str(gold), str(gold), "--slice-by", "meta.nosuch"])
    assert result.exit_code == 2, result.output
    assert "no document has the slice field 'meta.nosuch'" in result.output


def test_slice_by_a_field_of_a_format_without_fields_is_refused(tmp_path):
    gold = tmp_path / "g.json"
    gold.write_text(json.dumps([["Ann came", {"entities": [[0, 3, "PER"]]}]]))
    result = runner.invoke(app, ["evaluate", str(gold), str(gold), "--slice-by", "source"])
    assert result.exit_code == 2
    assert "--slice-by source: spaCy training tuples has no fields" in result.output


@pytest.mark.parametrize(
    ("command", "asked"),
    [
        ("evaluate", ["--slice-by", "meta.jj"]),
        ("compare", ["--slice-by", "meta.jj"]),
        ("gate", ["--floors", '{"floors": {"PER": {"recall": 0.1, "every": "meta.jj"}}}']),
    ],
)
def test_a_slice_field_no_gold_document_has_is_refused(tmp_path, command, asked):
    # a misspelt field would put every document in (none): one slice, a floor "in every
    # slice" checked on the whole
    gold, pred = _slice_pair(tmp_path)
    if command == "gate":
        (tmp_path / "f.json").write_text(asked[1])
        asked = ["--floors", str(tmp_path / "f.json")]
    files = [gold, pred, pred] if command == "compare" else [gold, pred]
    result = runner.invoke(app, [command, *files, *asked])
    assert result.exit_code == 2, result.output
    assert f"{gold}: no document has the slice field 'meta.jj'" in result.output


def test_documents_named_alike_keep_their_own_slice_values(tmp_path):
    # json.dump writes an array on one line, where documents without ids share a name
    records = [
        {"text": text, "spans": [{"start": 0, "end": 3, "label": "PER"}], "src": src}
        for text, src in (("Ann came", "a"), ("Bob went", "b"), ("Cid sat", "b"))
    ]
    gold = tmp_path / "g.json"
    gold.write_text(json.dumps(records))
    report = json.loads(invoke(gold, gold, "--slice-by", "src", "-f", "json"))
    (run,) = report["slices"]["src"]
    assert {s["slice"]: s["documents"] for s in run["slices"]} == {"a": 1, "b": 2}


@pytest.mark.parametrize("command", ["evaluate", "compare"])
def test_slice_names_are_escaped_in_their_table_cells(tmp_path, command):
    # a tab escaped only once the table is laid out pushes its row out of line; a | in a
    # Markdown cell splits it in two
    span = {"start": 0, "end": 3, "label": "PER"}
    gold = tmp_path / "g.jsonl"
    gold.write_text(jsonl(*({"text": "Ann came", "spans": [span], "src": s} for s in "\t|")))
    files = [gold, gold, gold] if command == "compare" else [gold, gold]
    run = [command, *map(str, files), "--slice-by", "src", "--resamples", "9"]
    title = "slice by src" if command == "compare" else "Slices by src"
    text = runner.invoke(app, run).stdout.split(title)[1].split("\n\n")[1]
    lines = 4 if command == "compare" else 7  # (evaluate's: a micro row per slice too)
    assert len(text.splitlines()) == lines and len({len(ln) for ln in text.splitlines()}) == 1
    assert "\\t" in text
    markdown = runner.invoke(app, [*run, "-f", "markdown"]).stdout.split(title)[1]
    rows = markdown.split("\n\n")[1].splitlines()
    assert (
        len(rows) == 4 + (command == "evaluate") * 2
        and len({ln.replace("\\|", "").count("|") for ln in rows}) == 1
    )


@pytest.mark.parametrize(
    ("command", "words"),
    [("evaluate", "      F2       F2 95% CI"), ("compare", "== F2 per slice by meta.j")],
)
def test_slice_tables_name_f_by_its_beta_as_the_main_table_does(tmp_path, command, words):
    files = _slice_pair(tmp_path)
    files += files[1:] if command == "compare" else []
    asked = ["--slice-by", "meta.j", "--beta", "2", "--resamples", "9"]
    text = runner.invoke(app, [command, *files, *asked]).stdout
    assert words in text and " F " not in text


def test_compares_slice_table_names_its_interval_as_the_main_table_does(tmp_path):
    gold, pred = _slice_pair(tmp_path)
    asked = ["--slice-by", "meta.j", "--confidence", "0.9", "--resamples", "9"]
    text = runner.invoke(app, ["compare", gold, pred, pred, *asked]).stdout
    main, sliced = text.split("per slice by meta.j")
    assert "90% interval" in main and "90% interval" in sliced.splitlines()[2]


@pytest.mark.parametrize("slice_by", [[], ["--slice-by", "span-length"]])
def test_resamples_without_a_field_slice_is_refused(tmp_path, slice_by):
    result = runner.invoke(app, ["evaluate", *_slice_pair(tmp_path), "--resamples", "9", *slice_by])
    assert result.exit_code == 2
    assert "--resamples: needs --slice-by FIELD" in result.output


def test_span_length_slices_count_each_side_by_its_own_length(tmp_path):
    report = json.loads(invoke(*_slice_pair(tmp_path), "--slice-by", "span-length", "-f", "json"))
    (run,) = report["slices"]["span-length"]
    assert [s["slice"] for s in run["slices"]] == ["1", "2", "3", "4-5", "6+"]
    per = {s["slice"]: s["per_label"]["PER"] for s in run["slices"]}
    # gold Ann, Bob (3) and Carl (4); predicted Ann (3) only
    assert [per[b]["num_annotated"] for b in ("3", "4-5")] == [2, 1]
    assert [per[b]["num_predicted"] for b in ("3", "4-5")] == [1, 0]
    assert run["worst"]["PER"] == "4-5" and "documents" not in run["slices"][0]
    assert report["result"]["settings"]["span_lengths"] == [1, 2, 3, 4, 6]


KEYS = ("start", "end", "label")


def _levels_pair(tmp_path):
    """Sources x and y: at the base labels a PER read as LOC in x and a LOC read as PER in
    y, both hits at the binary level, which is matched anew."""
    gold = [
        ("Ann met Bob in Rome.", "x", [(0, 3, "PER"), (8, 11, "PER"), (15, 19, "LOC")]),
        ("Cy saw Paris.", "y", [(0, 2, "PER"), (7, 12, "LOC")]),
    ]
    pred = [[(0, 3, "LOC"), (8, 11, "PER"), (15, 19, "LOC")], [(0, 2, "PER"), (7, 12, "PER")]]
    for name, spans in (("g", [d[2] for d in gold]), ("p", pred)):
        lines = [
            json.dumps(
                {
                    "text": t,
                    "meta": {"src": src},
                    "spans": [dict(zip(KEYS, x, strict=True)) for x in s],
                }
            )
            for (t, src, _), s in zip(gold, spans, strict=True)
        ]
        (tmp_path / f"{name}.jsonl").write_text("\n".join(lines) + "\n")
    (tmp_path / "h.yaml").write_text("binary: {PER: ENT, LOC: ENT}\n")
    return [tmp_path / f for f in ("g.jsonl", "p.jsonl")] + ["--hierarchy", tmp_path / "h.yaml"]


def test_each_level_has_its_own_slice_tables(tmp_path):
    asked = [*_levels_pair(tmp_path), "--slice-by", "meta.src", "--slice-by", "span-length"]
    report = json.loads(invoke(*asked, "--resamples", "9", "-f", "json"))
    runs = {r["level"]: r["slices"] for r in report["slices"]["meta.src"]}
    assert list(runs) == ["labels", "binary"]
    per = {s["slice"]: s["per_label"]["PER"] for s in runs["labels"]}
    assert [(p["num_annotated"], p["num_predicted"], p["tp"]) for p in per.values()] == [
        (2, 1, 1),
        (1, 2, 1),
    ]
    ent = {s["slice"]: (s["per_label"]["ENT"], s["intervals"]) for s in runs["binary"]}
    assert [(e["num_annotated"], e["num_predicted"], e["f"]) for e, _ in ent.values()] == [
        (3, 3, 1.0),
        (2, 2, 1.0),
    ]
    assert ent["x"][1]["per_label"]["ENT"]["f"]["estimate"] == 1.0
    lengths = {r["level"]: r["slices"] for r in report["slices"]["span-length"]}
    # gold Cy (2), Ann and Bob (3), Rome and Paris (4-5), all found at the binary level
    assert [s["per_label"]["ENT"]["tp"] for s in lengths["binary"]] == [0, 1, 2, 2, 0]
    text = invoke(*asked[:-2])
    table = text.split("== Slices by meta.src at threshold 0.5 · level 'binary'")[1]
    assert row(table, "ENT") == ["ENT", "x", "1", "3", "3", "1.0000", "1.0000", "1.0000", "worst"]
    assert "== Slices by meta.src at threshold 0.5 · level 'labels'" in text


def _random_spans(rng, n_tokens, overlap):
    """Random token spans of 3 labels, overlapping or not, without repeats."""
    spans, free = set(), set(range(n_tokens))
    for _ in range(rng.randint(0, 4)):
        start = rng.randrange(n_tokens)
        end = min(n_tokens, start + rng.choice([1, 1, 2, 3, 4, 5, 7, 9]))
        if overlap or free.issuperset(range(start, end)):
            spans.add((start, end, rng.choice("ABC")))
            free -= set(range(start, end))
    return spans


def _perturbed(rng, spans, n_tokens):
    out = set()
    for start, end, label in spans:
        r = rng.random()
        if r < 0.15:
            continue
        if r < 0.3:
            end = max(start + 1, min(n_tokens, end + rng.choice([-1, 1])))
        elif r < 0.4:
            label = rng.choice("ABC")
        out.add((start, end, label))
    return out | ({(0, 1, "A")} if rng.random() < 0.2 else set())


@pytest.mark.parametrize(
    ("fmt", "unit", "edges"),
    [
        ("conll", "token", (1, 2, 3, 4, 6)),
        ("conll", "token", (1, 3)),
        ("conll", "char", (1, 5, 10, 20)),
        ("jsonl", "char", (1, 4, 8, 16, 32)),
        ("jsonl", "char", (1,)),
    ],
)
def test_span_length_buckets_equal_a_brute_force_count(tmp_path, fmt, unit, edges):
    """1,000 random documents: each gold span scored for recall in the bucket of its own
    length, each predicted span for precision in its own (semantics §10), as a brute-force
    count of exact matches finds them."""
    rng = random.Random(len(edges))
    docs = []
    for _ in range(1000):
        tokens = ["x" * rng.randint(1, 6) for _ in range(rng.randint(1, 14))]
        gold = _random_spans(rng, len(tokens), overlap=fmt == "jsonl")
        pred = _perturbed(rng, gold, len(tokens))
        if fmt == "conll":  # (as tags: one label a token)
            pred = {
                s for s in pred if not any(t != s and s[0] < t[1] and t[0] < s[1] for t in pred)
            }
        docs.append((tokens, gold, pred))
    paths = [tmp_path / f"{side}.{fmt}" for side in ("gold", "pred")]
    for k, path in enumerate(paths, 1):
        if fmt == "conll":
            path.write_text(
                "\n\n".join(
                    "\n".join(
                        f"{t} {tag}" for t, tag in zip(d[0], encode(d[k], len(d[0])), strict=True)
                    )
                    for d in docs
                )
                + "\n"
            )
        else:
            path.write_text(
                span_records((i, " ".join(d[0]), _chars(d[0], d[k])) for i, d in enumerate(docs))
            )
    name = "span-length:" + ",".join(map(str, edges))
    report = evaluate_files(*paths, strategy="exact", unit=unit, slice_by=(name,))
    (table,) = report.slices[name]
    want: dict = {}
    for tokens, gold, pred in docs:
        for side, mine, other in (("gold", gold, pred), ("pred", pred, gold)):
            for span in mine:
                s, e, label = span
                length = e - s if unit == "token" else len(" ".join(tokens[s:e]))
                bucket = sum(length >= edge for edge in edges) - 1
                counts = want.setdefault((bucket, label), Counter())
                counts["num_annotated" if side == "gold" else "num_predicted"] += 1
                counts[
                    ("tp" if side == "gold" else "credited")
                    if span in other
                    else ("fn" if side == "gold" else "fp")
                ] += 1
    assert [s["slice"] for s in table["slices"]][-1] == f"{edges[-1]}+"
    got = {
        (b, label): Counter({k: v for k, v in ledger.items() if k in _COUNTS and v})
        for b, piece in enumerate(table["slices"])
        for label, ledger in piece["per_label"].items()
        if any(ledger[k] for k in _COUNTS)
    }
    assert got == want


_COUNTS = ("num_annotated", "num_predicted", "tp", "fn", "credited", "fp")


def _chars(tokens, spans):
    """Token spans as character offsets in the tokens joined by single spaces."""
    starts = [sum(len(t) + 1 for t in tokens[:i]) for i in range(len(tokens) + 1)]
    return [(starts[s], starts[e] - 1, label) for s, e, label in spans]


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ("span-length:1,x", "give span-length:EDGE,EDGE,... (whole numbers from 1)"),
        ("span-length:2,3", "span-length edges must rise from 1, not [2, 3]"),
        ("span-length:1,3,3", "span-length edges must rise from 1, not [1, 3, 3]"),
    ],
)
def test_span_length_edges_are_checked(tmp_path, given, message):
    paths = _slice_pair(tmp_path)
    result = runner.invoke(app, ["evaluate", *paths, "--slice-by", given])
    assert result.exit_code == 2 and message in result.output


def test_one_set_of_span_length_edges_at_a_time(tmp_path):
    paths = _slice_pair(tmp_path)
    with pytest.raises(InvalidInputError, match="one set of bucket edges at a time"):
        evaluate_files(*paths, slice_by=("span-length", "span-length:1,9"))


def test_map_over_iou_thresholds_in_json_and_text(tmp_path):
    """``--sweep --map-thresholds``: span mAP at IoU 0.5:0.05:0.95 and their mean. Ana is
    predicted as "An" (IoU 2/3): a hit up to 0.65, a miss from 0.7, where the AP of the
    ranking miss, miss, hit is 1/2 · 1/3."""
    text = "Ana met Bo in Rome"
    gold = [{"start": 0, "end": 3, "label": "P"}, {"start": 8, "end": 10, "label": "P"}]
    pred = [
        {"start": 0, "end": 2, "label": "P", "score": 0.9},
        {"start": 4, "end": 7, "label": "P", "score": 0.8},
        {"start": 8, "end": 10, "label": "P", "score": 0.4},
    ]
    (tmp_path / "g.jsonl").write_text(json.dumps({"text": text, "spans": gold}) + "\n")
    (tmp_path / "p.jsonl").write_text(json.dumps({"text": text, "spans": pred}) + "\n")
    files = (tmp_path / "g.jsonl", tmp_path / "p.jsonl", "--sweep", "--map-thresholds")
    code, out = cli("evaluate", *files, "--format", "json", "--quiet")
    assert code == 0
    over = json.loads(out)["result"]["map_thresholds"]
    assert over["thresholds"] == [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95]
    assert over["maps"] == pytest.approx([5 / 6] * 4 + [1 / 6] * 6)
    assert over["map"] == pytest.approx((4 * 5 / 6 + 6 / 6) / 10)
    code, out = cli("evaluate", *files, "--quiet")
    assert code == 0 and "Operating points (IoU >= 0.5) · mAP 0.8333 · mAP@[0.5:0.95] 0.4333" in out
