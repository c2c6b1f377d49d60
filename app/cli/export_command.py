"""`autogradviz export SCRIPT.py|trace.json -o OUT.{png,svg,pdf,dot,gif,html}`, `--steps all`.

Headless export with the app's look: the script runs through the same worker
as `autogradviz trace` (`engine.client.trace_file`, so exit codes and messages
are the same: 0 ran, 1 the script raised / timed out / crashed - the picture
is still written when there is a graph - 2 unusable input), the graph is laid
out by the same engine and drawn by the same `GraphScene`, offscreen (Qt's
`offscreen` platform when there is no display), so `--step N` is the app's
picture at step N; the SVG is written from that scene's items. DOT needs no
Qt at all. `--steps all` writes a folder of slides or a PDF handout
(app/export/steps.py); `.html` one offline web page of the run (webpage.py).
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from typing import TYPE_CHECKING, Optional, Sequence

if TYPE_CHECKING:
    from autogradviz.engine.trace.model import Graph

from autogradviz.app.cli.interpreter_option import add_python_argument, checked_python

PROG = "autogradviz export"


def _start_clock() -> tuple[float, float]:
    """(wall, perf) of time zero for the phase timings. A benchmark may put
    its own launch time (time.time()) in AUTOGRADVIZ_TIMINGS, so the phases
    include the interpreter's start and our imports."""
    wall, perf = time.time(), time.perf_counter()
    try:
        launched = float(os.environ.get("AUTOGRADVIZ_TIMINGS", ""))
    except ValueError:
        return wall, perf
    return (launched, perf - (wall - launched)) if 0 <= wall - launched < 600 else (wall, perf)


_T0 = _start_clock()[1]


def _timing(what: str) -> None:
    """Phase times on stderr when AUTOGRADVIZ_TIMINGS is set (benchmarks)."""
    if os.environ.get("AUTOGRADVIZ_TIMINGS"):
        print(f"{PROG}: timing: {what} at {time.perf_counter() - _T0:.2f} s", file=sys.stderr, flush=True)


def _err(message: str) -> None:
    text = " ".join(str(message).split("\n")).strip()
    print(f"{PROG}: {text}", file=sys.stderr, flush=True)


def _nonneg_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {text!r}")
    return v


def _positive(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not v > 0 or v == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number, not {text!r}")
    return v


def add_export_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = ("Run SCRIPT (or load a saved trace.json), lay out its autograd graph and "
                          "write it as PNG, SVG, PDF, DOT or an animated GIF of a backward run "
                          "(one frame per step). Works without a display.")
    parser.add_argument("source", metavar="SCRIPT.py|trace.json",
                        help="a Python script to run, or a trace written by `autogradviz trace`")
    parser.add_argument("-o", "--output", required=True, metavar="OUT",
                        help="output file; the format comes from its extension "
                             "(.png .svg .pdf .dot .gif .html: an interactive web page of the run) "
                             "unless --format is given")
    parser.add_argument("--format", choices=["png", "svg", "pdf", "dot", "gif", "html"], default=None)
    parser.add_argument("--steps", choices=["all"], default=None,
                        help="every step of the run: OUT a folder (one PNG, or SVG with --format svg, "
                             "per step) or OUT.pdf (a handout: one page per step with its caption, "
                             "rule and code)")
    parser.add_argument("--lang", choices=["en", "zh_CN"], default="en",
                        help="language of captions, rules and titles (default en)")
    parser.add_argument("--caption", action="store_true",
                        help="write the step and its rule under the picture (PNG, SVG)")
    parser.add_argument("--run", type=_nonneg_int, default=None, metavar="K",
                        help="which backward run (0 = the first); default 0 when the script called backward")
    parser.add_argument("--step", type=_nonneg_int, default=None, metavar="N",
                        help="show the state after N steps of the run (0 = before the first); "
                             "default: the plain graph")
    parser.add_argument("--theme", choices=["light", "dark"], default="light")
    parser.add_argument("--legend", action="store_true",
                        help="draw the legend (what each colour, border and badge means) above the "
                             "picture, as the app's Legend shows it (PNG, SVG, PDF, GIF, slides, web page)")
    parser.add_argument("--group", choices=["auto", "none", "modules"], default="auto",
                        help="module groups: auto collapses them on big graphs (default)")
    parser.add_argument("--rolled", choices=["inner", "box"], default="inner",
                        help="a module called N times, rolled: its first call's graph with a loop-back "
                             "edge xN (inner, default) or one xN box")
    parser.add_argument("--layout", choices=["auto", "graphviz", "layered"], default="auto",
                        dest="layout_engine", help="layout engine (default: auto)")
    parser.add_argument("--scale", type=_positive, default=2.0,
                        help="PNG and GIF pixels per point (default 2; GIF frames at most 1600 px a side)")
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--timeout", type=_positive, default=60.0, metavar="S",
                        help="stop the script after S seconds (default 60)")
    add_python_argument(parser)


