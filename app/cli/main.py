"""`autogradviz` command line: trace, export, doctor, gui (the default).

    autogradviz                         open the app
    autogradviz FILE.py                 open the app on FILE.py
    autogradviz trace SCRIPT.py [-o trace.json] [--device cpu|cuda] [--timeout S] [--python PATH]
    autogradviz export ...              (see `autogradviz export --help`)
    autogradviz doctor                  what this installation can do

Qt is imported only by `gui` (and by `export`, which renders offscreen), so
`autogradviz trace` works on a machine without a display or without PySide6.
Exit codes: 0 ok, 1 the script raised / timed out / crashed the worker (the
trace is still written), 2 usage errors and unusable input (an `-o` that is a
FIFO, a device or a socket included), 130 Ctrl+C. Every failure prints one
clear line on stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Optional, Sequence

from autogradviz.app.cli.interpreter_option import add_python_argument, checked_python

PROG = "autogradviz"
SUBCOMMANDS = ("trace", "export", "doctor", "gui")


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line on stderr and exit 2."""

    def error(self, message):  # noqa: D401 - argparse API
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0 or value != value or value == float("inf"):
        raise argparse.ArgumentTypeError(f"timeout must be a positive number of seconds, not {text!r}")
    return value


def _version() -> str:
    try:
        from autogradviz import __version__
    except ImportError:  # pragma: no cover
        __version__ = "?"
    return __version__


def build_parser(with_export: bool = False) -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Autograd Visualizer: see the grad_fn graph PyTorch "
                     "builds and step through the real backward pass.")
    parser.add_argument("--version", action="version", version=f"{PROG} {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="{trace,export,doctor,gui}", parser_class=_Parser)

    p = sub.add_parser("trace", help="run a script and write its trace as JSON",
                       description="Run SCRIPT in a worker process (as the app does) and write its "
                       "trace JSON. Exit 0: the script ran; 1: it raised, timed out or crashed "
                       "(the trace is still written, holding `error`); 2: usage or unreadable file.")
    p.add_argument("script", metavar="SCRIPT.py")
    p.add_argument("-o", "--output", metavar="TRACE.json",
                   help="write the trace here (atomically) instead of stdout")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                   help="value of the `device` variable in the script (default: cpu)")
    p.add_argument("--timeout", type=_positive_seconds, default=60.0, metavar="SECONDS",
                   help="stop the script after this many seconds (default: 60)")
    p.add_argument("--indent", type=int, default=None, metavar="N", help="pretty-print the JSON")
    p.add_argument("--echo", action="store_true",
                   help="also show the script's prints on stderr while it runs")
    add_python_argument(p)
    p.add_argument("--no-checkpoint", action="store_true",
                   help="run torch.utils.checkpoint.checkpoint(fn, *args) as fn(*args) (also in "
                   "checkpoint_sequential): the same script without checkpointing, to compare memory")

    if with_export:
        from autogradviz.app.cli.export_command import add_export_arguments  # (may need Qt)

        p = sub.add_parser("export", help="export a script's graph or steps as images")
        add_export_arguments(p)
    else:
        sub.add_parser("export", help="export a script's graph or steps as images "
                       "(see `autogradviz export --help`)", add_help=False)

    sub.add_parser("doctor", help="show torch, CUDA, Qt and Graphviz as this installation sees them")

    p = sub.add_parser("gui", help="open the app (the default)")
    p.add_argument("file", nargs="?", metavar="FILE.py", help="script to open")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # `autogradviz` and `autogradviz FILE.py` open the app.
    if not argv or (argv[0] not in SUBCOMMANDS and not argv[0].startswith("-")):
        if argv and _open_target_refused(argv[0]):
            return 2
        return _gui(argv[0] if argv else None, argv[1:])
    if argv[0] == "export":
        return _interruptible("export", lambda: _export(argv))
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if args.command == "gui":
        if args.file is not None and _open_target_refused(args.file):
            return 2
        return _gui(args.file, extra)
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if args.command == "trace":
        return _interruptible("trace", lambda: _trace(args))
    if args.command == "doctor":
        return _doctor()
    parser.print_help()
    return 2


def _open_target_refused(word: str) -> bool:
    """Say in one line why `autogradviz WORD` cannot open WORD (a mistyped
    subcommand, a missing file); True when it was refused."""
    from autogradviz.app.cli.first_argument import open_target_problem

    problem = open_target_problem(word, SUBCOMMANDS)
    if problem is not None:
        print(f"{PROG}: error: {problem}", file=sys.stderr, flush=True)
    return problem is not None


EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command ended by Ctrl+C


