"""The console script has glibc keep freed memory for the next chunk's arrays
(:func:`spacy_span_eval.__main__.keep_freed_memory`), unless the user tuned glibc's
allocator. Each case runs in a fresh interpreter: the setting is for the whole process."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from spacy_span_eval import __main__ as entry

pytestmark = pytest.mark.processes  # a Python process per case
on_glibc = pytest.mark.skipif(not entry.glibc(), reason="the allocator settings are glibc's")


# An array of 3 MB (under numpy's 4 MB threshold for huge pages, so one fault is one 4 KB
# page) made and freed, then one of the same size again: the page faults of the second.
PROBE = textwrap.dedent("""
    import resource
    import numpy as np
    from spacy_span_eval.__main__ import keep_freed_memory

    made = keep_freed_memory()
    def faults():
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    np.ones(3 << 20, dtype=np.uint8)
    before = faults()
    np.ones(3 << 20, dtype=np.uint8)
    print(made, faults() - before)
""")

PAGES = (3 << 20) // 4096  # 768


def probe(**env: str) -> tuple[bool, int]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    clean.pop("GLIBC_TUNABLES", None)
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        timeout=120,
        env={**clean, **env},
    )
    assert done.returncode == 0, done.stderr
    made, faults = done.stdout.split()
    return made == "True", int(faults)


@on_glibc
def test_freed_arrays_are_reused_without_faulting_their_pages_again():
    made, faults = probe()
    assert made
    assert faults < PAGES // 8  # (the array's header and numpy's bookkeeping, at most)


@on_glibc
@pytest.mark.parametrize(
    "env",
    [
        pytest.param({"MALLOC_MMAP_THRESHOLD_": "131072"}, id="MALLOC_MMAP_THRESHOLD_"),
        pytest.param({"GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=131072"}, id="tunables"),
    ],
)
def test_a_users_own_allocator_settings_are_kept(env):
    # Both say: arrays of 128 KB and more get a mapping of their own, given back when
    # freed; so the second array faults in every page again.
    made, faults = probe(**env)
    assert not made
    assert faults >= PAGES * 9 // 10


@pytest.fixture
def no_allocator_settings(monkeypatch):
    for name in [k for k in os.environ if k.startswith("MALLOC_")]:
        monkeypatch.delenv(name)
    monkeypatch.delenv("GLIBC_TUNABLES", raising=False)


@pytest.mark.parametrize("error", [ValueError, OSError], ids=["macOS", "musl"])
def test_elsewhere_nothing_is_set(monkeypatch, no_allocator_settings, error):
    def not_glibc(name: str) -> str:
        raise error(name)

    monkeypatch.setattr(entry.os, "confstr", not_glibc)
    assert entry.keep_freed_memory() is False


def test_windows_has_no_confstr(monkeypatch, no_allocator_settings):
    monkeypatch.delattr(entry.os, "confstr")
    assert entry.keep_freed_memory() is False
