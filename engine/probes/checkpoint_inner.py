"""The nested backward of a reentrant checkpoint, recorded inside the outer run.

Reentrant checkpoint (`use_reentrant=True`, torch's default) stores no graph
for its segment: the outer graph has one CheckpointFunctionBackward node. When
the engine runs that node, torch re-runs the function with grad enabled - a
fresh little graph - and calls `torch.autograd.backward` on it *inside* the
outer backward. The recorder passes nested calls through unrecorded (it
records one call at a time), so without this module that inner backward left
no trace at all.

The checkpoint probe wraps `torch.autograd.backward` (around the backward
probe's own wrapper). Right after the probe saw a reentrant re-run return,
the next `torch.autograd.backward` on that thread, made while the engine runs
a node, is torch's nested call: this module captures the graph it starts from
(`Trace.graphs`, origin "recompute"; saved values read as for any graph -
nothing in it is a checkpoint placeholder) and puts one post-hook of ours on
each of its nodes, so the steps it records are the engine's real order. The
steps belong to the Recomputation (`graph`, `steps`), that is to the outer
run's CheckpointFunctionBackward step, never to a run of their own.

Our hooks go in and come out around the one nested call (`finally`), also
when it raises; a node the outer run already hooks (a weight's AccumulateGrad
used both inside and outside the segment) is left to the outer run. The call
itself gets the user's arguments unchanged and its result or exception
passes through.
"""

from __future__ import annotations

from autogradviz.engine.trace.checkpoint import InnerStep


def wrap_backward(probe):
    """The patch for `torch.autograd.backward` (see the module docstring)."""
    import torch

    current = torch._C._current_autograd_node
    local = probe._local

    def make(original):
        def backward(tensors, *args, **kwargs):
            r = getattr(local, "inner", None)
            if r is None or current() is None:
                return original(tensors, *args, **kwargs)
            local.inner = None
            return _record_nested(probe, r, original, tensors, args, kwargs)

        for attr in ("__name__", "__qualname__", "__doc__", "__module__"):
            try:
                setattr(backward, attr, getattr(original, attr))
            except Exception:
                pass
        backward.__wrapped__ = original
        return backward

    return make


def _names(probe, rec, run):
    """Labels for the inner graphs, made once per outer run (every re-run of
    a run sees the same namespace and modules; making them walks every
    module of the script's namespace)."""
    cached = getattr(probe, "_inner_names", None)
    if cached is None or cached[0] != run:
        cached = probe._inner_names = (run, rec.names(None))
    return cached[1]


def _record_nested(probe, r, original, tensors, args, kwargs):
    ctx = probe.ctx
    services = ctx.services  # (the worker's capture, lent through the context)
    capture_pending, root_edges = services.capture_pending, services.root_edges
    _current_node, _remove_own = services.current_node, services.remove_own
    rec = ctx.recorder
    raw: list = []
    own: list = []
    try:
        # (its trace objects are made with the outer run's, at the recorder's finalize)
        g, ids, _cap = capture_pending(ctx.state, root_edges(tensors), _names(probe, rec, r.run), origin="recompute",
                                       reuse=False)
        r.graph = g.id
        outer = rec.active.ids if rec.active is not None else None
        nodes = [n for n in ids.index if outer is None or n not in outer]
        app = raw.append

        def post(grad_inputs, grad_outputs):  # ours, on every inner node
            app((_current_node(), grad_inputs, grad_outputs))

        post._agv_own = True
        own = rec.hook_nodes(nodes, post)
    except Exception as exc:  # our failure: the nested call runs unrecorded
        _remove_own(own)
        ctx.internal_error("checkpoint.inner", exc)
        return original(tensors, *args, **kwargs)
    error = None
    try:
        return original(tensors, *args, **kwargs)
    except BaseException as exc:
        msg = str(exc)
        error = f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__
        raise
    finally:
        _remove_own(own)
        try:
            steps = r.steps
            for nid, sgo, sgi in ctx.summ.request_grads(raw, ids):
                steps.append(InnerStep(len(steps), nid, sgo, sgi))
            if error is not None and r.error is None:
                r.error = error
        except Exception as exc:
            ctx.internal_error("checkpoint.inner_steps", exc)
