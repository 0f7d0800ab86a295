"""Per-module mutation scores from the results ``mutmut run`` keeps in ``mutants/``.

``mutmut results`` lists mutants one by one; this prints the table docs/testing.md keeps:
per module, the mutants of the scope (``[tool.mutmut] only_mutate``), how many the tests
killed, survived, or no test runs, and the score (killed and timeouts over all checked).
Survivors are listed with ``--survivors`` (grouped by function, as the docs' table is).

When a whole run does not fit the time at hand, ``--sample N --seed S`` prints N mutants drawn
at random from those not checked yet (their names, for ``mutmut run NAME...``; ``--only``
narrows the draw to the modules matching its patterns, as ``only_mutate`` names them), and
``--sampled FILE`` reads such a list back once it has run: the sample's score with a 95%
Wilson interval, and the whole scope's score if the unchecked rest scored like that.
"""

from __future__ import annotations

import argparse
import json
import math
import random
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
    ap.add_argument("--sample", type=int, help="print this many unchecked mutants, at random")
    ap.add_argument("--seed", type=int, default=0, help="the sample's random seed")
    ap.add_argument("--only", nargs="+", default=["*"], help="draw from these modules only")
    ap.add_argument("--sampled", type=Path, help="score the mutants listed in this file")
    args = ap.parse_args()
    patterns = scope()
    rows: dict[str, Counter] = defaultdict(Counter)
    survivors: dict[str, list[int]] = defaultdict(list)
    kinds: dict[str, str] = {}
    unchecked: list[str] = []
    for meta in sorted((ROOT / "mutants").rglob("*.py.meta")):
        source = meta.relative_to(ROOT / "mutants").as_posix()[: -len(".meta")]
        if not any(fnmatch(source, p) for p in patterns):
            continue
        codes = _codes(meta)
        module = source.removeprefix("spacy_span_eval/")
        drawn = any(fnmatch(source, p) for p in args.only)
        for key, code in codes.items():
            kind = column(code)
            kinds[key] = kind
            if drawn and kind == "not checked":
                unchecked.append(key)
            rows[module][kind] += 1
            if kind == "survived":
                function, n = re.fullmatch(r"(.*)__mutmut_(\d+)", key).groups()  # type: ignore[union-attr]
                survivors[function.removeprefix("spacy_span_eval.")].append(int(n))
    if not rows:
        print("no results under mutants/: run `make mutate` first", file=sys.stderr)
        return 2
    if args.sample is not None:
        rng = random.Random(args.seed)
        unchecked.sort()
        print("\n".join(sorted(rng.sample(unchecked, min(args.sample, len(unchecked))))))
        return 0
    if args.sampled is not None:
        return _sampled(args.sampled.read_text(encoding="utf-8").split(), kinds)
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


def _sampled(names: list[str], kinds: dict[str, str]) -> int:
    """The sample's score and what it implies for the scope (checked mutants as they are,
    the unchecked rest at the sample's rate: its estimate and its interval's ends)."""
    unknown = [n for n in names if n not in kinds]
    if unknown:
        print(f"not mutants of the scope: {', '.join(unknown[:5])}", file=sys.stderr)
        return 2
    c = Counter(kinds[n] for n in names)
    checked, caught = _checked_caught(c)
    if not checked:
        print("none of the sample has run yet", file=sys.stderr)
        return 2
    low, high = wilson(caught, checked)
    print(
        f"sample: {checked} of {len(names)} checked, {caught} killed "
        f"({c['timeout']} of them timeouts), {c['survived']} survived: "
        f"{100 * caught / checked:.1f}% (95% interval {100 * low:.1f}-{100 * high:.1f}%)"
    )
    total = Counter(kinds.values())
    done_checked, done = _checked_caught(total)
    rest = total["not checked"]
    whole = sum(total.values())
    estimate = (done + rest * caught / checked) / whole
    print(
        f"scope: {done:,} killed of {done_checked:,} checked, {rest:,} not checked; at the "
        f"sample's rate the whole scope scores {100 * estimate:.1f}% "
        f"({100 * (done + rest * low) / whole:.1f}-{100 * (done + rest * high) / whole:.1f}%)"
    )
    return 0


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of ``k`` successes in ``n`` trials."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def _checked_caught(c: Counter) -> tuple[int, int]:
    """How many of the mutants counted in ``c`` (by column) were checked, and how many of
    those the tests caught (killed or timed out)."""
    return sum(c.values()) - c["not checked"], c["killed"] + c["timeout"]


def _row(name: str, c: Counter) -> str:
    checked, caught = _checked_caught(c)
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