def _needs_steps(args) -> bool:
    """A GIF or a --step picture shows backward steps; anything else is the plain graph."""
    fmt = (args.format or os.path.splitext(args.output)[1].lstrip(".")).lower()
    return fmt in ("gif", "html") or args.step is not None or getattr(args, "steps", None) is not None


def _load_trace(args) -> tuple[Optional[object], int, Optional[str]]:
    src = args.source
    if src.lower().endswith(".json"):
        from autogradviz.engine.trace.model import Trace

        if not os.path.exists(src):
            return None, 2, f"{src}: no such file"
        if os.path.isdir(src):
            return None, 2, f"{src}: is a directory, not a trace"
        try:
            with open(src, encoding="utf-8") as f:
                trace = Trace.from_json(f.read())
        except (OSError, UnicodeDecodeError) as exc:
            return None, 2, f"{src}: cannot read the file: {getattr(exc, 'strerror', None) or exc}"
        except (ValueError, TypeError, KeyError) as exc:
            return None, 2, f"{src}: not an autogradviz trace ({exc})"
        return trace, 0, None
    from autogradviz.engine.protocol.client import WorkerClient, WorkerError, read_script, trace_file
    from autogradviz.engine.protocol.worker_config import WorkerConfig

    _, problem = read_script(src)
    if problem is not None:  # before starting a worker (trace_file says the same)
        return None, 2, problem
    python, problem = checked_python(args.python)
    if problem is not None:
        return None, 2, problem
    client = WorkerClient(config=WorkerConfig(python=python, runs_once=True))
    warm = None
    try:
        # The worker (python + torch import, ~1 s) starts first; our own
        # warm-up imports overlap with it.
        warm = threading.Thread(target=_warm_up, args=(args,), daemon=True)
        warm.start()
        try:
            client.start()
        except WorkerError as exc:
            return None, 2, str(exc)
        _timing("worker ready (torch imported)")
        # The plain graph needs no backward steps: the worker then skips the
        # per-step recording (on GPT-2-small most of the trace and ~1 s).
        from autogradviz.app.cli.main import no_console_input

        # ...nor values (shapes are enough; no activations held for summaries)
        outcome = trace_file(src, device=args.device, timeout=args.timeout, client=client,
                             steps=_needs_steps(args), values=_needs_steps(args),
                             on_input=no_console_input("export"))
        dur = getattr(outcome.trace, "duration_s", None) if outcome.trace is not None else None
        _timing("trace received" + (f" (the run in the worker: {dur:.2f} s)" if dur else ""))
    finally:
        # The trace is all we need from the worker. Its exit (freeing the
        # script's tensors takes the OS ~0.1-0.2 s) overlaps with our layout
        # and rendering; `export_command` waits for it before returning.
        closer = threading.Thread(target=client.close, kwargs={"timeout": 2.0}, daemon=True,
                                  name="autogradviz-export-close-worker")
        closer.start()
        _CLOSING.append(closer)
        if warm is not None:
            # never go on while it is inside an extension module's import
            warm.join(30)
    return outcome.trace, outcome.exit_code, outcome.message


_CLOSING: list = []  # threads closing the worker, joined before export_command returns


