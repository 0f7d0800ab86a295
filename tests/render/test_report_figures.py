"""The report page's summary table holds each figure in its own column: read with the
standard library's HTML parser (not the package's renderer) from a report written through
the command line, on the asymmetric conlleval file of tests/cli/test_cli_output.py (P != R
on every row the test reads)."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from test_cli_output import CONLLEVAL

from spacy_span_eval.engine.bootstrap import BootstrapIntervals, Interval
from spacy_span_eval.engine.ledger import Ledger
from spacy_span_eval.engine.result import ThresholdScores
from spacy_span_eval.render.html.charts import (
    by_support,
    f_name,
    figure_cells,
    fmt,
    interval_text,
    ledger_row,
    strip_domain,
    summary_figures,
)

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
    # Worked by hand in test_cli_output.py.
    assert [rows["PER"][i] for i in (p, r, f)] == ["1.000", "0.667", "0.800"]
    assert [rows["LOC"][i] for i in (p, r, f)] == ["0.500", "0.500", "0.500"]
    assert [rows["micro"][i] for i in (p, r, f)] == ["0.500", "0.600", "0.545"]
    assert rows["PER"][table.header.index("gold")] == "3"
    assert rows["PER"][table.header.index("pred")] == "2"


# -------------------------------------------------------------------------------------------------
# The report page's summary figures, value by value: the dicts that
# ``spacy_span_eval.render.html.charts`` hands to the page template (each row's name, class,
# counts, precision/recall/F with interval and support, the interval strip; the four headline
# tiles), the interval text and the strips' shared domain.
#
# The functions are called directly on hand-built scores (real ``ThresholdScores`` and
# ``Ledger`` counts) and hand-built bootstrap intervals, so every figure, interval and support
# can be told apart from its neighbours: P != R != F on every row, precision supports
# (predicted spans) differ from recall supports (gold spans), ``beta`` = 2 and
# ``zero_division`` = 1 change what the page shows. Every expected value is worked out by hand
# in the comments.
# -------------------------------------------------------------------------------------------------


class _Run:
    """The one part of a ``SystemRun`` the figures read: its main-threshold scores."""

    def __init__(self, main: ThresholdScores) -> None:
        self.main = main


def _scores(per_label, entity_agnostic, *, beta=1.0, zero_division=None) -> ThresholdScores:
    return ThresholdScores(
        threshold=None,
        per_label=per_label,
        entity_agnostic=entity_agnostic,
        confusion={},
        errors=(),
        beta=beta,
        zero_division=zero_division,
    )


def _iv(estimate, low, high, support=None) -> Interval:
    return Interval(estimate, low, high, 0, support)


def _intervals(per_label, micro, macro) -> BootstrapIntervals:
    return BootstrapIntervals(
        threshold=None,
        resamples=100,
        seed=0,
        confidence=0.95,
        n_documents=10,
        per_label=per_label,
        micro=micro,
        macro=macro,
    )


# Ledger(num_annotated, num_predicted, tp, fn, credited, fp). beta = 2, zero_division = 1:
#   PER   4 gold, 2 pred, 2 hit: P = 1, R = 0.5, F2 = 5*1*0.5 / (4*1 + 0.5) = 5/9 = 0.556
#   LOC   1 gold, 3 pred, 1 hit: P = 1/3, R = 1, F2 = 5*(1/3)*1 / (4/3 + 1) = 5/7 = 0.714
#   MISC  2 gold, no prediction: P = 0/0 -> 1 (zero_division), R = 0, F2 = 0 / 4 = 0
#   ORG   no gold, 1 pred, missed: P = 0, R = 0/0 -> 1 (zero_division), F2 = 0 / 1 = 0
#   DATE  nothing at all: P = R = 1 (zero_division), F2 = 1
LEDGERS = {
    "PER": Ledger(4, 2, 2, 2, 2, 0),
    "LOC": Ledger(1, 3, 1, 0, 1, 2),
    "MISC": Ledger(2, 0, 0, 2, 0, 0),
    "ORG": Ledger(0, 1, 0, 0, 0, 1),
    "DATE": Ledger(),
}
# Any entity: P = 5/6 = 0.833, R = 5/7 = 0.714,
# F2 = 5*(5/6)*(5/7) / (4*5/6 + 5/7) = (125/42) / (85/21) = 125/170 = 0.735.
ANY_ENTITY = Ledger(7, 6, 5, 2, 5, 1)
MAIN = _scores(LEDGERS, ANY_ENTITY, beta=2.0, zero_division=1.0)
RUN = _Run(MAIN)
# Micro: 7 gold, 6 pred, tp 3, credited 3: P = 3/6 = 0.5, R = 3/7 = 0.429,
# F2 = 5*0.5*(3/7) / (4*0.5 + 3/7) = (15/14) / (17/7) = 15/34 = 0.441.
# Macro over the five labels (zero_division fills every undefined ratio):
#   P = (1 + 1/3 + 1 + 0 + 1) / 5 = 0.667, R = (0.5 + 1 + 0 + 1 + 1) / 5 = 0.700,
#   F2 = (5/9 + 5/7 + 0 + 0 + 1) / 5 = (80/63 + 1) / 5 = 0.454.
INTERVALS = _intervals(
    per_label={
        "PER": {
            "precision": _iv(1.0, 0.8, 1.0, 2),
            "recall": _iv(0.5, 0.25, 0.75, 4),
            "f": _iv(5 / 9, 0.3, 0.8, 4),
        },
        "LOC": {
            "precision": _iv(1 / 3, 0.1, 0.7, 3),
            "recall": _iv(1.0, 0.6, 1.0),  # no support recorded
            "f": _iv(5 / 7, 0.5, 0.9, 1),
        },
        "DATE": {f: _iv(1.0, 1.0, 1.0, 0) for f in ("precision", "recall", "f")},
        # MISC and ORG: no intervals.
    },
    micro={
        "precision": _iv(0.5, 0.3, 0.7, 6),
        "recall": _iv(3 / 7, 0.2, 0.65, 7),
        "f": _iv(15 / 34, 0.25, 0.62, 7),
    },
    macro={
        "precision": _iv(0.667, 0.45, 0.85, 5),
        "recall": _iv(0.7, 0.5, 0.9, 5),
        "f": _iv(0.454, 0.35, 0.6, 5),
    },
)
# Strip scale: x = 4 + (v - 0.39) / 0.61 * 122 = 4 + (v - 0.39) * 200, clamped to the domain.
DOMAIN = (0.39, 1.0)


def _cells(*cells: tuple[str, str, str]) -> list[dict]:
    return [{"value": v, "ci": ci, "n": n} for v, ci, n in cells]


NO_CI = ("", "")


def _strip(svg) -> tuple[str, str | None, tuple[str, str] | None]:
    """An interval strip as (its tooltip, the dot's x, the whisker's two x)."""
    text = str(svg)
    title = re.search(r"<title>(.*?)</title>", text)
    dot = re.search(r'<circle cx="([^"]+)"', text)
    whisker = re.search(r'<line x1="([^"]+)" x2="([^"]+)"[^>]*stroke-width="3"', text)
    assert title is not None, text
    return (
        title.group(1),
        dot.group(1) if dot else None,
        (whisker.group(1), whisker.group(2)) if whisker else None,
    )


def _split(rows: list[dict]) -> tuple[dict, dict]:
    """Rows by name without their strips, and the strips apart (as :func:`_strip` reads them,
    ``""`` where a row has none)."""
    plain = {r["name"]: {k: v for k, v in r.items() if k != "strip"} for r in rows}
    strips = {r["name"]: _strip(r["strip"]) if r["strip"] != "" else "" for r in rows}
    return plain, strips


def test_fmt_three_decimals_and_a_dash_for_undefined():
    assert fmt(None) == "–"
    assert fmt(0.5) == "0.500"
    assert fmt(2 / 3) == "0.667"


@pytest.mark.parametrize(("beta", "name"), [(1, "F1"), (1.0, "F1"), (2, "F2"), (0.5, "F0.5")])
def test_f_name_spells_beta(beta, name):
    assert f_name(beta) == name


def test_interval_text_names_the_support_each_figure_counts():
    iv = _iv(0.5, 0.25, 0.75, 1234)
    assert interval_text(iv) == "0.250–0.750 · n = 1,234 gold"
    assert interval_text(iv, "precision") == "0.250–0.750 · n = 1,234 predicted"
    assert interval_text(iv, "recall") == "0.250–0.750 · n = 1,234 gold"
    assert interval_text(iv, "precision", macro=True) == "0.250–0.750 · n = 1,234 labels"
    assert interval_text(iv, "f", True) == "0.250–0.750 · n = 1,234 labels"


def test_interval_text_without_support_or_without_bounds():
    assert interval_text(_iv(0.5, 0.125, 0.875)) == "0.125–0.875"
    assert interval_text(_iv(0.5, 0.125, 0.875), "precision", macro=True) == "0.125–0.875"
    assert interval_text(None) == ""
    assert interval_text(None, "precision", macro=True) == ""
    # Undefined in every resample: no bounds, so no text even with a support.
    assert interval_text(Interval(None, None, None, 100, 3), "recall") == ""


def test_figure_cells_split_interval_and_support():
    row = {
        "precision": _iv(0.9, 0.8, 1.0, 12),
        "recall": _iv(0.4, 0.3, 0.5, 20),
        "f": _iv(0.55, 0.45, 0.65),  # no support: the interval alone, no "n" line
    }
    assert figure_cells((0.9, None, 0.55), row) == _cells(
        ("0.900", "0.800–1.000", "n = 12 predicted"),
        ("–", "0.300–0.500", "n = 20 gold"),
        ("0.550", "0.450–0.650", ""),
    )
    assert figure_cells((0.9, 0.4, 0.55), row, macro=True) == _cells(
        ("0.900", "0.800–1.000", "n = 12 labels"),
        ("0.400", "0.300–0.500", "n = 20 labels"),
        ("0.550", "0.450–0.650", ""),
    )
    assert figure_cells((0.9, 0.4, None), None) == _cells(
        ("0.900", *NO_CI), ("0.400", *NO_CI), ("–", *NO_CI)
    )
    assert figure_cells((0.9, 0.4, None), None, macro=True) == _cells(
        ("0.900", *NO_CI), ("0.400", *NO_CI), ("–", *NO_CI)
    )


def test_ledger_row_uses_the_runs_beta_and_zero_division():
    row = ledger_row("MISC", LEDGERS["MISC"], RUN, INTERVALS.per_label["PER"], DOMAIN)
    assert row["name"] == "MISC"
    assert row["cls"] == ""
    assert row["counts"] == ["2", "0", "0", "2", "0", "0"]
    # P = 0/0 -> 1 (zero_division), R = 0, F2 = 0; the intervals are the ones passed in.
    assert row["figures"] == _cells(
        ("1.000", "0.800–1.000", "n = 2 predicted"),
        ("0.000", "0.250–0.750", "n = 4 gold"),
        ("0.000", "0.300–0.800", "n = 4 gold"),
    )
    # Dot at F = 0, clamped to the domain's left end; whisker 0.3 (clamped) to 0.8:
    # 4 + (0.8 - 0.39) * 200 = 86.
    assert _strip(row["strip"]) == ("0.000 [0.300, 0.800]", "4", ("4", "86"))
    assert str(row["strip"]).startswith('<svg class="strip"')

    pooled = ledger_row("any", Ledger(1234, 2000, 1000, 234, 1500, 500), RUN, None, DOMAIN, "x")
    assert pooled["cls"] == "x"
    assert pooled["counts"] == ["1,234", "2,000", "1,000", "234", "1,500", "500"]
    assert pooled["strip"] == ""


def test_ledger_row_of_an_empty_label_gets_zero_division_everywhere():
    # DATE has no span: P = R = 1 by zero_division, so F2 = 1 too (not undefined).
    row = ledger_row("DATE", LEDGERS["DATE"], RUN, INTERVALS.per_label["DATE"], (0.0, 0.5))
    assert row["figures"] == _cells(
        ("1.000", "1.000–1.000", "n = 0 predicted"),
        ("1.000", "1.000–1.000", "n = 0 gold"),
        ("1.000", "1.000–1.000", "n = 0 gold"),
    )
    # Domain (0, 0.5): x = 4 + v / 0.5 * 122, clamped: every point of 1.0 sits at 126.
    assert _strip(row["strip"]) == ("1.000 [1.000, 1.000]", "126", ("126", "126"))


def test_summary_rows_hold_each_rows_own_figures_and_intervals():
    rows, _ = summary_figures(RUN, INTERVALS, DOMAIN)
    plain, strips = _split(rows)
    assert [r["name"] for r in rows] == [
        "DATE", "LOC", "MISC", "ORG", "PER", "micro", "macro", "any entity"
    ]  # fmt: skip
    assert plain == {
        "DATE": {
            "name": "DATE",
            "cls": "",
            "counts": ["0"] * 6,
            "figures": _cells(
                ("1.000", "1.000–1.000", "n = 0 predicted"),
                ("1.000", "1.000–1.000", "n = 0 gold"),
                ("1.000", "1.000–1.000", "n = 0 gold"),
            ),
        },
        "LOC": {
            "name": "LOC",
            "cls": "",
            "counts": ["1", "3", "1", "0", "1", "2"],
            "figures": _cells(
                ("0.333", "0.100–0.700", "n = 3 predicted"),
                ("1.000", "0.600–1.000", ""),
                ("0.714", "0.500–0.900", "n = 1 gold"),
            ),
        },
        "MISC": {
            "name": "MISC",
            "cls": "",
            "counts": ["2", "0", "0", "2", "0", "0"],
            "figures": _cells(("1.000", *NO_CI), ("0.000", *NO_CI), ("0.000", *NO_CI)),
        },
        "ORG": {
            "name": "ORG",
            "cls": "",
            "counts": ["0", "1", "0", "0", "0", "1"],
            "figures": _cells(("0.000", *NO_CI), ("1.000", *NO_CI), ("0.000", *NO_CI)),
        },
        "PER": {
            "name": "PER",
            "cls": "",
            "counts": ["4", "2", "2", "2", "2", "0"],
            "figures": _cells(
                ("1.000", "0.800–1.000", "n = 2 predicted"),
                ("0.500", "0.250–0.750", "n = 4 gold"),
                ("0.556", "0.300–0.800", "n = 4 gold"),
            ),
        },
        "micro": {
            "name": "micro",
            "cls": "pooled",
            "counts": ["7", "6", "3", "4", "3", "3"],
            "figures": _cells(
                ("0.500", "0.300–0.700", "n = 6 predicted"),
                ("0.429", "0.200–0.650", "n = 7 gold"),
                ("0.441", "0.250–0.620", "n = 7 gold"),
            ),
        },
        "macro": {
            "name": "macro",
            "cls": "pooled",
            "counts": [""] * 6,
            "figures": _cells(
                ("0.667", "0.450–0.850", "n = 5 labels"),
                ("0.700", "0.500–0.900", "n = 5 labels"),
                ("0.454", "0.350–0.600", "n = 5 labels"),
            ),
        },
        "any entity": {
            "name": "any entity",
            "cls": "pooled",
            "counts": ["7", "6", "5", "2", "5", "1"],
            "figures": _cells(("0.833", *NO_CI), ("0.714", *NO_CI), ("0.735", *NO_CI)),
        },
    }
    # x = 4 + (v - 0.39) * 200, clamped to [0.39, 1]:
    assert strips == {
        "DATE": ("1.000 [1.000, 1.000]", "126", ("126", "126")),
        # 5/7 -> 4 + 0.3243 * 200 = 68.9; 0.5 -> 26; 0.9 -> 106
        "LOC": ("0.714 [0.500, 0.900]", "68.9", ("26", "106")),
        "MISC": "",
        "ORG": "",
        # 5/9 -> 4 + 0.1656 * 200 = 37.1; 0.3 -> 4 (clamped); 0.8 -> 86
        "PER": ("0.556 [0.300, 0.800]", "37.1", ("4", "86")),
        # 15/34 -> 4 + 0.0512 * 200 = 14.2; 0.25 -> 4; 0.62 -> 50
        "micro": ("0.441 [0.250, 0.620]", "14.2", ("4", "50")),
        # macro F 0.45397 -> 4 + 0.06397 * 200 = 16.8; 0.35 -> 4; 0.6 -> 46
        "macro": ("0.454 [0.350, 0.600]", "16.8", ("4", "46")),
        "any entity": "",
    }


def test_headline_tiles_hold_micro_p_r_f_and_macro_f():
    _, headline = summary_figures(RUN, INTERVALS, DOMAIN)
    assert headline == [
        {
            "name": "micro precision",
            "cls": "p",
            "value": "0.500",
            "ci": "0.300–0.700 · n = 6 predicted",
        },
        {"name": "micro recall", "cls": "r", "value": "0.429", "ci": "0.200–0.650 · n = 7 gold"},
        {"name": "micro F2", "cls": "f", "value": "0.441", "ci": "0.250–0.620 · n = 7 gold"},
        {"name": "macro F2", "cls": "f", "value": "0.454", "ci": "0.350–0.600 · n = 5 labels"},
    ]


def test_summary_without_intervals_has_figures_but_no_interval_or_strip():
    rows, headline = summary_figures(RUN, None, DOMAIN)
    plain, strips = _split(rows)
    assert set(strips.values()) == {""}
    assert [c["value"] for r in rows for c in r["figures"]] == [
        *("1.000", "1.000", "1.000"),  # DATE
        *("0.333", "1.000", "0.714"),  # LOC
        *("1.000", "0.000", "0.000"),  # MISC
        *("0.000", "1.000", "0.000"),  # ORG
        *("1.000", "0.500", "0.556"),  # PER
        *("0.500", "0.429", "0.441"),  # micro
        *("0.667", "0.700", "0.454"),  # macro
        *("0.833", "0.714", "0.735"),  # any entity
    ]
    assert {(c["ci"], c["n"]) for r in rows for c in r["figures"]} == {NO_CI}
    assert [r["cls"] for r in rows] == [""] * 5 + ["pooled"] * 3
    assert headline == [
        {"name": "micro precision", "cls": "p", "value": "0.500", "ci": ""},
        {"name": "micro recall", "cls": "r", "value": "0.429", "ci": ""},
        {"name": "micro F2", "cls": "f", "value": "0.441", "ci": ""},
        {"name": "macro F2", "cls": "f", "value": "0.454", "ci": ""},
    ]


def test_headline_of_an_empty_corpus_follows_zero_division():
    # No span anywhere: micro P and R are 0/0 -> 0 (zero_division), F1 of 0 and 0 is 0; the
    # one label's ratios are 0 as well, so macro F1 = 0 (not undefined).
    run = _Run(_scores({"PER": Ledger()}, Ledger(), zero_division=0.0))
    _, headline = summary_figures(run, None, (0.0, 1.0))
    assert [(t["name"], t["value"]) for t in headline] == [
        ("micro precision", "0.000"),
        ("micro recall", "0.000"),
        ("micro F1", "0.000"),
        ("macro F1", "0.000"),
    ]
    undefined = _Run(_scores({"PER": Ledger()}, Ledger()))
    _, headline = summary_figures(undefined, None, (0.0, 1.0))
    assert [t["value"] for t in headline] == ["–"] * 4


def test_label_rows_take_the_labels_own_intervals_not_the_aggregates():
    # A label called "micro" gets its per-label intervals; the micro row gets the micro ones.
    run = _Run(_scores({"micro": Ledger(2, 1, 1, 1, 1, 0)}, Ledger(2, 1, 1, 1, 1, 0)))
    label_iv = {f: _iv(0.5, 0.1, 0.2, 9) for f in ("precision", "recall", "f")}
    pooled_iv = {f: _iv(0.5, 0.3, 0.4, 8) for f in ("precision", "recall", "f")}
    rows, _ = summary_figures(run, _intervals({"micro": label_iv}, pooled_iv, pooled_iv), DOMAIN)
    assert [(r["name"], r["cls"], r["figures"][2]["ci"]) for r in rows] == [
        ("micro", "", "0.100–0.200"),
        ("micro", "pooled", "0.300–0.400"),
        ("macro", "pooled", "0.300–0.400"),
        ("any entity", "pooled", ""),
    ]


def _bi(per_label_f: dict[str, Interval], micro_f: Interval, macro_f: Interval):
    other = _iv(0.01, 0.01, 0.01)  # precision and recall: never part of the domain
    return _intervals(
        {k: {"precision": other, "recall": other, "f": v} for k, v in per_label_f.items()},
        {"precision": other, "recall": other, "f": micro_f},
        {"precision": other, "recall": other, "f": macro_f},
    )


def test_strip_domain_without_intervals_is_zero_to_one():
    assert strip_domain([]) == (0.0, 1.0)
    assert strip_domain([None, None]) == (0.0, 1.0)
    undefined = Interval(None, None, None, 10)
    assert strip_domain([_bi({"A": undefined}, undefined, undefined)]) == (0.0, 1.0)


def test_strip_domain_rounds_out_to_tenths_over_every_system():
    # F ends and estimates: 0.58 (a label's low) ... 0.87 (the macro high), in two systems;
    # floor(5.8) / 10 = 0.5, ceil(8.7) / 10 = 0.9. Undefined ends are skipped.
    a = _bi(
        {"A": _iv(0.62, 0.58, 0.7), "B": _iv(None, None, None)},
        _iv(0.65, 0.6, 0.72),
        _iv(0.7, 0.66, 0.75),
    )
    b = _bi({"A": _iv(0.8, 0.75, 0.85)}, _iv(0.79, 0.7, 0.86), _iv(0.83, 0.78, 0.87))
    assert strip_domain([a, None, b]) == pytest.approx((0.5, 0.9))
    assert strip_domain([b]) == pytest.approx((0.7, 0.9))


def test_strip_domain_narrower_than_a_tenth_widens_downwards():
    # Every F at 0.7: floor = ceil = 0.7, so the domain is (0.7 - 0.1, 0.7).
    flat = _iv(0.7, 0.7, 0.7)
    assert strip_domain([_bi({"A": flat}, flat, flat)]) == pytest.approx((0.6, 0.7))
    # 0.93 ... 1.0: (0.9, 1.0), a tenth wide.
    a = _bi({"A": _iv(0.95, 0.93, 0.97)}, _iv(0.96, 0.94, 0.99), _iv(0.97, 0.95, 1.0))
    assert strip_domain([a]) == pytest.approx((0.9, 1.0))
    # Every F at 0: never below 0.
    zero = _iv(0.0, 0.0, 0.0)
    assert strip_domain([_bi({"A": zero}, zero, zero)]) == (0.0, 0.0)


def test_by_support_orders_by_gold_then_predicted_then_name():
    per_label = {
        "b": Ledger(2, 1, 0, 2, 0, 1),
        "a": Ledger(2, 1, 0, 2, 0, 1),
        "c": Ledger(2, 5, 0, 2, 0, 5),
        "d": Ledger(7, 0, 0, 7, 0, 0),
        "e": Ledger(0, 9, 0, 0, 0, 9),
    }
    assert by_support(per_label) == ["d", "c", "a", "b", "e"]
