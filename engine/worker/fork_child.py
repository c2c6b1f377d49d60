"""A child the script starts with multiprocessing's *fork* start method: recorded too.

Linux's default start method for `multiprocessing.Process` (and `Pool`) is
fork: the child is a copy of the worker in the middle of the script, probes
and recorder included, so its backward calls are recorded - into the copy of
the trace, which dies with it. `launch_recorded` (the child-processes probe
wraps `popen_fork.Popen._launch` with it) takes the child's relay
configuration in the parent just before the fork, and wraps the process
object's `_bootstrap`, which the child runs right after the fork:

- before the target: prints go to the relay (engine/worker/children.py),
  line-buffered as python's (engine/worker/child_stream.py), the
  recorder's cross-thread lock is renewed (another thread may have held it
  at the fork), and what the trace held at the fork is remembered;
- after it (and after multiprocessing printed a traceback, if any): the
  child ends the probes it inherited (each adds its records, as after a
  script), and what was recorded since the fork - runs with the graphs they
  use, checkpoint calls, GradScaler events, memory timelines, notes - is
  sent as the child's partial trace; the parent merges it like a spawned
  child's. What the parent recorded before the fork stays the parent's.

Children of a plain `os.fork()`: engine/worker/os_fork.py.
"""

from __future__ import annotations

import sys

import msgspec

from autogradviz.engine.probes.base import Probe
from autogradviz.engine.trace import features
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
        from autogradviz.engine.worker.child_stream import relay_streams
        from autogradviz.engine.worker.run_tags import Turns

        link = _Link(cfg)
        sys.stdout, sys.stderr = relay_streams(link.printed_bytes)  # (buffered as python's)
        ctx.output = link.printed
        rec = ctx.recorder
        rec.turns = Turns()
        rec.default_rank = cfg["index"]
    except Exception:
        return None
    try:
        base = fork_base(ctx)
    except Exception as exc:  # (a bug of ours: said, as a lost trace is in child_main)
        link.printed("stderr", f"[autogradviz: this child is not recorded: {exc!r}]\n")
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


def fork_base(ctx) -> dict:
    """What the trace and the probes held at the fork (in the child, just
    after it): the child's own records are the ones that come after. Each
    probe says how many records it holds (Probe.fork_marks)."""
    trace = ctx.trace
    marks: dict = {}
    for _name, probe in _probes(ctx):
        marks.update(probe.fork_marks())
    return {"runs": len(trace.backward_runs), "calls": trace.backward_calls, "notes": len(trace.notes),
            "errors": (len(ctx.recorder.errors), len(ctx.errors)), "marks": marks}


def _probes(ctx) -> list[tuple[str, Probe]]:
    probes = getattr(ctx, "probes", None)
    return list(probes.installed) + list(probes.removed) if probes is not None else []


def _child_trace(ctx, base: dict) -> bytes:
    """What the child recorded since the fork, encoded as a partial trace:
    its runs with their graphs, its checkpoint calls, GradScaler calls,
    memory timelines, the layer table and its notes. Ends the probes the
    child inherited first (it is at its end), as the runner does after a
    script, so each adds its records."""
    from autogradviz.engine.trace import codec

    probes = getattr(ctx, "probes", None)
    if probes is not None:
        probes.remove()
    ctx.recorder.finalize()
    ctx.summ.flush()
    if probes is not None:
        probes.contribute()
        ctx.summ.flush()
    ours, probes_ = base.get("errors", (0, 0))
    for stage, text in ctx.recorder.errors[ours:] + ctx.errors[probes_:]:
        ctx.trace.add_note("internal_error", f"internal: {stage}: {text}", stage=stage, error=text)
    return codec.encode_trace(_since_fork(ctx.trace, base))


def _since_fork(trace: Trace, base: dict) -> Trace:
    """The part of `trace` recorded after the fork, with every index into a
    list of the trace counted from the fork (the parent's merge shifts
    them again, see engine/trace/merge.py). The core's runs here; each
    declared feature's records by what its annotations say (_feature_since)."""
    runs0, marks = base["runs"], base.get("marks", {})
    # where each trace list stood at the fork (a feature's list: as its probe held it)
    bases = {"backward_runs": runs0, **{k: v for k, v in marks.items() if "." not in k}}
    scalers0 = bases.get("scaler_events", 0)
    runs = trace.backward_runs[runs0:]
    for r in runs:
        r.index -= runs0  # (every run here came after the fork)
        r.scaled_by = r.scaled_by - scalers0 if r.scaled_by is not None and r.scaled_by >= scalers0 else None
    n0 = base.get("notes", 0)
    out = Trace(script=trace.script, device=trace.device, torch_version=trace.torch_version,
                steps_recorded=trace.steps_recorded, backward_runs=runs,
                backward_calls=trace.backward_calls - base["calls"], runs_truncated=trace.runs_truncated,
                notes=trace.notes[n0:], note_codes=trace.note_codes[n0:], note_records=trace.note_list()[n0:])
    used: set = {r.graph for r in runs}  # (graph ids; and what the features' records refer to)
    for feature in features.separate():
        value = _feature_since(feature, feature.get(trace), marks, bases)
        feature.set(out, value)
        for record in feature.records(out):
            used.update(features.ids(record))
    out.graphs = [g for g in trace.graphs if g.id in used]
    return out


def _feature_since(feature, value, marks: dict, bases: dict):
    """A feature's records made after the fork: a list of records from its
    probe's mark on; one record: each of its lists from its mark on
    ("memory.segments"). Indices are counted from the fork; a record whose
    required index points before it (a memory run of the parent's) is the
    parent's and left out."""
    if value is None:
        return None
    if isinstance(value, list):
        return [r for r in value[marks.get(feature.field or feature.name, 0):] if features.shift_back(r, bases)]
    for name in type(value).__struct_fields__:
        items = getattr(value, name)
        if isinstance(items, list):
            items = items[marks.get(f"{feature.field or feature.name}.{name}", 0):]
            setattr(value, name, [x for x in items if not isinstance(x, msgspec.Struct)
                                  or features.shift_back(x, bases)])
    features.shift_back(value, bases, nested=False)  # (its lists' records: just above)
    return value
