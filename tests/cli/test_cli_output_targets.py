"""Where outputs may go (semantics §7): ``-`` is stdout, a FIFO or a ``/dev/stdout``-style
target is written straight through (never replaced), an output inside an input folder is
refused like an input, and a write stopped by a signal leaves no temporary file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from spacy_span_eval.cli import app

from conftest import flat, jsonl, write_pair

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs, ptys and /dev paths")

RECORD = {"id": "d1", "text": "Bob met Ann.", "spans": [{"start": 0, "end": 3, "label": "PER"}]}


@pytest.fixture
def pair(tmp_path):
    return tuple(map(str, write_pair(tmp_path, jsonl(RECORD), jsonl(RECORD), ".jsonl")))


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_dash_is_stdout_for_every_command_with_an_output(pair, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    floors = tmp_path / "floors.json"
    floors.write_text('{"floors": {"PER": {"recall": 0.5}}}')
    for args in (
        ("evaluate", *pair, "-f", "json", "-o", "-"),
        ("gate", *pair, "--floors", floors, "-f", "json", "--output", "-"),
        ("compare", *pair, pair[1], "-f", "json", "-o", "-", "--resamples", "1"),
    ):
        result = run(*args)
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["schema"].startswith("spacy-span-eval/")
        assert "Saved" not in result.stderr
        assert not (tmp_path / "-").exists()
    # --per-document - beside a report file; the report file gets the report.
    result = run("evaluate", *pair, "-f", "json", "-o", tmp_path / "r.json", "--per-document", "-")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout.splitlines()[0])["document"] == "d1"
    assert json.loads((tmp_path / "r.json").read_text())["command"] == "evaluate"
    # Both to stdout would mix them: refused before anything is read.
    result = run("evaluate", *pair, "--per-document", "-")
    assert result.exit_code == 2 and "--per-document -" in flat(result.output)
    assert not (tmp_path / "-").exists()


def test_convert_writes_the_docbin_to_stdout_with_dash(pair, tmp_path, monkeypatch):
    from spacy.tokens import DocBin

    monkeypatch.chdir(tmp_path)
    result = run("convert", pair[0], "-")
    assert result.exit_code == 0, result.output
    import spacy

    docs = list(DocBin().from_bytes(result.stdout_bytes).get_docs(spacy.blank("en").vocab))
    assert [d.text for d in docs] == [RECORD["text"]]
    assert not (tmp_path / "-").exists()


class FifoReader:
    """A FIFO and a reader draining it in a thread. A writer end is held open until
    :meth:`collect`, so the reader waits for the command however it treats the FIFO (and a
    FIFO that was replaced instead of written leaves the reader with nothing)."""

    def __init__(self, path: Path) -> None:
        os.mkfifo(path)
        self.fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        self.keep = os.open(path, os.O_WRONLY)
        os.set_blocking(self.fd, True)
        self.data = bytearray()
        self.thread = threading.Thread(target=self._drain, daemon=True)
        self.thread.start()

    def _drain(self) -> None:
        while block := os.read(self.fd, 1 << 16):
            self.data += block

    def collect(self) -> bytes:
        os.close(self.keep)
        self.thread.join(timeout=30)
        os.close(self.fd)
        return bytes(self.data)


def test_a_fifo_behind_a_link_gets_the_report_and_stays_a_fifo(pair, tmp_path):
    fifo = tmp_path / "pipe"
    reader = FifoReader(fifo)
    link = tmp_path / "out.json"
    link.symlink_to(fifo)
    result = run("evaluate", *pair, "-f", "json", "-o", link)
    data = reader.collect()
    assert result.exit_code == 0, result.output
    assert json.loads(data)["command"] == "evaluate"
    assert fifo.is_fifo() and link.is_symlink()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def cli_process(*args, **kwargs):
    return subprocess.run(
        [sys.executable, "-m", "spacy_span_eval", *map(str, args)], timeout=120, **kwargs
    )


@pytest.mark.slow
def test_dev_stdout_on_a_terminal_is_written_to_the_terminal(pair):
    primary, secondary = os.openpty()
    try:
        done = cli_process(
            "evaluate",
            *pair,
            "-f",
            "json",
            "-o",
            "/dev/stdout",
            stdout=secondary,
            stderr=subprocess.PIPE,
        )
        os.close(secondary)
        out = bytearray()
        while True:
            try:
                block = os.read(primary, 1 << 16)
            except OSError:  # EIO: the terminal's other end is closed and drained
                break
            if not block:
                break
            out += block
    finally:
        os.close(primary)
    assert done.returncode == 0, done.stderr
    assert json.loads(out.decode().replace("\r\n", "\n"))["command"] == "evaluate"


@pytest.mark.slow
def test_dev_stdout_appended_to_a_file_keeps_what_it_held(pair, tmp_path):
    log = tmp_path / "log.txt"
    log.write_text("earlier line\n")
    with open(log, "a") as out:
        done = cli_process(
            "evaluate", *pair, "-f", "json", "-o", "/dev/stdout", stdout=out, stderr=subprocess.PIPE
        )
    assert done.returncode == 0, done.stderr
    head, rest = log.read_text().split("\n", 1)
    assert head == "earlier line" and json.loads(rest)["command"] == "evaluate"


def write_brat(folder: Path) -> None:
    folder.mkdir()
    (folder / "d1.txt").write_text("Bob met Ann.")
    (folder / "d1.ann").write_text("T1\tPER 0 3\tBob\n")


def test_an_output_inside_an_input_folder_is_refused(tmp_path):
    gold, pred = tmp_path / "bg", tmp_path / "bp"
    write_brat(gold)
    write_brat(pred)
    ann = (gold / "d1.ann").read_text()
    for args, flag in (
        (("evaluate", gold, pred, "-o", gold / "d1.ann"), "--output"),
        (("evaluate", gold, pred, "--per-document", pred / "docs.jsonl"), "--per-document"),
        (("convert", gold, gold / "d1.ann"), "OUTPUT"),
        (("convert", gold, gold / "sub" / "new.spacy"), "OUTPUT"),
    ):
        result = run(*args)
        message = flat(result.output)
        assert result.exit_code == 2, message
        assert "inside the" in message and flag in message, message
        assert str(gold if args[-1].is_relative_to(gold) else pred) in message
    assert (gold / "d1.ann").read_text() == ann
    assert sorted(p.name for p in gold.iterdir()) == ["d1.ann", "d1.txt"]
    assert not (pred / "docs.jsonl").exists()
    # Beside the folders is fine.
    result = run("evaluate", gold, pred, "-o", tmp_path / "report.txt")
    assert result.exit_code == 0, result.output


@pytest.mark.slow
@pytest.mark.parametrize("when", ["open", "replace"])
def test_sigterm_during_the_write_leaves_no_temporary_file(pair, tmp_path, when):
    """SIGTERM arrives while the report is written: right after the temporary file is
    created (before the code that removes it could know its name, as it once was), or just
    before the rename. Exit 143, the old report kept, no ``.part`` file left."""
    out = tmp_path / "out"
    out.mkdir()
    report = out / "report.json"
    report.write_text("old")
    code = f"""
import os, signal, sys
real = os.{when}
def stop():
    os.kill(os.getpid(), signal.SIGTERM)
    for _ in range(1000):  # the handler runs between bytecodes
        pass
def hook(*args, **kwargs):
    if ".part" in str(args[0]) and {when!r} == "replace":
        stop()
    result = real(*args, **kwargs)
    if ".part" in str(args[0]):
        stop()
    return result
os.{when} = hook
sys.argv = ["spacy-span-eval", "evaluate", *sys.argv[1:]]
from spacy_span_eval.__main__ import main
main()
"""
    done = subprocess.run(
        [sys.executable, "-c", code, *pair, "-f", "json", "-o", str(report)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 143, done.stderr
    assert "Stopped by SIGTERM" in done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["report.json"]
    assert report.read_text() == "old"
