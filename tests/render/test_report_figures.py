"""The report page's summary table holds each figure in its own column: read with the
standard library's HTML parser (not the package's renderer) from a report written through
the command line, on the asymmetric conlleval file of tests/cli/test_edge_values.py (P != R
on every row the test reads)."""

from __future__ import annotations

from html.parser import HTMLParser

from test_edge_values import CONLLEVAL

from conftest import cli


class _Table(HTMLParser):
    """The first ``table.per-label``: header cells and each row's cells, as the text before
    any nested element (a cell's interval and support follow in spans)."""

    def __init__(self) -> None:
        super().__init__()
        self.header: list[str] = []
        self.rows: list[list[str]] = []
        self._depth = 0  # inside the table: element depth below <table>
        self._cell: list[str] | None = None
        self._nested = 0
        self._done = False

    def handle_starttag(self, tag, attrs):
        if self._done:
            return
        if tag == "table" and ("class", "per-label") in attrs and not self._depth:
            self._depth = 1
            return
        if not self._depth:
            return
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell, self._nested = [], 0
        elif self._cell is not None:
            self._nested += 1

    def handle_endtag(self, tag):
        if not self._depth or self._done:
            return
        if tag == "table":
            self._done = True
        elif tag in ("td", "th") and self._cell is not None:
            text = "".join(self._cell).strip()
            (self.header if tag == "th" else self.rows[-1]).append(text)
            self._cell = None
        elif self._cell is not None and self._nested:
            self._nested -= 1

    def handle_data(self, data):
        if self._cell is not None and not self._nested:
            self._cell.append(data)


def test_label_and_summary_rows_hold_their_own_precision_and_recall(tmp_path):
    path = tmp_path / "system.conll"
    path.write_text(CONLLEVAL, encoding="utf-8")
    page = tmp_path / "report.html"
    args = ["--tag-column", "-2", "--pred-tag-column", "-1", "--strategy", "exact"]
    code, out = cli("report", path, path, *args, "-o", page)
    assert code == 0, out
    table = _Table()
    table.feed(page.read_text(encoding="utf-8"))
    p, r, f = (table.header.index(name) for name in ("P", "R", "F1"))
    rows = {cells[0]: cells for cells in table.rows if cells}
    # Worked by hand in test_edge_values.py.
    assert [rows["PER"][i] for i in (p, r, f)] == ["1.000", "0.667", "0.800"]
    assert [rows["LOC"][i] for i in (p, r, f)] == ["0.500", "0.500", "0.500"]
    assert [rows["micro"][i] for i in (p, r, f)] == ["0.500", "0.600", "0.545"]
    assert rows["PER"][table.header.index("gold")] == "3"
    assert rows["PER"][table.header.index("pred")] == "2"
