"""Record every backward call of the user's script.

`Recorder.install()` replaces `torch.Tensor.backward`, `torch.autograd.backward`
and `torch.autograd.grad`, and wraps `Tensor.register_hook`,
`Tensor.register_post_accumulate_grad_hook`, `Tensor.retain_grad` and the
Python function torch stores every grad_fn hook through
(`torch.autograd.function._HookMixin._register_hook`), so the user's own
tensor and node hooks are known; `remove()` puts the originals back.

For each of the first MAX_RECORDED_RUNS calls, before the real call we capture
the graph and put one post-hook on every node. A post-hook receives both
grad_inputs and grad_outputs, and on one thread the engine runs one node at a
time, so the order post-hooks fire in is the engine's real execution order
(one hook per node instead of pre + post keeps the overhead down; our hooks
go straight into each node's hook dict, without a RemovableHandle, and are
deleted from it in a `finally`). The hook only appends (node, grads) to a
list; summaries are made after the call, before control returns to the user
(holding the gradient tensors meanwhile also stops the engine from reusing
their buffers in place, so what we summarise is what flowed).

Events: a wrapped user hook records what it received and returned
(summarised at once: the user may change tensors in place), tied to the step
about to run (hooks on a tensor run before its node; the user's node hooks
run before our post-hook). retain_grad fills are read after the call from the
tensors that called retain_grad().

The user's script behaves exactly as without us: the real functions are
called with the user's own arguments, their results and exceptions pass
through untouched, and our own failures never reach the user (recording is
skipped instead and noted in the trace).
"""

from __future__ import annotations

import functools
import gc
import itertools
from collections import OrderedDict
import sys
import threading
import weakref
from typing import Any, Optional

import torch

from .capture import CaptureState, Names, capture, root_edges
from .module_tracker import namespace_module_paths
from torch.autograd.function import _HookMixin

from .trace_model import MAX_RECORDED_RUNS, BackwardRun, Event, Step, Trace

_current_node = torch._C._current_autograd_node
_TENSOR_ATTRS = ("backward", "register_hook", "register_post_accumulate_grad_hook", "retain_grad")


class _Active:
    """The backward call being recorded right now."""

    __slots__ = ("raw", "ids", "events", "leaf_ids")

    def __init__(self, ids, leaf_ids):
        self.raw: list = []
        self.ids = ids
        self.events: list[Event] = []
        self.leaf_ids = leaf_ids


