"""The typer application of ``spacy-span-eval``: its command and group classes (``--help`` a
plain flag, usage lines as typed), its one-line summary, the global ``--version`` and
``--debug``, the exit codes (semantics §7), a failure as one console line (naming the file,
line or option where the input errors name them), SIGTERM and SIGHUP handled as Ctrl-C is
(exit 128 + the signal's number), the app a start needs (only the command run), and how a
command takes a whole options dataclass (:class:`Flags`, :func:`takes_options`). The commands
themselves are registered on :data:`app` by :mod:`spacy_span_eval.cli`."""

from __future__ import annotations

import copy
import functools
import inspect
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import Enum
from typing import Annotated, Any, NoReturn, get_args, get_origin

import attrs
import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from ..about import version_line
from ..engine.settings import DEFAULT_STRATEGY, STRATEGY_NAMES
from ..errors import SpanEvalError

__all__ = [
    "Command",
    "EXIT_GATE_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "Flags",
    "Group",
    "SIGNALS",
    "Stopped",
    "app",
    "app_for",
    "command",
    "debugging",
    "describe_failure",
    "exit_now",
    "exit_stopped",
    "flag",
    "plain_when_no_color",
    "stop_children",
    "stop_on_signals",
    "stopped_by_signals",
    "takes_options",
]

EXIT_OK, EXIT_GATE_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


# -- Option sets --------------------------------------------------------------------------
# How a typer command takes a whole options dataclass instead of one parameter per flag.
#
# A command names the dataclass and its :class:`Flags` set in the annotation::
#
#     @app.command("evaluate")
#     @takes_options
#     def evaluate_cli(gold: GoldFile, pred: PredFile = None, *,
#                      scoring: Annotated[ScoringOptions, SCORING_FLAGS],
#                      reading: Annotated[ReadingOptions, READING_FLAGS], ...) -> None:
#
# :func:`takes_options` puts the set's flags into the command's signature, where typer looks for
# parameters, and calls the command with the filled-in dataclass (and every choice as its plain
# string). Written out, the four scoring commands declared 22-27 parameters each and collected
# them again by hand into the options, so a new option meant five edits that had to agree; here
# it is a dataclass field and a flag in its set, and ``--help``, parsing and the value the
# command sees follow. The parameters that differ per command (its arguments, ``--output``,
# ``--floors``, the interval options) stay written out, so a command's signature still says
# what it takes.


def flag(kind: Any, *names: str, **declaration: Any) -> Any:
    """The flag type of an option set's field (:class:`Flags`): its type and its typer
    declaration, ``Annotated[kind, typer.Option(*names, **declaration)]``."""
    return Annotated[kind, typer.Option(*names, **declaration)]


class Flags:
    """The flags that fill one options dataclass, in ``--help`` order.

    Each keyword names a field of ``target`` and gives its flag type, whose default is the
    field's own, or a ``(flag type, default)`` pair when the command line's default differs
    (an empty repeatable flag, or a command's own default). A field without a flag keeps its
    dataclass default.
    """

    def __init__(self, target: type, **flags: Any) -> None:
        defaults = {f.name: f.default for f in attrs.fields(target)}
        unknown = sorted(set(flags) - set(defaults))
        if unknown:
            raise TypeError(f"{target.__name__} has no field {', '.join(unknown)}")
        self.target = target
        self.flags: dict[str, tuple[Any, Any]] = {
            name: flag if isinstance(flag, tuple) else (flag, defaults[name])
            for name, flag in flags.items()
        }

    def but(self, **changes: Any) -> Flags:
        """These flags with some replaced (as in the constructor) or left out (``None``)."""
        merged = {**self.flags, **changes}
        return Flags(self.target, **{k: v for k, v in merged.items() if v is not None})

    def only(self, *names: str) -> Flags:
        """These flags for the fields ``names`` only."""
        return Flags(self.target, **{k: v for k, v in self.flags.items() if k in names})

    def parameters(self) -> list[inspect.Parameter]:
        """The flags as keyword parameters, for a command's signature."""
        return [
            inspect.Parameter(
                name,
                inspect.Parameter.KEYWORD_ONLY,
                annotation=annotation,
                default=inspect.Parameter.empty if default is attrs.NOTHING else default,
            )
            for name, (annotation, default) in self.flags.items()
        ]

    def collect(self, values: dict[str, Any]) -> Any:
        """The dataclass, from (and taking out of) a command's parsed ``values``."""
        given = {name: values.pop(name) for name in self.flags}
        # A repeatable flag given no times leaves the field's default.
        return self.target(**{k: v for k, v in given.items() if v != ()})


