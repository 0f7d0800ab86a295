"""Per-module mutation scores from the results ``mutmut run`` keeps in ``mutants/``.

``mutmut results`` lists mutants one by one; this prints the table docs/testing.md keeps:
per module, the mutants of the scope (``[tool.mutmut] only_mutate``), how many the tests
killed, survived, or no test runs, and the score (killed and timeouts over all checked).
Survivors are listed with ``--survivors`` (grouped by function, as the docs' table is).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import tomllib
from collections import Counter, defaultdict
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: mutmut's exit codes (mutmut/stats.py) folded into the table's columns.
KILLED = {1, 3}
TIMEOUT = {24, -24, 36, 152, 255}
SURVIVED = {0}
NO_TESTS = {5, 33}


def scope() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return config["tool"]["mutmut"]["only_mutate"]


def column(code: int | None) -> str:
    if code is None:
        return "not checked"
    if code in KILLED:
        return "killed"
    if code in TIMEOUT:
        return "timeout"
    if code in SURVIVED:
        return "survived"
    if code in NO_TESTS:
        return "no tests"
    return "other"


def _codes(meta: Path) -> dict[str, int | None]:
    """The file's exit codes (read again when a running ``mutmut run`` is writing it)."""
    for attempt in range(20):
        try:
            return json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
        except json.JSONDecodeError:
            if attempt == 19:
                raise
            time.sleep(0.05)
    raise AssertionError("unreachable")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--survivors", action="store_true", help="list survivors by function")
    args = ap.parse_args()
    patterns = scope()
    rows: dict[str, Counter] = defaultdict(Counter)
    survivors: dict[str, list[int]] = defaultdict(list)
    for meta in sorted((ROOT / "mutants").rglob("*.py.meta")):
        source = meta.relative_to(ROOT / "mutants").as_posix()[: -len(".meta")]
        if not any(fnmatch(source, p) for p in patterns):
            continue
        codes = _codes(meta)
        module = source.removeprefix("spacy_span_eval/")
        for key, code in codes.items():
            kind = column(code)
            rows[module][kind] += 1
            if kind == "survived":
                function, n = re.fullmatch(r"(.*)__mutmut_(\d+)", key).groups()  # type: ignore[union-attr]
                survivors[function.removeprefix("spacy_span_eval.")].append(int(n))
    if not rows:
        print("no results under mutants/: run `make mutate` first", file=sys.stderr)
        return 2
    head = ("module", "mutants", "killed", "survived", "no tests", "not checked", "score")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    total: Counter = Counter()
    for module, c in sorted(rows.items()):
        total.update(c)
        print(_row(f"`{module}`", c))
    print(_row("**all**", total))
    if args.survivors:
        print()
        for function, numbers in sorted(survivors.items()):
            print(f"{function}: {', '.join(map(str, sorted(numbers)))}")
    return 0


def _row(name: str, c: Counter) -> str:
    checked = sum(c.values()) - c["not checked"]
    caught = c["killed"] + c["timeout"]
    score = f"{100 * caught / checked:.1f}%" if checked else "–"
    cells = (
        name,
        f"{sum(c.values()):,}",
        f"{caught:,}",
        f"{c['survived']:,}",
        f"{c['no tests']:,}",
        f"{c['not checked']:,}",
        score,
    )
    return "| " + " | ".join(cells) + " |"


if __name__ == "__main__":
    sys.exit(main())
