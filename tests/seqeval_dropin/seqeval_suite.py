"""Run seqeval 1.2.2's own ``tests/test_metrics.py``, unchanged, against spacy_span_eval.seqeval.

The file comes from seqeval's source distribution, which ``make seqeval-suite-files`` fetches
from the package index (the tests never reach the network) and unpacks into
``build/seqeval-suite``. It runs in a child pytest, from its own folder (it calls
``perl conlleval.pl`` and reads ``data/`` there), with the ``seqeval_alias`` plugin resolving
the ``seqeval`` modules to this package's.

    python tests/seqeval_dropin/seqeval_suite.py [FOLDER] [--quick]

``--quick`` leaves out ``test_statistical_tests`` (20,000 runs of conlleval.pl, minutes);
``make seqeval-suite`` runs the whole file.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
DEFAULT = ROOT / "build" / "seqeval-suite" / "seqeval-1.2.2" / "tests"
SLOW = "test_metrics.py::TestMetrics::test_statistical_tests"


def suite_folder() -> Path:
    """Where the unpacked ``tests`` folder is (``SPACY_SPAN_EVAL_SEQEVAL_SUITE`` overrides)."""
    return Path(os.environ.get("SPACY_SPAN_EVAL_SEQEVAL_SUITE", DEFAULT))


def run(folder: Path, *, quick: bool) -> subprocess.CompletedProcess[str]:
    # An empty ini file of its own keeps this repository's pytest settings out of the run.
    ini = folder / "pytest-seqeval-suite.ini"
    ini.write_text("[pytest]\n", encoding="utf-8")
    command = [
        sys.executable, "-m", "pytest", "-c", str(ini), "--rootdir", str(folder),
        "-p", "seqeval_alias", "-p", "no:cacheprovider", "test_metrics.py",
    ]  # fmt: skip
    if quick:
        command += ["--deselect", SLOW]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), str(ROOT)]))
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, check=False)


def main() -> int:
    args = [a for a in sys.argv[1:] if a != "--quick"]
    folder = Path(args[0]) if args else suite_folder()
    if not (folder / "test_metrics.py").is_file():
        print(f"no test_metrics.py in {folder}: run `make seqeval-suite-files`", file=sys.stderr)
        return 2
    done = run(folder, quick="--quick" in sys.argv[1:])
    print(done.stdout, end="")
    print(done.stderr, end="", file=sys.stderr)
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main())
