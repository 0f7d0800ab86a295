"""A ``.spacy`` file is refused, before spaCy inflates it, once its inflated size passes a
limit proportional to the file (readers/docbin.py: 100x plus 64 MiB, or
``SPACY_SPAN_EVAL_DOCBIN_MAX_MB``): a small file that inflates to hundreds of megabytes costs a
few megabytes of memory, and a genuine file within the limit reads as before."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import zlib

import pytest

pytest.importorskip("spacy")

import spacy  # noqa: E402
from spacy.tokens import DocBin, Span  # noqa: E402

from spacy_span_eval.errors import InvalidInputError  # noqa: E402
from spacy_span_eval.readers.docbin import LIMIT_VARIABLE, read_docbin  # noqa: E402


def bomb(path, mib: int) -> None:
    """A zlib stream of ``mib`` MiB of zeros (a few hundred KB): no DocBin, but the check comes
    before any msgpack is read."""
    packer = zlib.compressobj(9)
    block = bytes(1 << 20)
    with open(path, "wb") as fh:
        for _ in range(mib):
            fh.write(packer.compress(block))
        fh.write(packer.flush())


def docbin(path, n: int) -> None:
    nlp = spacy.blank("en")
    bin_ = DocBin()
    for i in range(n):
        doc = nlp(f"Sentence number {i} names Alice Smith and the city of Paris today .")
        doc.ents = [Span(doc, 4, 6, label="PER")]
        bin_.add(doc)
    bin_.to_disk(path)


def test_a_file_that_inflates_past_the_limit_is_refused(tmp_path):
    path = tmp_path / "bomb.spacy"
    bomb(path, 160)  # ~160 KB: limit 100 x that + 64 MiB, about 80 MiB
    with pytest.raises(InvalidInputError, match=r"refused: .* inflates to more than"):
        list(read_docbin(path))


def test_the_limit_can_be_set_and_a_genuine_file_within_it_reads(tmp_path, monkeypatch):
    path = tmp_path / "gold.spacy"
    docbin(path, 3000)
    assert len(list(read_docbin(path))) == 3000  # the default limit
    monkeypatch.setenv(LIMIT_VARIABLE, "0.01")  # 10 KiB: less than it inflates to
    with pytest.raises(InvalidInputError, match=f"{LIMIT_VARIABLE}=0.01"):
        list(read_docbin(path))
    monkeypatch.setenv(LIMIT_VARIABLE, "nonsense")
    with pytest.raises(InvalidInputError, match="positive number of MiB"):
        list(read_docbin(path))


@pytest.mark.slow
def test_refusing_a_bomb_keeps_memory_small(tmp_path):
    path = tmp_path / "bomb.spacy"
    bomb(path, 1024)  # 1 GiB inflated from about 1 MB
    code = textwrap.dedent(
        f"""
        import resource
        from spacy_span_eval.errors import InvalidInputError
        from spacy_span_eval.readers.docbin import read_docbin
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        try:
            list(read_docbin({str(path)!r}))
        except InvalidInputError:
            pass
        print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert int(done.stdout.strip()) < 100 * 1024  # KiB: the file and a few blocks, not 1 GiB
