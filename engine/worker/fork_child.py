"""A child the script starts with multiprocessing's *fork* start method: recorded too.

Linux's default start method for `multiprocessing.Process` (and `Pool`) is
fork: the child is a copy of the worker in the middle of the script, probes
and recorder included, so its backward calls are recorded - into the copy of
the trace, which dies with it. `launch_recorded` (the child-processes probe
wraps `popen_fork.Popen._launch` with it) takes the child's relay
configuration in the parent just before the fork, and wraps the process
object's `_bootstrap`, which the child runs right after the fork:

- before the target: prints go to the relay (engine/worker/children.py), the
  recorder's cross-thread lock is renewed (another thread may have held it
  at the fork), and what the trace held at the fork is remembered;
- after it (and after multiprocessing printed a traceback, if any): the runs
  recorded since the fork, with the graphs they use, are sent as the child's
  partial trace; the parent merges it like a spawned child's.

Children of a plain `os.fork()`: engine/worker/os_fork.py.
"""

from __future__ import annotations

import sys

from autogradviz.engine.trace.model import Trace


def launch_recorded(orig_launch, popen, process_obj, ctx, config):
    """`orig_launch(popen, process_obj)` with the child's `_bootstrap` wrapped."""
    cfg = config()
    original = process_obj._bootstrap

    def bootstrap(*args, **kwargs):  # runs in the child only
        sender = _start_child(ctx, cfg)
        try:
            return original(*args, **kwargs)
        finally:
            if sender is not None:
                sender()

    process_obj._bootstrap = bootstrap
    try:
        return orig_launch(popen, process_obj)
    finally:
        try:
            del process_obj._bootstrap  # (the parent keeps the class's method)
        except AttributeError:
            pass


def _start_child(ctx, cfg):
    """Set the forked child up; returns the function that sends its trace."""
    try:
        from autogradviz.engine.worker.child_main import _Link
        from autogradviz.engine.worker.run_tags import Turns
        from autogradviz.engine.worker.runner import _Stream

        link = _Link(cfg)
        sys.stdout = _Stream("stdout", link.printed)
        sys.stderr = _Stream("stderr", link.printed)
        ctx.output = link.printed
        rec = ctx.recorder
        rec.turns = Turns()
        rec.default_rank = cfg["index"]
        trace = ctx.trace
        base = (len(trace.backward_runs), trace.backward_calls)
    except Exception:
        return None

    def send():
        try:
            for stream in (sys.stdout, sys.stderr):
                stream.flush()
            link.send(b"T" + _child_trace(ctx, base))
        except Exception as exc:
            link.printed("stderr", f"[autogradviz: this child's trace was lost: {exc!r}]\n")

    from autogradviz.engine.worker.child_exit import Once, send_on_sigterm

    send = Once(send)
    send_on_sigterm(send)  # (Pool.terminate() ends its workers with SIGTERM)
    return send


def _child_trace(ctx, base) -> bytes:
    """The runs recorded since the fork, with their graphs, encoded."""
    from autogradviz.engine.trace import codec

    ctx.recorder.finalize()
    ctx.summ.flush()
    trace = ctx.trace
    runs0, calls0 = base
    runs = trace.backward_runs[runs0:]
    used = {r.graph for r in runs}
    child = Trace(script=trace.script, device=trace.device, torch_version=trace.torch_version,
                  steps_recorded=trace.steps_recorded,
                  graphs=[g for g in trace.graphs if g.id in used],
                  backward_runs=runs, backward_calls=trace.backward_calls - calls0,
                  runs_truncated=trace.runs_truncated)
    for i, r in enumerate(runs):
        r.index = i
        r.scaled_by = None  # (GradScaler events stay the parent's)
    return codec.encode_trace(child)