def _plain(value: Any) -> Any:
    """A parsed value as the layers below take it: a choice as its string, a list a tuple."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, list):
        return tuple(_plain(v) for v in value)
    return value


def _flags_of(annotation: Any) -> Flags | None:
    if get_origin(annotation) is not Annotated:
        return None
    target, *extras = get_args(annotation)
    for extra in extras:
        if isinstance(extra, Flags):
            if extra.target is not target:
                raise TypeError(
                    f"{annotation}: flags of {extra.target.__name__}, not {target.__name__}"
                )
            return extra
    return None


def takes_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Let a typer command take options dataclasses.

    Each keyword-only parameter annotated ``Annotated[SomeOptions, SOME_FLAGS]`` is replaced,
    in the signature typer reads, by the flags of ``SOME_FLAGS``; the command is called with
    the dataclass filled in from them. Every choice reaches the command as its string.
    """
    signature = inspect.signature(command, eval_str=True)
    sets: dict[str, Flags] = {}
    parameters: list[inspect.Parameter] = []
    for parameter in signature.parameters.values():
        flags = _flags_of(parameter.annotation)
        if flags is None:
            parameters.append(parameter)
            continue
        if parameter.kind is not inspect.Parameter.KEYWORD_ONLY:
            raise TypeError(f"{command.__name__}: make {parameter.name} keyword-only (after *)")
        sets[parameter.name] = flags
        parameters.extend(flags.parameters())

    @functools.wraps(command)
    def run(**values: Any) -> Any:
        values = {name: _plain(value) for name, value in values.items()}
        for name, flags in sets.items():
            try:
                values[name] = flags.collect(values)
            except ValueError as exc:  # a value the dataclass refuses (beta nan, ...)
                raise typer.BadParameter(str(exc)) from None
        return command(**values)

    # (a flag declared twice: inspect refuses the signature, naming it)
    run.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in parameters}
    return run


# -- The app -------------------------------------------------------------------------------


def _flag(option: TyperOption | None) -> TyperOption | None:
    """``--help`` as a flag: no value placeholder after it, and ``False`` when not given
    (typer would convert a ``None`` through pydantic, which a help page need not load)."""
    if option is not None:
        option.metavar = ""
        option.default = False
    return option


class Command(TyperCommand):
    """A command whose ``--help`` is shown and taken as a plain flag (:func:`_flag`), and
    whose usage line names its arguments as a user types them (``GOLD [PRED]``)."""

    def get_help_option(self, ctx: Any) -> TyperOption | None:
        return _flag(super().get_help_option(ctx))

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if isinstance(param, TyperArgument):
                name = param.metavar or (param.name or "").upper()
                name = name if param.required else f"[{name}]"
                pieces.append(name + ("..." if param.nargs != 1 else ""))
        return pieces


def command(group: typer.Typer, name: str) -> Callable[[Callable[..., Any]], Any]:
    """Register a command on ``group`` as a :class:`Command` taking its option sets whole
    (:func:`takes_options`)."""
    return lambda run: group.command(name, cls=Command)(takes_options(run))


class Group(TyperGroup):
    """The command group, its ``--help`` as the commands' (:func:`_flag`)."""

    def get_help_option(self, ctx: Any) -> TyperOption | None:
        return _flag(super().get_help_option(ctx))