def _join_closing() -> None:
    if _CLOSING:
        while _CLOSING:
            _CLOSING.pop().join(10)
        _timing("worker gone")
        if os.environ.get("AUTOGRADVIZ_TIMINGS"):  # (the worker is our only child process)
            import resource
            peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
            print(f"{PROG}: worker peak memory: {peak:.0f} MB", file=sys.stderr, flush=True)


def _warm_up(args) -> None:
    """While the worker imports torch and runs the script, load what the
    export needs afterwards (the layout engine, the WebAssembly Graphviz, Qt),
    so that it is ready when the trace arrives. Imports only; no Qt objects."""
    try:
        from autogradviz.engine.layout import graphviz_backend
        from autogradviz.engine.layout.graphviz_backend import _WasmRunner, _system_dot

        if args.layout_engine != "layered" and not _system_dot():
            _WasmRunner.get()
        graphviz_backend()
        fmt = (args.format or os.path.splitext(args.output)[1].lstrip(".")).lower()
        if fmt != "dot":  # (DOT is written without Qt)
            import PySide6.QtGui  # noqa: F401
            import PySide6.QtWidgets  # noqa: F401
            import autogradviz.app.graph.scene  # noqa: F401
    except Exception:  # warming up is optional
        pass


def _ensure_qapp():
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) \
            and not os.environ.get("QT_QPA_PLATFORM") and sys.platform.startswith("linux"):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        app = QApplication([sys.argv[0] if sys.argv else "autogradviz"])
    return app


def export_command(args) -> int:
    t0 = time.perf_counter()
    _timing("arguments parsed")
    out = args.output
    folder = getattr(args, "steps", None) == "all" and (out.endswith(("/", os.sep)) or os.path.isdir(out))
    fmt = (args.format or ("png" if folder else os.path.splitext(out)[1].lstrip("."))).lower()
    if fmt not in ("png", "svg", "pdf", "dot", "gif", "html"):
        _err(f"cannot tell the format of {out!r}: use a .png, .svg, .pdf, .dot, .gif or .html name, "
             "or --format")
        return 2
    if getattr(args, "steps", None) == "all" and not (folder and fmt in ("png", "svg")) and fmt != "pdf":
        _err("--steps all writes a folder of PNG/SVG (OUT ending in /) or a PDF handout (OUT.pdf)")
        return 2
    args.folder = folder
    from autogradviz.app.export.files import ExportError, check_writable

    try:  # (before the script runs: a FIFO, a device, a missing folder... one line, exit 2)
        # (a folder of slides is made if missing: its parent must take it)
        check_writable(os.path.join(out, "step-001." + fmt) if folder and os.path.isdir(out)
                       else (out.rstrip("/" + os.sep) + ".tmp" if folder else out))
    except ExportError as exc:
        _err(str(exc))
        return 2

    try:
        return _export_command(args, out, fmt, t0)
    finally:
        _join_closing()  # leave no worker behind


def _export_command(args, out: str, fmt: str, t0: float) -> int:
    try:
        trace, code, message = _load_trace(args)
    except KeyboardInterrupt:
        _err("interrupted")
        return 130
    _timing("trace ready")
    # the trace is read-only from here on: keep the GC from rescanning its
    # millions of objects while the scene is built (a short-lived process:
    # never thawed; engine/trace/gc_pause.py)
    from autogradviz.engine.trace.gc_pause import freeze

    freeze("trace")
    if trace is None:
        _err(message or "failed")
        return code or 2
    rc = _export_trace(trace, args, fmt)
    _timing("written")
    if code != 0:
        _err(message or "the script failed")
        return code
    if rc == 0:
        took = time.perf_counter() - t0
        print(f"{PROG}: wrote {out} ({took:.1f} s)", file=sys.stderr, flush=True)
    return rc


def _pick(trace, args) -> tuple[Optional[Graph], Optional[int], Optional[str]]:
    """(graph, run index or None, error)"""
    runs = trace.backward_runs
    run = args.run
    if run is not None and not runs:
        return None, None, "--run: the script made no backward call"
    if run is not None and run >= len(runs):
        return None, None, f"--run {run}: the trace has {len(runs)} backward run(s) (0..{len(runs) - 1})"
    if run is None and runs and (args.step is not None or args.format == "gif"
                                 or args.output.lower().endswith((".gif", ".html"))):
        run = 0
    if run is None and runs:
        run = 0
    if args.step is not None and run is None:
        return None, None, "--step: the script made no backward call"
    if run is not None:
        try:
            return trace.graph(runs[run].graph), run, None
        except KeyError:
            return None, None, f"run {run} refers to a missing graph"
    if not trace.graphs:
        return None, None, "nothing to export: the script built no autograd graph"
    return trace.graphs[-1], None, None


