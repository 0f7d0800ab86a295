"""Run some tests against mutants that ``make mutate`` generated (under ``mutants/``), without
a whole ``mutmut run``: prints ``killed`` or ``survived`` for each.

    .venv/bin/python tools/try_mutants.py tests/cli/test_cli_output.py \\
        --mutants 'render.text.x__average_row*'

``--mutants`` takes names or patterns (``fnmatch``, the ``spacy_span_eval.`` prefix may be
left out); a name is always tried, a pattern only tries the mutants the last run left alive
(``--all``: every match). Like mutmut, it imports the tests once and forks a process per
mutant, so a mutant costs its tests' time, not pytest's start-up.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def matching(patterns: list[str], every: bool) -> list[str]:
    """Mutants named outright, and those a pattern matches that the last run left alive (or
    that no test ran); with ``every``, all that match. A mutant the running pass has not
    checked yet is tried only when named outright (patterns would try the whole module)."""
    wanted = [p if p.startswith("spacy_span_eval.") else f"spacy_span_eval.{p}" for p in patterns]
    exact = {w for w in wanted if not any(c in w for c in "*?[")}
    names = []
    for meta in sorted((ROOT / "mutants").rglob("*.py.meta")):
        codes = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
        for name, code in codes.items():
            if name in exact or (
                any(fnmatch(name, w) for w in wanted) and (every or code in (0, 5, 33))
            ):
                names.append(name)
    return names


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tests", nargs="+", help="test files or node ids")
    ap.add_argument("--mutants", nargs="+", required=True, help="names or fnmatch patterns")
    ap.add_argument("--all", action="store_true", help="also mutants the last run killed")
    ap.add_argument("--timeout", type=int, default=0, help="seconds before a mutant is killed")
    ap.add_argument(
        "--collect-first", action="store_true", help="only collect the tests before the mutants"
    )
    args = ap.parse_args()
    if not (ROOT / "mutants" / "spacy_span_eval").is_dir():
        print("no mutants/: run make mutate first", file=sys.stderr)
        return 2
    names = matching(args.mutants, args.all)
    if not names:
        waiting = len(matching(args.mutants, True))
        print(
            f"no surviving mutant matches; {waiting} match that the running pass has not "
            "checked yet or has killed: name them outright to try them now"
            if waiting
            else "no mutant matches",
            file=sys.stderr,
        )
        return 2
    os.environ.setdefault("CI", "true")
    os.environ.setdefault("SPACY_SPAN_EVAL_DATA", str(ROOT.parent / "shared" / "data"))
    os.environ["MUTANT_UNDER_TEST"] = ""
    sys.path.insert(0, str(ROOT / "mutants"))
    import pytest

    base = ["-q", "-x", "-p", "no:cacheprovider", *args.tests]
    with open(os.devnull, "w") as null, contextlib.redirect_stdout(null):
        # imports everything once, and must pass unmutated (or, when known to pass, is collected)
        clean = pytest.main([*base, "--collect-only"] if args.collect_first else base)
    if clean != 0:
        print(f"the tests fail without a mutant (pytest exit {int(clean)})", file=sys.stderr)
        return 2
    survived = 0
    for name in names:
        pid = os.fork()
        if pid == 0:
            os.environ["MUTANT_UNDER_TEST"] = name
            signal.alarm(args.timeout)  # (a mutant that loops; 0: none)
            fd = os.open(os.devnull, os.O_WRONLY)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os._exit(int(pytest.main(base)))
        code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        verdict = {0: "survived", 1: "killed", -signal.SIGALRM: "timeout"}.get(
            code, f"error (pytest exit {code})"
        )
        survived += code == 0
        print(f"{verdict:9} {name.removeprefix('spacy_span_eval.')}", flush=True)
    print(f"{len(names) - survived} of {len(names)} killed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
