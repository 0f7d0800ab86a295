"""``python -m spacy_span_eval`` and the ``spacy-span-eval`` script: the CLI of :mod:`.cli`.

The script enters here, not in :mod:`.cli`, so that the process can be set up before numpy
is imported, and so that ``--version`` alone answers without building the command line
(typer and the flags cost more than the rest of the process).
"""

import os
import sys


def main() -> None:
    if sys.argv[1:] == ["--version"]:  # (typer answers it too, after parsing the rest)
        from .about import version_line

        print(version_line())
        return
    # numpy's OpenBLAS starts a thread per core on import, and they spin for a while: about
    # 50 ms of CPU a run, for nothing, as the commands do no linear algebra (a pipeline run
    # with --model multiplies through thinc's blis or torch, which this does not touch). A
    # value the user set is kept.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if "--help" not in sys.argv[1:]:
        keep_freed_memory()
    from .cli import main as run

    run()


def keep_freed_memory() -> bool:
    """Let glibc keep the memory the readers free, for the arrays of the next chunk.

    The readers work a chunk at a time through arrays of a few MB, freed at the chunk's end.
    glibc serves such sizes with fresh mappings at first and gives a heap's free top back
    to the kernel, so the next chunk's arrays fault in their pages again; a page fault
    costs a few microseconds. Served from a heap that is kept, the CoNLL command of
    docs/benchmarks.md faulted 6,000 fewer pages, with 20 ms less system time. Peak memory
    is the same: what is kept is what the next chunk takes again. Only in this process
    (the console script), only with glibc, and not when the user set glibc's own
    ``MALLOC_*`` variables. Returns whether the settings were made.
    """
    if any(k.startswith("MALLOC_") for k in os.environ) or (
        "glibc.malloc" in os.environ.get("GLIBC_TUNABLES", "")
    ):
        return False
    if not glibc():
        return False
    import ctypes

    libc = ctypes.CDLL(None)
    mmap_threshold, trim_threshold = -3, -1  # mallopt's M_MMAP_THRESHOLD, M_TRIM_THRESHOLD
    # (32 MB is the most glibc takes; 64 MB free at the heap's top before it is given back)
    return bool(libc.mallopt(mmap_threshold, 32 << 20)) and bool(
        libc.mallopt(trim_threshold, 64 << 20)
    )


def glibc() -> bool:
    """Whether the C library is glibc (not on Windows, macOS or musl)."""
    try:
        return bool(os.confstr("CS_GNU_LIBC_VERSION"))
    except (AttributeError, ValueError, OSError):  # (Windows has no confstr)
        return False


if __name__ == "__main__":
    main()