class Recorder:
    def __init__(self, trace: Trace, state: CaptureState, namespace: dict,
                 user_filename: Optional[str] = None, max_runs: int = MAX_RECORDED_RUNS):
        self.trace = trace
        self.state = state
        self.summ = state.summ
        self.namespace = namespace
        self.filename = user_filename
        self.max_runs = max_runs
        self._orig: dict[str, Any] = {}
        self._tls = threading.local()
        self.active: Optional[_Active] = None
        self.errors: list[str] = []  # our own failures (never the user's)
        self._internal = False  # registering our own node hooks
        self._saved_hooks_seen = torch._C._autograd._top_saved_tensors_default_hooks(False) is not None
        self._own_hooks: list = []
        self._mod_cache_key = None
        self._mod_cache = None

    # -- install / remove ----------------------------------------------------
    def install(self) -> None:
        T = torch.Tensor
        ag = torch.autograd
        self._own = {k: k in T.__dict__ for k in _TENSOR_ATTRS}
        self._orig = {
            "Tensor.backward": getattr(T, "backward"),
            "Tensor.register_hook": getattr(T, "register_hook"),
            "Tensor.register_post_accumulate_grad_hook": getattr(T, "register_post_accumulate_grad_hook", None),
            "Tensor.retain_grad": getattr(T, "retain_grad", None),
            "autograd.backward": ag.backward,
            "autograd.grad": ag.grad,
        }
        o = self._orig
        rec = self

        @functools.wraps(o["Tensor.backward"])
        def backward(self_t, *args, **kwargs):
            return rec._call("backward", o["Tensor.backward"], (self_t,), self_t, args, kwargs)

        @functools.wraps(o["autograd.backward"])
        def ag_backward(tensors, *args, **kwargs):
            return rec._call("backward", o["autograd.backward"], (tensors,), tensors, args, kwargs)

        @functools.wraps(o["autograd.grad"])
        def ag_grad(outputs, *args, **kwargs):
            return rec._call("grad", o["autograd.grad"], (outputs,), outputs, args, kwargs)

        @functools.wraps(o["Tensor.register_hook"])
        def register_hook(self_t, hook):
            return o["Tensor.register_hook"](self_t, rec._wrap_tensor_hook(self_t, hook))

        # Hooks on grad_fn nodes (node.register_hook / register_prehook, for
        # C++ nodes, custom Functions and AccumulateGrad alike) are stored by
        # torch through this Python staticmethod: wrapping it lets us see the
        # user's node hooks fire. Our own registrations bypass it.
        self._orig["_register_hook"] = _HookMixin.__dict__.get("_register_hook")
        if self._orig["_register_hook"] is not None:
            orig_reg = self._orig["_register_hook"].__func__

            def _register_hook(backward_hooks, hook):
                if rec._internal:
                    # Ours: no RemovableHandle (a few us per node); we delete
                    # the dict entry ourselves after the call.
                    if backward_hooks is None:
                        backward_hooks = OrderedDict()
                    key = next(_keys)
                    backward_hooks[key] = hook
                    rec._own_hooks.append((backward_hooks, key))
                    return backward_hooks, None
                return orig_reg(backward_hooks, rec._wrap_node_hook(hook))

            _HookMixin._register_hook = staticmethod(_register_hook)
            self._orig_reg = orig_reg
        # Saved-tensor hooks (non-reentrant checkpoint, save_on_cpu, the
        # user's own) all enter through this context manager; until one has,
        # no saved tensor can carry an unpack hook and capture may skip
        # checking for them.
        sth = torch.autograd.graph.saved_tensors_hooks
        self._orig["saved_tensors_hooks.__enter__"] = sth.__dict__.get("__enter__")
        if self._orig["saved_tensors_hooks.__enter__"] is not None:
            orig_enter = self._orig["saved_tensors_hooks.__enter__"]

            def __enter__(self_h, *a, **k):
                rec._saved_hooks_seen = True
                return orig_enter(self_h, *a, **k)

            try:
                functools.update_wrapper(__enter__, orig_enter)
            except Exception:
                pass
            sth.__enter__ = __enter__
        self.state.saved_hooks_seen = self._hooks_seen
        T.backward = backward
        ag.backward = ag_backward
        ag.grad = ag_grad
        T.register_hook = register_hook
        if o["Tensor.register_post_accumulate_grad_hook"] is not None:
            @functools.wraps(o["Tensor.register_post_accumulate_grad_hook"])
            def register_pag(self_t, hook):
                return o["Tensor.register_post_accumulate_grad_hook"](self_t, rec._wrap_pag_hook(self_t, hook))
            T.register_post_accumulate_grad_hook = register_pag
        if o["Tensor.retain_grad"] is not None:
            @functools.wraps(o["Tensor.retain_grad"])
            def retain_grad(self_t):
                r = o["Tensor.retain_grad"](self_t)
                try:
                    if self_t.grad_fn is not None:
                        rec.state.retained.add(self_t)
                except Exception:
                    pass
                return r
            T.retain_grad = retain_grad

    def remove(self) -> None:
        o = self._orig
        if not o:
            return
        T = torch.Tensor
        for key in _TENSOR_ATTRS:
            orig = o.get("Tensor." + key)
            if orig is None:
                continue
            if self._own.get(key):
                setattr(T, key, orig)
            else:
                try:
                    delattr(T, key)
                except AttributeError:
                    pass
        if o.get("_register_hook") is not None:
            _HookMixin._register_hook = o["_register_hook"]
        if o.get("saved_tensors_hooks.__enter__") is not None:
            torch.autograd.graph.saved_tensors_hooks.__enter__ = o["saved_tensors_hooks.__enter__"]
        torch.autograd.backward = o["autograd.backward"]
        torch.autograd.grad = o["autograd.grad"]
        self._orig = {}

    def _hooks_seen(self) -> bool:
        return self._saved_hooks_seen

    # -- user hooks ----------------------------------------------------------
    def _hook_target(self, t):
        """Key to find the trace node of tensor t at event time."""
        try:
            if t.grad_fn is not None:
                return ("node", t.grad_fn)
            return ("leaf", id(t))
        except Exception:
            return None

    def _node_id(self, act: _Active, target) -> Optional[str]:
        if target is None:
            return None
        if target[0] == "node":
            return act.ids.get(target[1])
        return act.leaf_ids.get(target[1])

    def _wrap_tensor_hook(self, t, hook):
        name = _hook_name(hook)
        target = self._hook_target(t)
        try:
            self.state.tensor_hooks.append((weakref.ref(t), name))
        except Exception:
            pass
        rec = self

        def user_hook(grad):
            act = rec.active
            if act is None:
                return hook(grad)
            try:
                received = rec.summ.summarize(grad)
            except Exception:
                received = None
            res = hook(grad)
            try:
                returned = rec.summ.summarize(res) if isinstance(res, torch.Tensor) else None
                act.events.append(Event(
                    step=len(act.raw), kind="tensor_hook", node=rec._node_id(act, target) or "",
                    name=name, received=received, returned=returned, replaced=res is not None))
            except Exception:
                pass
            return res

        try:
            functools.update_wrapper(user_hook, hook, updated=())
        except Exception:
            pass
        return user_hook

    def _wrap_node_hook(self, hook):
        name = _hook_name(hook)
        rec = self

        def user_node_hook(*args):
            act = rec.active
            if act is None:
                return hook(*args)
            pre = len(args) == 1
            try:
                node = _current_node()
                received = rec.summ.summarize(_first_tensor(args[0]))
            except Exception:
                node, received = None, None
            res = hook(*args)
            try:
                returned = rec.summ.summarize(_first_tensor(res)) if res is not None else None
                act.events.append(Event(
                    step=len(act.raw), kind="node_prehook" if pre else "node_hook",
                    node=act.ids.get(node, "") if node is not None else "",
                    name=name, received=received, returned=returned, replaced=res is not None))
            except Exception:
                pass
            return res

        try:
            functools.update_wrapper(user_node_hook, hook, updated=())
        except Exception:
            pass
        return user_node_hook

    def _wrap_pag_hook(self, t, hook):
        name = _hook_name(hook)
        target = self._hook_target(t)
        try:
            self.state.tensor_hooks.append((weakref.ref(t), name))
        except Exception:
            pass
        rec = self

        def user_pag_hook(tensor):
            act = rec.active
            if act is None:
                return hook(tensor)
            try:
                received = rec.summ.summarize(tensor.grad)
            except Exception:
                received = None
            res = hook(tensor)
            try:
                act.events.append(Event(
                    step=len(act.raw), kind="post_accumulate_grad_hook",
                    node=rec._node_id(act, target) or "", name=name, received=received))
            except Exception:
                pass
            return res

        return user_pag_hook

    # -- the intercepted call ------------------------------------------------
    def _user_frame(self):
        f = sys._getframe(2)
        while f is not None:
            if self.filename is not None and f.f_code.co_filename == self.filename:
                return f
            f = f.f_back
        return None

    def _names(self, frame) -> Names:
        names = Names()
        ns = self.namespace
        try:
            paths, params, keep = namespace_module_paths(ns)
            self.state.param_names.update(params)
            names.add_params(params, keep)
            for m in keep:
                if isinstance(m, torch.nn.Module):
                    if id(m) in paths:
                        self.state.module_classes.setdefault(paths[id(m)], type(m).__name__)
        except Exception:
            pass
        if frame is not None and frame.f_locals is not ns:
            try:
                loc = frame.f_locals
                names.add_namespace(dict(loc))
                mp, params, keep = namespace_module_paths(dict(loc))
                for k, v in params.items():
                    self.state.param_names.setdefault(k, v)
                names.add_params(params, keep)
            except Exception:
                pass
        names.add_namespace(ns)
        return names

    def _call(self, kind, fn, root_args, roots_arg, args, kwargs):
        tls = self._tls
        if getattr(tls, "busy", False) or self.active is not None:
            # Nested (Tensor.backward -> autograd.backward, or a call from a hook).
            return fn(*root_args, *args, **kwargs)
        trace = self.trace
        trace.backward_calls += 1
        if len(trace.backward_runs) >= self.max_runs:
            trace.runs_truncated = True
            tls.busy = True
            try:
                return fn(*root_args, *args, **kwargs)
            finally:
                tls.busy = False

        tls.busy = True
        # Recording creates many small objects; cyclic GC passes over the
        # whole graph would dominate the cost. Paused for this call only.
        gc_was = gc.isenabled()
        gc.disable()
        try:
            prep = self._prepare(kind, roots_arg, args, kwargs)
        except Exception as e:  # our failure: run unrecorded
            self.errors.append(f"capture failed: {type(e).__name__}: {e}")
            prep = None
        if prep is None:
            try:
                return fn(*root_args, *args, **kwargs)
            finally:
                tls.busy = False
                if gc_was:
                    gc.enable()
        run, ids, nodes, act, handles = prep
        self.active = act
        ok = False
        result = None
        try:
            result = fn(*root_args, *args, **kwargs)
            ok = True
            return result
        finally:
            self.active = None
            for h in handles:
                try:
                    h.remove()
                except Exception:
                    pass
            try:
                self._finish(run, ids, nodes, act, result if ok else None, kind, ok)
            except Exception as e:
                self.errors.append(f"recording failed: {type(e).__name__}: {e}")
            tls.busy = False
            if gc_was:
                gc.enable()

    def _prepare(self, kind, roots_arg, args, kwargs):
        roots = root_edges(roots_arg)
        if not roots:
            return None
        frame = self._user_frame()
        names = self._names(frame)
        state = self.state
        g, ids = capture(state, roots, names, origin="grad" if kind == "grad" else "backward")
        state.drop_known_outputs()  # summarised now; do not keep activations alive
        nodes = state.graph_nodes[g.id]
        run = BackwardRun(index=len(self.trace.backward_runs), graph=g.id, kind=kind,
                          line=frame.f_lineno if frame is not None else None)
        leaf_ids: dict[int, str] = {}
        for n in nodes:
            if type(n).__name__ == "AccumulateGrad":
                try:
                    leaf_ids[id(n.variable)] = ids[n]
                except Exception:
                    pass
        act = _Active(ids, leaf_ids)
        raw = act.raw
        handles = []
        app = raw.append
        if self._orig.get("_register_hook") is not None:
            # Fast path: our hooks go straight into the node's hook dict.
            self._own_hooks = handles = []
            self._internal = True
            try:
                for i, n in enumerate(nodes):
                    n.register_hook(functools.partial(_post, app, i))
            except BaseException:
                _remove_own(handles)
                raise
            finally:
                self._internal = False
            return run, ids, nodes, act, [_Remover(handles)]
        for i, n in enumerate(nodes):
            handles.append(n.register_hook(functools.partial(_post, app, i)))
        return run, ids, nodes, act, handles

    def _finish(self, run, ids, nodes, act, result, kind, ok):
        summ = self.summ
        req = summ.request
        steps = run.steps
        step_of: dict[int, int] = {}
        for k, (i, gi, go) in enumerate(act.raw):
            n = nodes[i]
            steps.append(Step(index=k, node=ids[n],
                              grad_outputs=[req(x) if x is not None else None for x in go],
                              grad_inputs=[req(x) if x is not None else None for x in gi]))
            step_of[i] = k
        events = act.events
        # retain_grad fills: read from the tensors that retain grad.
        pos = {n: i for i, n in enumerate(nodes)}
        for t in list(self.state.retained):
            try:
                gf = t.grad_fn
                i = pos.get(gf) if gf is not None else None
                if i is None or i not in step_of or t.grad is None:
                    continue
                events.append(Event(step=step_of[i], kind="retain_grad", node=ids[gf],
                                    name=_label_for(t, self.namespace),
                                    received=req(t.grad, snapshot=True)))
            except Exception:
                pass
        events.sort(key=lambda e: e.step)
        run.events = events
        node_events = [e for e in events if e.kind in ("node_prehook", "node_hook") and e.node]
        if node_events:  # badges: the user's node hooks we saw firing
            g = self.trace.graph(run.graph) if self.trace.graphs else None
            if g is not None:
                by_id = {nd.id: nd for nd in g.nodes}
                for e in node_events:
                    nd = by_id.get(e.node)
                    if nd is not None and e.name and e.name not in nd.hooks:
                        nd.hooks.append(e.name)
        if kind == "backward":
            for n in nodes:
                i = pos[n]
                if i in step_of and type(n).__name__ == "AccumulateGrad":
                    try:
                        gr = n.variable.grad
                    except Exception:
                        gr = None
                    if gr is not None:
                        run.leaf_grads[ids[n]] = req(gr, snapshot=True)
        elif ok and result is not None:
            try:
                run.results = [req(r, snapshot=True) if isinstance(r, torch.Tensor) else None for r in result]
            except Exception:
                pass
        self.trace.backward_runs.append(run)
        summ.flush()


_keys = itertools.count(-1, -1)  # our hook keys: negative, never a RemovableHandle id


def _remove_own(entries) -> None:
    for d, key in entries:
        try:
            del d[key]
        except Exception:
            pass
    entries.clear()


class _Remover:
    __slots__ = ("entries",)

    def __init__(self, entries):
        self.entries = entries

    def remove(self):
        _remove_own(self.entries)


def _first_tensor(x):
    if isinstance(x, torch.Tensor):
        return x
    if isinstance(x, (list, tuple)):
        for v in x:
            if isinstance(v, torch.Tensor):
                return v
    return None


def _post(app, i, grad_inputs, grad_outputs):
    app((i, grad_inputs, grad_outputs))


def _hook_name(hook) -> str:
    n = getattr(hook, "__qualname__", None) or getattr(hook, "__name__", None)
    if n is None:
        f = getattr(hook, "func", None)  # functools.partial
        n = getattr(f, "__qualname__", None) if f is not None else None
    return n or type(hook).__name__


def _label_for(t, ns) -> Optional[str]:
    for k, v in ns.items():
        if v is t:
            return k
    return None
