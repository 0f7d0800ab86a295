"""``python -m spacy_span_eval`` and the ``spacy-span-eval`` script: the CLI of :mod:`.cli`.

The script enters here, not in :mod:`.cli`, so that the process can be set up before numpy
is imported, and so that ``--version`` alone answers without building the command line
(typer and the flags cost more than the rest of the process).
"""

import os
import sys

from .about import version_line


def main() -> None:
    if sys.argv[1:] == ["--version"]:  # (typer answers it too, after parsing the rest)
        print(version_line())
        return
    # numpy's OpenBLAS starts a thread per core on import, and they spin for a while, for
    # nothing: the commands do no linear algebra (a pipeline run with --model multiplies
    # through thinc's blis or torch, which this does not touch). A value the user set is kept.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from .cli import main as run  # (deferred: --version alone needs no typer)

    run()


if __name__ == "__main__":
    main()
