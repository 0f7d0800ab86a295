"""Byte-compile the package before timing fresh processes.

An installed package (or a checkout run once) has its ``.pyc`` files; a machine with
``PYTHONDONTWRITEBYTECODE`` set never writes them, and every process then compiles each
module it imports again (tens of milliseconds, charged to whatever was timed). The benches
that time whole processes call :func:`compile_package` first, so they time what users run.
"""

from __future__ import annotations

import compileall
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "spacy_span_eval"


def compile_package() -> None:
    compileall.compile_dir(str(PACKAGE), quiet=1)