def _interruptible(command: str, work) -> int:
    """`work()`, but Ctrl+C is one line and exit 130, not a traceback: the
    worker and what the script started are ended on the way out
    (engine/protocol/client.py) and no half-written file is left
    (app/export/files.py)."""
    try:
        return work()
    except KeyboardInterrupt:
        _err(command, "interrupted (Ctrl+C); the script was stopped and nothing was written")
        return EXIT_INTERRUPTED


def _err(command: str, message: str) -> None:
    text = " ".join(str(message).split("\n")).strip()
    print(f"{PROG} {command}: {text}", file=sys.stderr, flush=True)


# -- trace ------------------------------------------------------------------------------------
def _trace(args) -> int:
    out = args.output if args.output not in (None, "-") else None
    if out is not None:
        from autogradviz.app.export.files import ExportError, check_writable

        try:  # (before the script runs; a symbolic link is written through)
            check_writable(out)
        except ExportError as exc:  # a FIFO, a device, a missing folder...: one line, exit 2
            _err("trace", str(exc))
            return 2

    on_output = None
    if args.echo:
        def on_output(stream, text):
            sys.stderr.write(text)
            sys.stderr.flush()

    python, problem = checked_python(args.python)
    if problem is not None:
        _err("trace", problem)
        return 2
    process = _early_worker(args.script, python)
    try:  # (the protocol and the trace model: imported while the worker imports torch)
        from autogradviz.engine.protocol.client import trace_file
    except BaseException:
        if process is not None:
            process.kill()
        raise
    written: list = []  # the write's exit code (2: it failed, said on stderr)
    write_to = _worker_file(out, args.indent)

    def write(outcome) -> None:  # (while the worker exits: trace_file's on_outcome)
        if write_to is not None and out is not None and outcome.written_to == write_to:
            written.append(_commit_trace(write_to, out))
        else:
            written.append(_write_trace(outcome, out, args.indent))

    try:
        outcome = trace_file(args.script, device=args.device, timeout=args.timeout, on_output=on_output,
                             keep_json=True, python=python, on_input=no_console_input("trace"),
                             no_checkpoint=bool(args.no_checkpoint), outline=True, process=process,
                             on_outcome=write, write_to=write_to)
    finally:
        if write_to is not None:  # (what a worker began and did not finish; gone once committed)
            _remove_quietly(write_to)
    if written and written[0]:
        return written[0]
    if outcome.exit_code != 0:
        _err("trace", outcome.message or "failed")
    return outcome.exit_code


def _write_trace(outcome, out: Optional[str], indent: Optional[int]) -> int:
    """The trace file (`out`; None: stdout) from the outcome's bytes; 0, or 2
    when it could not be written (said in one line)."""
    if outcome.trace is None:  # (its outline: the file is the worker's bytes)
        return 0
    data = _trace_bytes(outcome, indent)
    try:
        if out is None:
            _write_stdout(data, b"\n")
            return 0
        from autogradviz.app.export.files import ExportError, atomic_path

        try:
            with atomic_path(out) as tmp:
                with open(tmp, "wb") as f:
                    f.write(data)
                    f.write(b"\n")
        except ExportError as exc:
            _err("trace", str(exc))
            return 2
    except OSError as exc:
        _err("trace", f"cannot write {out or 'stdout'}: {exc.strerror or exc}")
        return 2
    return 0


def _worker_file(out: Optional[str], indent: Optional[int]) -> Optional[str]:
    """Where the worker writes the trace file itself (a new temporary name
    beside `out`'s target, renamed over it after the run: engine/worker/
    trace_file_out.py), or None: the CLI writes it (to stdout, or reformatted
    with --indent)."""
    if out is None or indent is not None:
        return None
    from autogradviz.engine.trace import atomic_file

    try:
        return atomic_file.temp_path(out)
    except OSError:  # (checked before the run; the write says why)
        return None


def _commit_trace(tmp: str, out: str) -> int:
    """The worker's file `tmp` in place of `out`: 0, or 2 said in one line."""
    from autogradviz.app.export.files import ExportError, commit_written

    try:
        commit_written(tmp, out)
    except ExportError as exc:
        _err("trace", str(exc))
        return 2
    return 0


def _remove_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _early_worker(script: str, python: Optional[str]):
    """The worker, started before this process imports the protocol and the
    trace model (0.09 s), so that both imports overlap (a 50,000-node chain's
    `autogradviz trace` is measured against `python script.py`: benchmarks/
    bench_trace_cli.py). None for a script that is not a readable file: that
    error is reported without starting a worker (engine/protocol/client.py)."""
    if not (os.path.isfile(script) and os.access(script, os.R_OK)):
        return None
    from autogradviz.engine.protocol.worker_config import start_worker

    return start_worker(python)


