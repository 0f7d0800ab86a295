"""Bad input through the CLI, one table row per case (semantics §7): exit 2
(1 is only ever a breached gate), nothing on stdout, one message on stderr that names the
place (file, line, option), no traceback and no colour codes; an output that is an input is
refused and the input left as it was."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from typer.testing import CliRunner

import spacy_span_eval.api as api_module
from spacy_span_eval.cli import app
from spacy_span_eval.cli.typer_app import describe_failure

from conftest import needs

runner = CliRunner()

GOLD = (
    '{"id": "d1", "text": "Ana met Bo", "spans": [{"start": 0, "end": 3, "label": "PER"}]}\n'
    '{"id": "d2", "text": "Bo went home", "spans": [{"start": 0, "end": 2, "label": "PER"}]}\n'
)
# 20 gold spans, 19 found: recall 19/20 = 0.95 exactly.
TEXT20 = " ".join(f"w{i:02d}" for i in range(20))


def gold20(found: int) -> str:
    spans = [{"start": i * 4, "end": i * 4 + 3, "label": "SSN"} for i in range(20)]
    return json.dumps({"id": "d", "text": TEXT20, "spans": spans[:found]}) + "\n"


@pytest.fixture
def f(tmp_path) -> dict[str, Path]:
    """Named input files; the test cases pick from them."""
    files = {
        "gold": ("gold.jsonl", GOLD),
        "pred": ("pred.jsonl", GOLD),
        "conll": ("pred.conll", "Ana B-PER\nmet O\nBo B-PER\n"),
        "floors": ("floors.json", '{"floors": {"PER": {"recall": 0.5}}}'),
        "labels": ("labels.json", '{"PER": ["PERSON"]}'),
        "tree": ("tree.json", '{"branch": {"PER": "ENTITY"}}'),
        "deep": ("deep.jsonl", "[" * 100_000 + "]" * 100_000 + "\n"),
        "deep_floors": ("deep_floors.json", '{"floors": ' + "[" * 100_000 + "]" * 100_000 + "}"),
        "long_number": (
            "long.jsonl",
            '{"text": "Ana", "spans": [{"start": 0, "end": ' + "9" * 5000 + ', "label": "PER"}]}\n',
        ),
        "long_offset": (
            "long_offset.jsonl",
            '{"id": "d1", "text": "Ana", "spans": [{"start": '
            '0, "end": ' + "9" * 400 + ', "label": "PER"}]}\n',
        ),
        "bad_strategy": (
            "bad_strategy.json",
            '{"gate": {"strategy": "fuzzy"}, "floors": {"PER": {"recall": 0.5}}}',
        ),
        "bad_threshold": (
            "bad_threshold.yaml",
            "gate:\n  threshold: 1.5\nfloors:\n  PER:\n    recall: 0.5\n",
        ),
        "nan_threshold": (
            "nan_threshold.json",
            '{"gate": {"threshold": NaN}, "floors": {"PER": {"recall": 0.5}}}',
        ),
        "gold20": ("gold20.jsonl", gold20(20)),
        "pred19": ("pred19.jsonl", gold20(19)),
        "floors95_json": ("floors95.json", '{"floors": {"SSN": {"recall": 0.95}}}'),
        "floors95_yaml": ("floors95.yaml", "floors:\n  SSN:\n    recall: 0.95\n"),
        "floors95_cfg": ("floors95.cfg", "[floors]\n\n[floors.SSN]\nrecall = 0.95\n"),
    }
    out = {}
    for key, (name, text) in files.items():
        out[key] = tmp_path / name
        out[key].write_text(text, encoding="utf-8")
    for key, name in (("latin1_labels", "latin1.json"), ("latin1_floors", "latin1.yaml")):
        out[key] = tmp_path / name
        out[key].write_bytes(
            '{"PER": ["PERSÖN"]}'.encode("latin-1")
            if key == "latin1_labels"
            else "floors:\n  PÉR:\n    recall: 0.5\n".encode("latin-1")
        )
    out["dir"] = tmp_path / "settings.json"
    out["dir"].mkdir()
    out["fifo"] = tmp_path / "fifo.json"
    if not hasattr(os, "mkfifo"):
        pytest.skip("needs named pipes (POSIX)")
    os.mkfifo(out["fifo"])
    out["loop"] = tmp_path / "loop.json"
    out["loop"].symlink_to(tmp_path / "loop.json")
    out["link_to_gold"] = tmp_path / "link.jsonl"
    out["link_to_gold"].symlink_to(out["gold"])
    out["nowhere"] = tmp_path / "missing.jsonl"
    return out


@dataclass
class Case:
    id: str
    args: Callable[[dict[str, Path]], list[object]]
    says: str | Callable[[dict[str, Path]], str]
    code: int = 2
    usage: bool = False  # a typer usage error: its own box on stderr, still exit 2
    env: dict[str, str] = field(default_factory=dict)


def ev(*extra):
    return lambda f: ["evaluate", f["gold"], f["pred"], *[f[x] if x in f else x for x in extra]]


def gate(floors: str, *extra):
    return lambda f: ["gate", f["gold"], f["pred"], "--floors", f[floors], *extra]


CASES = [
    # -- an output that is an input ---------------------------------------------------------
    Case(
        "evaluate -o gold",
        ev("-o", "gold"),
        lambda f: (
            f"{f['gold']}: the output is the gold file {f['gold']} (or a link to it); "
            "refusing to overwrite an input"
        ),
    ),
    Case("evaluate -o pred", ev("-o", "pred"), "the output is the predictions file"),
    Case("evaluate -o a link to gold", ev("-o", "link_to_gold"), "the output is the gold file"),
    Case(
        "evaluate -o label map",
        ev("--label-map", "labels", "-o", "labels"),
        "the output is the label map",
    ),
    Case(
        "evaluate -o hierarchy",
        ev("--hierarchy", "tree", "-o", "tree"),
        "the output is the hierarchy file",
    ),
    Case(
        "gate -o floors",
        lambda f: ["gate", f["gold"], f["pred"], "--floors", f["floors"], "-o", f["floors"]],
        "the output is the floors file",
    ),
    Case(
        "gate -o gold",
        lambda f: ["gate", f["gold"], f["pred"], "--floors", f["floors"], "-o", f["gold"]],
        "the output is the gold file",
    ),
    Case(
        "report -o pred",
        lambda f: ["report", f["gold"], f["pred"], "-o", f["pred"], "--resamples", "0"],
        "the output is the predictions file",
    ),
    Case(
        "report -o floors",
        lambda f: ["report", f["gold"], f["pred"], "--floors", f["floors"], "-o", f["floors"]],
        "the output is the floors file",
    ),
    Case(
        "compare -o pred_a",
        lambda f: ["compare", f["gold"], f["pred"], f["gold"], "-o", f["pred"]],
        "the output is the predictions of A",
    ),
    Case(
        "compare -o label map",
        lambda f: [
            "compare",
            f["gold"],
            f["gold"],
            f["pred"],
            "--label-map",
            f["labels"],
            "-o",
            f["labels"],
        ],
        "the output is the label map",
    ),
    Case(
        "convert to the source",
        lambda f: ["convert", f["gold"], f["gold"]],
        "the output is the source file",
    ),
    # -- an output named for a format the command does not write (before anything is read) --
    Case(
        "agree --write-consensus .conll",
        lambda f: ["agree", f["gold"], f["nowhere"], "--write-consensus", "out.conll"],
        "--write-consensus out.conll: writes .jsonl/.ndjson/.spacy (by its suffix), not .conll",
    ),
    Case(
        "convert to .jsonl",
        lambda f: ["convert", f["nowhere"], "out.jsonl"],
        "OUTPUT out.jsonl: writes .spacy (by its suffix), not .jsonl",
    ),
    Case(
        "evaluate --per-document gold",
        ev("--per-document", "gold"),
        lambda f: (
            f"{f['gold']}: the output is the gold file {f['gold']} (or a link to it); "
            "refusing to overwrite an input, choose another --per-document"
        ),
    ),
    Case(
        "evaluate --per-document a link to gold",
        ev("--per-document", "link_to_gold"),
        "the output is the gold file",
    ),
    Case(
        "evaluate --per-document and -o one file",
        ev("-o", "out.jsonl", "--per-document", "out.jsonl"),
        "out.jsonl: --per-document and --output name the same file",
    ),
    # -- settings that would print nan ------------------------------------------------------
    *(
        Case(
            f"--beta {b}",
            ev("--beta", b, "-f", "json"),
            f"Invalid value: beta must be a finite number > 0 (e.g. 1.0, or 2.0 to weigh "
            f"recall higher), not {want}",
            usage=True,
        )
        for b, want in (
            ("nan", "nan"),
            ("inf", "inf"),
            ("1e308", "1e+308"),
            ("-1", "-1.0"),
            ("0", "0.0"),
        )
    ),
    Case(
        "--threshold nan", ev("-t", "nan"), "IoU thresholds must be in (0, 1], not nan", usage=True
    ),
    Case(
        "--threshold 1.5",
        ev("-t", "0.5", "-t", "1.5"),
        "IoU thresholds must be in (0, 1], not 1.5",
        usage=True,
    ),
    Case(
        "report --threshold inf",
        lambda f: ["report", f["gold"], f["pred"], "-o", "x.html", "-t", "inf"],
        "IoU thresholds must be in (0, 1], not inf",
        usage=True,
    ),
    Case(
        "report --seed -5",
        lambda f: ["report", f["gold"], f["pred"], "-o", "x.html", "--seed", "-5"],
        "seed must be a whole number >= 0, not -5",
    ),
    Case(
        "compare --seed -5",
        lambda f: ["compare", f["gold"], f["pred"], f["pred"], "--seed", "-5"],
        "seed must be a whole number >= 0, not -5",
    ),
    Case(
        "report --confidence nan",
        lambda f: ["report", f["gold"], f["pred"], "-o", "x.html", "--confidence", "nan"],
        "Invalid value for '--confidence'",
        usage=True,
    ),
    Case(
        "compare --confidence nan",
        lambda f: ["compare", f["gold"], f["pred"], f["pred"], "--confidence", "nan"],
        "Invalid value for '--confidence'",
        usage=True,
    ),
    Case(
        "report --resamples -1",
        lambda f: ["report", f["gold"], f["pred"], "-o", "x.html", "--resamples", "-1"],
        "--resamples",
        usage=True,
    ),
    *(
        Case(
            f"{command} --resamples 10**14",
            lambda f, command=command: [
                command,
                f["gold"],
                f["pred"],
                f["pred"],
                "--resamples",
                10**14,
            ],
            "Invalid value for '--resamples': Input should be less than or equal to 100000",
            usage=True,
        )
        for command in ("compare", "agree", "evaluate")
    ),
    Case(
        "--connect-timeout nan",
        ev("--dask-scheduler", "tcp://127.0.0.1:1", "--connect-timeout", "nan"),
        "the connect timeout must be a number of seconds > 0, not nan",
    ),
    # -- inputs that used to crash ----------------------------------------------------------
    Case(
        "100k-deep JSON",
        lambda f: ["evaluate", f["deep"], f["pred"]],
        lambda f: f"{f['deep']} line 1: invalid JSON: nested too deeply to be read",
    ),
    Case(
        "100k-deep floors file",
        gate("deep_floors"),
        lambda f: f"{f['deep_floors']}: cannot parse JSON",
    ),
    Case(
        "5,000-digit offset",
        lambda f: ["evaluate", f["long_number"], f["long_number"]],
        lambda f: f"{f['long_number']} line 1: invalid JSON: a number is too long to be read",
    ),
    Case(
        "400-digit offset",
        lambda f: ["evaluate", f["gold"], f["long_offset"]],
        lambda f: (
            f"{f['long_offset']} line 1: document 'd1', predicted span #0 "
            "(0, <a 400-digit number>, 'PER'): end is past the end of the document"
        ),
    ),
    Case(
        "/dev/zero as CoNLL",
        lambda f: ["evaluate", "/dev/zero", f["pred"]],
        "/dev/zero line 1: the line is longer than 67,108,864 characters",
    ),
    Case(
        "/dev/zero as CoNLL, paired with CoNLL (the columnar reader)",
        lambda f: ["evaluate", "/dev/zero", f["conll"]],
        "/dev/zero line 1: the line is longer than 67,108,864 characters",
    ),
    Case(
        "/dev/zero as the CoNLL predictions (the columnar reader)",
        lambda f: ["evaluate", f["conll"], "/dev/zero"],
        "/dev/zero line 1: the line is longer than 67,108,864 characters",
    ),
    Case(
        "/dev/zero as JSON lines",
        lambda f: ["evaluate", "/dev/zero", f["pred"], "--input-format", "jsonl"],
        "/dev/zero line 1: the line is longer than 67,108,864 characters",
    ),
    Case(
        "/dev/zero as a DocBin",
        lambda f: ["evaluate", "/dev/zero", f["pred"], "--input-format", "spacy"],
        "/dev/zero: not a regular file; a .spacy DocBin is read whole",
    ),
    Case(
        "a link loop as gold",
        lambda f: ["evaluate", f["loop"], f["pred"]],
        lambda f: f"{f['loop']}: cannot read it (Too many levels of symbolic links)",
    ),
    # -- settings files that do not name the place ------------------------------------------
    Case(
        "non-UTF-8 label map",
        ev("--label-map", "latin1_labels"),
        lambda f: f"{f['latin1_labels']}: not UTF-8 text (invalid continuation byte at byte 14)",
    ),
    Case(
        "non-UTF-8 floors", gate("latin1_floors"), lambda f: f"{f['latin1_floors']}: not UTF-8 text"
    ),
    Case(
        "bad gate.strategy",
        gate("bad_strategy"),
        lambda f: (
            f"{f['bad_strategy']}: gate.strategy 'fuzzy' is not a strategy; use one of two_sided"
        ),
    ),
    Case(
        "bad gate.threshold",
        gate("bad_threshold"),
        lambda f: (
            f"{f['bad_threshold']}: gate.threshold must be an IoU threshold in (0, 1], not 1.5"
        ),
    ),
    Case(
        "NaN gate.threshold",
        gate("nan_threshold"),
        lambda f: f"{f['nan_threshold']}: cannot parse JSON (NaN is not a number here)",
    ),
    Case(
        "a directory as floors",
        gate("dir"),
        lambda f: f"{f['dir']}: the floors file is a directory, not a file",
    ),
    Case(
        "a FIFO as floors",
        gate("fifo"),
        lambda f: (
            f"{f['fifo']}: the floors file is a named pipe (FIFO); settings files are "
            "read whole, so give a regular file"
        ),
    ),
    Case(
        "a link loop as floors",
        gate("loop"),
        lambda f: f"{f['loop']}: cannot read the floors file (Too many levels of symbolic links)",
    ),
    Case(
        "a directory as label map",
        ev("--label-map", "dir"),
        lambda f: f"{f['dir']}: the label map is a directory, not a file",
    ),
    Case(
        "a FIFO as label map",
        ev("--label-map", "fifo"),
        lambda f: f"{f['fifo']}: the label map is a named pipe (FIFO)",
    ),
    Case(
        "a link loop as label map",
        ev("--label-map", "loop"),
        lambda f: f"{f['loop']}: cannot read the label map (Too many levels of symbolic links)",
    ),
    Case(
        "/dev/zero as label map",
        lambda f: ["evaluate", f["gold"], f["pred"], "--label-map", "/dev/zero.json"],
        "/dev/zero.json: no such file",
    ),
    Case(
        "a FIFO as hierarchy",
        ev("--hierarchy", "fifo"),
        lambda f: f"{f['fifo']}: the hierarchy is a named pipe (FIFO)",
    ),
    Case(
        "missing predictions",
        lambda f: ["evaluate", f["gold"], f["nowhere"]],
        lambda f: f"{f['nowhere']}: no such file",
    ),
    Case(
        "colour is off under NO_COLOR",
        lambda f: ["evaluate", f["gold"], f["nowhere"]],
        "no such file",
        env={"NO_COLOR": "1"},
    ),
]


def _flat(text: str) -> str:
    """A usage error's box as one line."""
    return " ".join(text.translate({ord(c): " " for c in "│╭╮╰╯─"}).split())


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_exits_2_with_one_message_on_stderr(f, case, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    before = {
        k: p.read_bytes()
        for k, p in f.items()
        if p.is_file() and not p.is_symlink() and k != "fifo"
    }
    result = runner.invoke(app, [str(a) for a in case.args(f)], env=case.env)
    says = case.says(f) if callable(case.says) else case.says
    assert result.exit_code == case.code, result.output
    assert result.stdout == ""
    err = result.stderr
    assert "Traceback" not in err and "\x1b[" not in err
    if case.usage:
        assert err.startswith("Usage:") and says in _flat(err)
    else:
        assert err.endswith("\n") and len(err.splitlines()) == 1, err
        assert err.startswith("\u2718 ") and says in err, err
    assert {k: f[k].read_bytes() for k in before} == before  # no input was written over


# -- floors are the decimals written --------------------------------------------------------
@pytest.mark.parametrize("floors", ["floors95_json", "floors95_yaml", "floors95_cfg"])
def test_recall_19_of_20_passes_a_floor_of_0_95(f, floors):
    result = runner.invoke(
        app, ["gate", str(f["gold20"]), str(f["pred19"]), "--floors", str(f[floors])]
    )
    assert result.exit_code == 0, result.output
    row = next(
        line.split()
        for line in result.stdout.splitlines()
        if line.startswith("SSN ") and "recall" in line
    )
    assert row == ["SSN", "recall", "0.9500", "0.95", "pass"]
    result = runner.invoke(
        app, ["gate", str(f["gold20"]), str(f["pred19"]), "--floors", str(f[floors]), "-f", "json"]
    )
    checks = json.loads(result.stdout)["gate"]["checks"]
    assert checks[1]["floor"] == 0.95 and checks[1]["passed"] is True


def test_a_breached_gate_is_exit_1_and_says_why_on_stderr(f, tmp_path):
    floors = tmp_path / "high.json"
    floors.write_text('{"floors": {"SSN": {"recall": 0.96}}}')
    result = runner.invoke(
        app, ["gate", str(f["gold20"]), str(f["pred19"]), "--floors", str(floors)]
    )
    assert result.exit_code == 1
    assert "SSN recall 0.9500 < floor 0.96" in result.stderr
    assert "SSN recall 0.9500 < floor" not in result.stdout  # the table is the result
    assert "FAIL" in result.stdout


# -- streams ---------------------------------------------------------------------------------
def test_results_on_stdout_messages_on_stderr(f, tmp_path):
    result = runner.invoke(app, ["evaluate", str(f["gold"]), str(f["pred"]), "-f", "json"])
    assert result.exit_code == 0 and result.stderr == ""
    assert json.loads(result.stdout)["command"] == "evaluate"
    out = tmp_path / "r.json"
    result = runner.invoke(
        app, ["evaluate", str(f["gold"]), str(f["pred"]), "-f", "json", "-o", str(out)]
    )
    assert result.stdout == "" and result.stderr == f"\u2714 Saved the json report to {out}\n"


def test_colour_only_on_a_terminal_without_no_color(monkeypatch, capsys):
    class Terminal:
        def __init__(self):
            self.text = ""

        def write(self, text):
            self.text += text

        def flush(self):
            pass

        def isatty(self):
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.delenv("NO_COLOR", raising=False)
    api_module.msg.fail("bad")
    assert terminal.text.startswith("\x1b[") and "bad" in terminal.text
    terminal.text = ""
    monkeypatch.setenv("NO_COLOR", "1")
    api_module.msg.fail("bad")
    assert terminal.text == "\u2718 bad\n"


# -- failures that are not input errors ------------------------------------------------------
def boom(*args, **kwargs):
    raise RuntimeError("the engine fell over")


def test_an_unexpected_failure_is_exit_2_with_one_line(f, monkeypatch):
    monkeypatch.setattr("spacy_span_eval.cli.evaluate_files", boom)
    result = runner.invoke(app, ["evaluate", str(f["gold"]), str(f["pred"])])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == (
        "\u2718 unexpected error: RuntimeError: the engine fell over (run "
        "again with --debug for the traceback)\n"
    )


def test_debug_shows_the_traceback(f, monkeypatch):
    monkeypatch.setattr("spacy_span_eval.cli.evaluate_files", boom)
    result = runner.invoke(app, ["--debug", "evaluate", str(f["gold"]), str(f["pred"])])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith("Traceback (most recent call last):")
    assert result.stderr.endswith("\u2718 unexpected error: RuntimeError: the engine fell over\n")
    monkeypatch.undo()
    result = runner.invoke(app, ["--debug", "evaluate", str(f["gold"]), str(f["nowhere"])])
    assert result.exit_code == 2 and "FileNotFoundError" in result.stderr


def test_an_interrupt_is_exit_130_with_one_line(f, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("spacy_span_eval.cli.gate_files", interrupted)
    result = runner.invoke(
        app, ["gate", str(f["gold"]), str(f["pred"]), "--floors", str(f["floors"])]
    )
    assert result.exit_code == 130 and result.stdout == ""
    assert result.stderr == "\u2718 Interrupted\n"


def test_dask_without_the_extra_is_exit_2(f, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed
    result = runner.invoke(
        app,
        ["evaluate", str(f["gold"]), str(f["pred"]), "--dask-scheduler", "tcp://127.0.0.1:8786"],
    )
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == (
        "\u2718 scoring on Dask needs 'distributed', which the project's dask extra installs: "
        'pip install -e ".[dask]" in the spacy-span-eval clone\n'
    )


@pytest.mark.parametrize(
    "address,says",
    [
        (
            "tcp://127.0.0.1:1",
            "cannot reach the Dask scheduler at 'tcp://127.0.0.1:1' within 1 s "
            "(Connection refused)",
        ),
        (
            "garbage",
            "the Dask scheduler at 'garbage': not an address (missing port number in "
            "address 'garbage')",
        ),
    ],
)
def test_an_unreachable_scheduler_is_exit_2(f, address, says):
    needs("distributed", "the dask extra")
    result = runner.invoke(
        app,
        [
            "evaluate",
            str(f["gold"]),
            str(f["pred"]),
            "--dask-scheduler",
            address,
            "--connect-timeout",
            "1",
        ],
    )
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == f"\u2718 {says}\n"


# -- resources that ran out, workers that died: one line saying what to try -------------------
@pytest.mark.parametrize(
    "exc,line",
    [
        (
            BrokenProcessPool("A process in the process pool was terminated abruptly"),
            "a worker process died (killed, or out of memory); run again with fewer "
            "--n-process or more memory",
        ),
        (
            MemoryError(),
            "out of memory (is one record or line of the input huge?); run again with more "
            "memory or fewer --n-process",
        ),
        (
            RuntimeError("can't start new thread"),
            "out of memory: a thread could not be started; run again with more memory or "
            "fewer --n-process",
        ),
        (
            RuntimeError("cannot join thread before it is started"),
            "out of memory: a thread could not be started; run again with more memory or "
            "fewer --n-process",
        ),
    ],
)
def test_resources_and_workers_lost_are_one_line(exc, line):
    assert describe_failure(exc) == line