#: The command line's one-line summary; it names every strategy.
SUMMARY = (
    "Score NER span predictions with two-sided IoU counting (or "
    + ", ".join(name for name in STRATEGY_NAMES if name != DEFAULT_STRATEGY)
    + ")."
)

app = typer.Typer(
    name="spacy-span-eval",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    cls=Group,
    help=SUMMARY,
)

# Set by --debug for the command being run (the app's callback runs first, every time).
_debug = False


def debugging() -> bool:
    """Whether ``--debug`` was given to the command being run."""
    return _debug


def _show_version(value: bool) -> None:
    if value:
        typer.echo(version_line())
        raise typer.Exit(EXIT_OK)


@app.callback()
def _global_options(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            metavar="",
            is_eager=True,
            callback=_show_version,
            help="Print the version and exit",
        ),
    ] = False,
    debug: Annotated[
        bool,
        typer.Option(
            "--debug",
            metavar="",
            help="On an error, also print the traceback (the exit code is the same)",
        ),
    ] = False,
) -> None:
    global _debug
    _debug = debug


def plain_when_no_color() -> None:
    """With ``NO_COLOR`` set (https://no-color.org), typer's help and usage errors carry no
    escape codes at all: rich's own ``NO_COLOR`` handling drops colours but keeps bold and
    dim, so its colour system is turned off, which drops every style. Without a terminal rich
    writes none anyway (unless ``FORCE_COLOR`` or ``TTY_COMPATIBLE`` asks for them)."""
    if os.environ.get("NO_COLOR"):
        from typer import rich_utils  # (rich, loaded only when asked)

        rich_utils.COLOR_SYSTEM = None


def app_for(args: list[str]) -> typer.Typer:
    """The app with only the command that ``args`` name, when they name one after nothing
    but ``--debug``: typer builds every registered command's parameters from its signature
    on each start, and one command runs. Anything else (``--help``, no command, a misspelt
    one) gets the whole app, so help and "No such command" are unchanged."""
    i = 0
    while i < len(args) and args[i] == "--debug":
        i += 1
    only = [c for c in app.registered_commands if i < len(args) and c.name == args[i]]
    if not only:
        return app
    one = copy.copy(app)
    one.registered_commands = only
    return one


def describe_failure(exc: Exception, *, debug: bool = False) -> str:
    """One line for a failure: what the input errors say, else what went wrong (``debug``:
    the traceback is printed already, so no hint to ask for it)."""
    return " ".join(_describe(exc, debug).split())


#: How Python says a thread could not start (no memory, or no more threads allowed), and
#: how a pool's shutdown then fails.
_NO_THREAD = ("can't start new thread", "cannot join thread before it is started")


def _describe(exc: Exception, debug: bool) -> str:
    if isinstance(exc, FileNotFoundError):
        return f"{exc.filename}: no such file" if exc.filename else str(exc)
    if isinstance(exc, IsADirectoryError):
        return f"{exc.filename}: is a directory, not a file"
    if isinstance(exc, SpanEvalError | ValueError | ImportError):
        return str(exc)  # named by the code that raised it (file, line, document, option)
    pools = sys.modules.get("concurrent.futures.process")  # (loaded where a pool ran)
    if pools is not None and isinstance(exc, pools.BrokenProcessPool):
        return (
            "a worker process died (killed, or out of memory); run again with fewer "
            "--n-process or more memory"
        )
    if isinstance(exc, RecursionError):
        return (
            "the input is nested too deeply to be read (a JSON value nested thousands of "
            "levels deep?)"
        )
    if isinstance(exc, MemoryError):
        return (
            "out of memory (is one record or line of the input huge?); run again with more "
            "memory or fewer --n-process"
        )
    if isinstance(exc, RuntimeError) and str(exc) in _NO_THREAD:
        return (
            "out of memory: a thread could not be started; run again with more memory or "
            "fewer --n-process"
        )
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror or exc}"
    hint = "" if debug else " (run again with --debug for the traceback)"
    return f"unexpected error: {type(exc).__name__}: {exc}{hint}"