def _export_trace(trace, args, fmt: str) -> int:
    from autogradviz.engine.layout import LayoutOptions, layout_graph

    graph, run, problem = _pick(trace, args)
    if problem is not None:
        _err(problem)
        return 2 if problem.startswith("--") else 1
    assert graph is not None  # (no problem: _pick found the graph)
    if fmt == "gif" and run is None:
        _err("a GIF animates a backward run, and the script made no backward call")
        return 1
    if (fmt == "html" or getattr(args, "steps", None)) and run is None:
        _err("a web page or --steps all shows a backward run, and the script made no backward call")
        return 1
    try:
        layout = layout_graph(graph, LayoutOptions(engine=args.layout_engine, group=args.group,
                                                   rolled_view=getattr(args, "rolled", "box")))
    except KeyboardInterrupt:
        _err("interrupted")
        return 130
    _timing(f"layout done ({layout.engine}, {len(layout.boxes)} boxes)")
    for note in layout.notes:
        print(f"{PROG}: note: {note}", file=sys.stderr, flush=True)
    try:
        if fmt == "dot":
            _write_dot_without_qt(graph, layout, args.output, args.theme)
            return 0
        # every picture, SVG included, is drawn from the app's GraphScene (one
        # drawing: scene_svg.py writes the SVG from the scene's items)
        _ensure_qapp()
        if getattr(args, "lang", "en") != "en":
            from autogradviz.app import i18n
            i18n.set_language(args.lang, save=False)
        from autogradviz.app.export import render as ex
        from autogradviz.app.graph.scene import GraphScene
        from autogradviz.app.graph.style import style_for
        from autogradviz.engine.trace import replay

        scene = GraphScene(None, style_for(args.theme))
        scene.trace = trace  # (checkpoint regions)
        scene.set_graph(graph, layout)
        _timing("scene built")
        if args.step is not None and run is not None:
            scene.apply_step(replay.state_at(trace, run, args.step))
        legend = None
        if getattr(args, "legend", False):
            from autogradviz.app.export.legend_export import make_legend
            legend = make_legend(scene.style)
        caption: Sequence[str] = ()
        if getattr(args, "caption", False) and args.step is not None and run is not None:
            from autogradviz.app.export.captions import caption_lines, session_for
            caption = caption_lines(session_for(trace, run), args.step)
        if getattr(args, "steps", None) == "all":
            from autogradviz.app.export import steps as slides
            assert run is not None  # (--steps all without a run returned above)
            if args.folder:
                info = slides.write_step_folder(scene, trace, run, args.output, fmt, scale=args.scale,
                                                legend=legend)
            else:
                info = slides.write_handout(scene, trace, run, args.output, legend=legend)
        else:
            info = ex.export_scene(scene, args.output, fmt, scale=args.scale, trace=trace,
                                   run_index=run or 0, theme=args.theme, caption=caption, legend=legend)
        for note in info.notes:
            print(f"{PROG}: note: {note}", file=sys.stderr, flush=True)
        return 0
    except KeyboardInterrupt:
        _err("interrupted; nothing was written")
        return 130
    except Exception as exc:  # ExportError and anything Qt/Pillow raise: one line, exit 1
        from_export = type(exc).__name__ in ("ExportError", "ExportCancelled")
        _err(str(exc) if from_export else f"export failed: {type(exc).__name__}: {exc}")
        return 2 if from_export and "cannot write" in str(exc) else 1


def _write_dot_without_qt(graph, layout, path: str, theme: str) -> None:
    """DOT with the same atomic write as the other formats, without QtGui."""
    from autogradviz.app.export.files import atomic_path
    from autogradviz.engine.layout.dot_export import dot_source

    text = dot_source(graph, layout, theme=theme)
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
