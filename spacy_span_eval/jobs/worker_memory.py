"""A worker process keeps the memory it frees, for its next unit of work to reuse.

glibc's ``malloc`` hands large blocks back to the system as soon as they are freed (those
over ``M_MMAP_THRESHOLD`` are unmapped; the heap's top is trimmed past
``M_TRIM_THRESHOLD``), and the next part a worker reads faults the same pages in again: on a
1M-sentence CoNLL pair, 2,500 to 5,500 page faults a 7.7 MB part, at about 2 µs each on the
machines we measure on (``docs/benchmarks.md``, "Parallel reading"). A worker lives for one
run, so it keeps what it frees: its peak memory is what it was, and later parts reuse it.

By hand through ``ctypes`` because no library exposes ``mallopt``; elsewhere than glibc
nothing is changed. The process that starts the workers is left as it is (it may be a
user's, running more than this).
"""

from __future__ import annotations

import os
import sys

__all__ = ["MMAP_THRESHOLD", "TRIM_THRESHOLD", "keep_freed_memory"]

#: Blocks up to this size come from the heap, where freed ones stay for reuse (glibc's
#: largest value for its own moving threshold); a chunk's arrays are far smaller.
MMAP_THRESHOLD = 32 << 20
#: Free memory at the heap's top is handed back only past this.
TRIM_THRESHOLD = 1 << 30
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # (glibc's malloc.h)


def keep_freed_memory() -> bool:
    """Set this process's ``malloc`` to keep freed memory; ``False`` where it is not
    glibc's (nothing changed)."""
    if sys.platform != "linux":
        return False
    try:
        version = os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (OSError, ValueError):
        return False
    if not version.startswith("glibc"):
        return False
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(
        mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    )