# Signals. SIGTERM and SIGHUP stop a command as Ctrl-C does (semantics §7), in the CLI process
# only. The default action of either signal ends the process on the spot: no ``finally`` runs,
# so worker processes are left running (holding the caller's output pipes) and temporary files
# stay. While a command runs, stop_on_signals turns them into Stopped, raised in the main
# thread, and every ``finally`` on the way out runs: the worker pools terminate their workers
# (jobs/pools.py), spaCy's ``nlp.pipe`` closes its own, an output being written is removed
# (jobs.outputs.write_atomic). The entry point then says so in one line and exits with 128 +
# the signal's number (143 for SIGTERM, 129 for SIGHUP), as a shell reports a process a signal
# ended; a child process still running then is stopped too (stop_children).
#
# Stopped is a SystemExit, not a KeyboardInterrupt: nothing on the way catches it as an error
# (click turns a KeyboardInterrupt outside a command's own handling into "Aborted!" and exit 1,
# which reads as a breached gate). Used as a library, the package installs no handler.

#: The signals that stop a command as Ctrl-C does (those this platform has).
SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


class Stopped(SystemExit):
    """A command stopped by a signal; ``code`` is the exit code, 128 + the signal number."""

    def __init__(self, signum: int) -> None:
        super().__init__(128 + signum)
        self.signum = signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


@contextmanager
def stop_on_signals() -> Iterator[None]:
    """Raise :class:`Stopped` in the main thread on SIGTERM and SIGHUP within the block (a
    no-op outside the main thread). A process forked inside the block inherits the handler:
    there it exits at once, with the same code and without a word (a worker is stopped by
    the process that started it)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    owner = os.getpid()

    def stop(signum: int, frame: object) -> None:
        if os.getpid() != owner:
            os._exit(128 + signum)
        raise Stopped(signum)

    previous = {signum: signal.signal(signum, stop) for signum in SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def stop_children(timeout: float = 2.0) -> None:
    """Terminate the child processes this process started through :mod:`multiprocessing`
    that still run (killed after ``timeout`` seconds), and wait for them: on the way out
    after an interrupt, whatever a ``finally`` could not stop (a generator left suspended
    holds spaCy's workers, say) does not outlive the process."""
    if "multiprocessing" not in sys.modules:
        return  # (nothing was started through it)
    import multiprocessing  # (loaded only where it was used: a start-up need not)

    from ..jobs.pools import stop_processes

    stop_processes(multiprocessing.active_children(), timeout)


def exit_now(code: int) -> NoReturn:
    """Exit without running exit handlers: after an interrupt, a worker pool's queue may
    still wait for a worker that is gone, and the process must not hang on it at exit.
    Further interrupts are ignored and the children still running are stopped first
    (:func:`stop_children`). (Outputs are written atomically, so there is no half-written
    file to flush.)"""
    for signum in (signal.SIGINT, *SIGNALS):
        signal.signal(signum, signal.SIG_IGN)
    stop_children()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def exit_stopped(stopped: Stopped) -> NoReturn:
    """One line on stderr, then :func:`exit_now` with the signal's exit code."""
    from ..api import msg  # (the API loads the engine, which --help need not)

    msg.fail(f"Stopped by {stopped.name}")
    exit_now(128 + stopped.signum)


def stopped_by_signals(command: Callable[..., Any]) -> Callable[..., Any]:
    """A typer command run within :func:`stop_on_signals`, exiting by :func:`exit_stopped`
    when a signal stops it: for commands that do not run through the console script's
    entry point (spaCy's CLI runs the plugin's, :mod:`.spacy_plugin`)."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        with stop_on_signals():
            try:
                return command(*args, **kwargs)
            except Stopped as stopped:
                exit_stopped(stopped)

    return run
