"""Predictions from a trained spaCy pipeline, run over the gold documents' own tokens or text.

Gold records go through ``nlp.pipe`` in batches (``n_process`` workers if asked); each
predicted ``Doc`` comes back next to its gold record, so nothing needs re-pairing. Token
input (CoNLL, DocBin) is handed to the pipeline as pre-tokenized ``Doc`` objects, so token
indices agree with the gold side; text input is tokenized by the pipeline.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, TypeVar

from ..errors import InvalidInputError
from ..processes import forks_die_with_this_process
from .base import Record
from .docbin import doc_record
from .options import ReadingOptions
from .progress import with_progress

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc
    from spacy.training import Example

T = TypeVar("T")
#: A signal handler as ``signal.signal`` takes and returns it.
_Handler = Callable[[int, FrameType | None], object] | int | None


class PipelineRun(str):
    """A pipeline's name standing for the pipeline itself, already loaded (``nlp``) and, when
    ``examples`` are given, already run: spaCy ``Example`` objects whose ``reference`` docs
    are the gold documents and whose ``predicted`` docs are the pipeline's output on them.

    It goes wherever a model name goes (``model=``): :func:`load_pipeline` loads nothing and,
    with ``examples``, the pair read is the examples' (:func:`example_pairs`), so nothing
    runs the pipeline again. ``spacy span-eval evaluate`` scores spaCy's own evaluation this
    way (one load, one pipeline pass for both tables).
    """

    nlp: Language
    examples: list[Example] | None

    def __new__(
        cls, name: str, nlp: Language, examples: list[Example] | None = None
    ) -> PipelineRun:
        run = super().__new__(cls, name)
        run.nlp = nlp
        run.examples = examples
        return run


def pipeline_pairs(
    model: str,
    gold: Iterable[Record],
    data: Path | str,
    reading: ReadingOptions,
    progress: bool = False,
    code: str | None = None,
    gpu_id: int = -1,
    batch_size: int = 256,
    n_process: int = 1,
) -> Iterator[tuple[Record, Record]]:
    """``(gold, predicted)`` record pairs of the ``gold`` records (of the file ``data``) and a
    pipeline's predictions, as :func:`predict` makes them (``progress``: its bar; ``code``,
    ``gpu_id``: as for :func:`load_pipeline`; ``batch_size``, ``n_process``: for
    ``nlp.pipe``); those of a :class:`PipelineRun`
    that has run already, as it ran (:func:`example_pairs`: ``gold`` is not read). With
    ``--input-format strings`` the predictions are the raw responses an llm pipeline kept."""
    if isinstance(model, PipelineRun) and model.examples is not None:
        return example_pairs(model.examples, data=data, model_name=model, reading=reading)
    nlp = load_pipeline(model, code=code, gpu_id=gpu_id)
    return predict(
        nlp,
        gold,
        model_name=model,
        reading=reading,
        batch_size=batch_size,
        n_process=n_process,
        progress=progress,
    )


def example_pairs(
    examples: Iterable[Example], *, data: Path | str, model_name: str, reading: ReadingOptions
) -> Iterator[tuple[Record, Record]]:
    """``(gold, predicted)`` records of spaCy examples the pipeline has run on (the
    ``reference`` and ``predicted`` docs); ``data`` names the gold file in messages. The
    examples are the documents spaCy evaluates (its ``Corpus`` leaves empty ones out and,
    with gold preprocessing, makes one of each sentence), so they are named by their
    position: ``DATA example 3``."""
    name, options = Path(data).name, reading.for_side("gold")
    for i, example in enumerate(examples, 1):
        gold = doc_record(example.reference, f"{data} example {i}", f"{name}#{i}", options)
        yield gold, _predicted(example.predicted, gold, model_name, reading)


def _predicted(doc: Doc, gold: Record, model_name: str, reading: ReadingOptions) -> Record:
    """The pipeline's ``doc`` for ``gold`` as the predicted record; with ``--input-format
    strings``, the strings of the raw responses an llm pipeline kept in it."""
    where = f"{model_name} on {gold.where}"
    if reading.input_format == "strings":
        from .strings import llm_strings  # (a reader: loaded when its format is read)

        return Record(where, gold.key, gold.id, strings=llm_strings(doc))
    return doc_record(doc, where, gold.key, reading.for_side("predicted"), gold.id)


def load_pipeline(name: str, *, code: str | None = None, gpu_id: int = -1) -> Language:
    """``spacy.load`` a path or installed package, as an input error when it cannot (a
    :class:`PipelineRun` is its pipeline, loaded already).

    ``code``: a Python file imported first (registered functions and components the pipeline
    needs, as spaCy's ``--code``); ``gpu_id`` >= 0 runs the pipeline on that GPU."""
    if isinstance(name, PipelineRun):
        return name.nlp
    import spacy  # (heavy: only a --model run loads it)
    from thinc.api import require_gpu  # (spaCy's own, as heavy)

    import_code(code)
    if gpu_id >= 0:
        try:
            require_gpu(gpu_id)
        except (ValueError, ImportError) as exc:
            raise InvalidInputError(f"cannot use GPU {gpu_id}: {exc}") from None
    try:
        return spacy.load(name)
    except OSError as exc:
        raise InvalidInputError(f"cannot load the pipeline {name!r}: {exc}") from None


def import_code(code: str | None) -> None:
    """Import a Python file (its registered functions), as an input error when it cannot."""
    if code is None:
        return
    from spacy.util import import_file  # (spaCy: only a --model run loads it)

    if not Path(code).is_file():
        raise InvalidInputError(f"{code}: no such Python file (--code)")
    try:
        import_file("span_eval_code", code)
    except Exception as exc:  # the user's code: any error is theirs to see, in one line
        raise InvalidInputError(f"{code}: cannot import it ({type(exc).__name__}: {exc})") from None


def predict(
    nlp: Language,
    gold: Iterable[Record],
    *,
    model_name: str,
    reading: ReadingOptions,
    batch_size: int = 256,
    n_process: int = 1,
    progress: bool = True,
) -> Iterator[tuple[Record, Record]]:
    """``(gold, predicted)`` record pairs, the predicted one read from the pipeline's ``Doc``
    (:func:`_predicted`).

    ``progress`` shows a bar on a terminal (it stays quiet when output is not a TTY).
    """
    inputs = ((_input(nlp, r), r) for r in gold)
    docs = nlp.pipe(inputs, as_tuples=True, batch_size=batch_size, n_process=n_process)
    if n_process != 1:
        docs = _interrupts_for_this_process(docs)
    bar = with_progress(docs, desc=f"Running {model_name}", unit="doc", enabled=progress, after=0)
    for doc, record in bar:
        yield record, _predicted(doc, record, model_name, reading)


def _interrupts_for_this_process(items: Iterator[T]) -> Iterator[T]:
    """Iterate ``nlp.pipe`` with worker processes so that an interrupt ends the run with one
    message and no worker left behind. spaCy starts its workers with fork (on Linux), so
    they inherit this process's signal handlers. Ctrl-C: in this process the handler
    terminates the workers and raises ``KeyboardInterrupt`` (spaCy's generator then joins
    its workers, and its warning that they did not all finish is expected, so it is
    silenced); in a worker it exits quietly instead of printing a traceback. SIGTERM and
    SIGHUP, where a Python handler takes them (the CLI's: it raises in this process and
    exits quietly in a worker): the workers are terminated the same way, then that handler
    runs; else spaCy's generator would wait for workers blocked writing to a full pipe that
    nobody reads. The workers also die with this process however it ends
    (:func:`..processes.forks_die_with_this_process`: spaCy takes no initializer)."""
    with forks_die_with_this_process():
        if threading.current_thread() is not threading.main_thread():
            yield from items
            return
        parent = os.getpid()
        before = set(multiprocessing.active_children())  # (spaCy's start on the first item)

        def stop_workers() -> None:
            warnings.filterwarnings("ignore", message=r"\[W127\]")
            for child in multiprocessing.active_children():
                if child not in before:
                    child.terminate()

        def on_interrupt(signum: int, frame: FrameType | None) -> None:
            if os.getpid() != parent:
                raise SystemExit(130)  # a worker: multiprocessing exits on it without a word
            stop_workers()
            raise KeyboardInterrupt

        def on_stop(signum: int, frame: FrameType | None) -> None:
            if os.getpid() == parent:
                stop_workers()
            handler = previous[signum]
            if callable(handler):  # (it was when this one took its place)
                handler(signum, frame)

        previous: dict[int, _Handler] = {signal.SIGINT: signal.signal(signal.SIGINT, on_interrupt)}
        for name in ("SIGTERM", "SIGHUP"):
            signum = getattr(signal, name, None)
            if signum is not None and callable(signal.getsignal(signum)):
                previous[signum] = signal.signal(signum, on_stop)
        try:
            yield from items
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)


def _input(nlp: Language, record: Record) -> Doc | str:
    """What the pipeline runs on: the record's own tokens (a Doc's with its spaces), else its
    text."""
    from spacy.tokens import Doc  # (spaCy: only a --model run loads it)

    if record.tokens is None:
        return record.char_text()
    if record.starts is None:
        spaces = [True] * (len(record.tokens) - 1) + [False]
    else:  # (a space after a token: the next one starts past its end)
        nexts = [*record.starts[1:], len(record.char_text())]
        spaces = [
            s + len(t) < n for s, t, n in zip(record.starts, record.tokens, nexts, strict=False)
        ]
    try:
        return Doc(nlp.vocab, words=list(record.tokens), spaces=spaces)
    except ValueError as exc:  # spaCy rejects empty tokens, which CoNLL files can hold
        raise InvalidInputError(
            f"{record.where}: the pipeline cannot take these tokens ({exc})"
        ) from None