def no_console_input(command: str):
    """on_input for a traced script: end of input (EOFError, as under
    `python script.py < /dev/null`), explained in one line the first time."""
    said: list = []

    def on_input(prompt: str):
        if not said:
            said.append(True)
            asked = f" (prompt {prompt.strip()!r})" if prompt.strip() else ""
            _err(command, f"the script called input(){asked}, but a traced script has no console input: "
                 "input() gets end of input (EOFError); put the values in the script, or run it in the app")
        return None
    return on_input


def _trace_bytes(outcome, indent: Optional[int]) -> bytes:
    """The trace file's bytes, but its final newline: those the worker encoded
    when it sent them (the trace is not encoded a second time here, nor copied
    to add the newline: 34 MB for 50,000 nodes), else (a trace made up here
    for a timeout or crash) the trace encoded now."""
    from autogradviz.engine.trace import codec

    data = outcome.trace_json
    if data is None:
        return codec.encode_trace(outcome.trace, indent=indent)
    if indent is not None:
        import msgspec

        try:
            data = msgspec.json.format(data, indent=indent)
        except msgspec.DecodeError:  # \u escapes of lone surrogates: only json reads them
            import json

            data = json.dumps(json.loads(data), indent=indent).encode("ascii")
    return data


def _write_stdout(*parts: bytes) -> None:
    try:
        for data in parts:
            sys.stdout.buffer.write(data)
        sys.stdout.flush()
    except BrokenPipeError:  # `autogradviz trace x.py | head`
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass


# -- export -----------------------------------------------------------------------------------
def _export(argv: list[str]) -> int:
    try:
        import autogradviz.app.cli.export_command  # noqa: F401
    except ImportError as exc:
        _err("export", f"export is not available in this installation ({exc})")
        return 2
    from autogradviz.app.cli.export_command import export_command

    parser = build_parser(with_export=True)
    args = parser.parse_args(argv)
    return int(export_command(args) or 0)


# -- doctor -----------------------------------------------------------------------------------
def _doctor() -> int:
    import importlib.metadata as md
    import platform

    problems = 0

    def line(name, value):
        _write_stdout(f"{name:<12} {value}\n".encode())  # (`autogradviz doctor | head` is fine)

    line("autogradviz", _version())
    line("python", f"{platform.python_version()} ({sys.executable})")
    try:
        line("PySide6", md.version("PySide6-Essentials"))
    except md.PackageNotFoundError:
        try:
            line("PySide6", md.version("PySide6"))
        except md.PackageNotFoundError:
            line("PySide6", "NOT INSTALLED (the app cannot open; trace still works)")
            problems += 1
    from autogradviz.app.cli.doctor_qt import report_qt_platform

    problems += report_qt_platform(line)
    try:
        from autogradviz.engine.layout import graphviz_backend

        b = graphviz_backend()
        if getattr(b, "name", "") == "none":
            line("graphviz", f"none ({getattr(b, 'detail', '') or 'not found'}); "
                             "the built-in layered layout is used")
        else:
            line("graphviz", str(b))
    except Exception as exc:  # missing backend or layout module
        line("graphviz", f"not available ({type(exc).__name__}: {exc}); the built-in layout is used")
    from autogradviz.engine.protocol.client import WorkerClient, WorkerError

    try:
        with WorkerClient() as client:
            info = client.start()
        line("torch", info.get("torch_version"))
        if info.get("cuda_available"):
            devices = info.get("cuda_devices") or []
            line("cuda", f"available: {', '.join(devices) or 'yes'}")
        else:
            line("cuda", "not available (scripts run on the cpu)")
        line("worker", "ok")
    except WorkerError as exc:
        line("worker", f"FAILED: {exc}")
        problems += 1
    return 1 if problems else 0


# -- gui --------------------------------------------------------------------------------------
def _gui(open_path: Optional[str], extra: list[str]) -> int:
    from autogradviz.app.cli.display_check import gui_start_problem

    problem = gui_start_problem()  # before Qt: without a display it aborts with a core dump
    if problem is not None:
        print(f"{PROG}: error: {problem}", file=sys.stderr, flush=True)
        return 2
    try:
        from autogradviz.app.gui_main import run_gui
    except ImportError as exc:
        _err("gui", f"cannot open the app: {exc} (is PySide6 installed? "
             "`autogradviz trace` works without it)")
        return 2
    return int(run_gui([sys.argv[0] if sys.argv else PROG, *extra], open_path) or 0)


if __name__ == "__main__":
    raise SystemExit(main())
