"""Record every backward call of the user's script.

`Recorder.install()` replaces `torch.Tensor.backward`, `torch.autograd.backward`
and `torch.autograd.grad`, and wraps `Tensor.register_hook`,
`Tensor.register_post_accumulate_grad_hook`, `Tensor.retain_grad` and the
Python function torch stores every grad_fn hook through
(`torch.autograd.function._HookMixin._register_hook`), so the user's own
tensor and node hooks are known; `remove()` puts the originals back.

For each of the first MAX_RECORDED_RUNS calls, before the real call we capture
the graph (reading what the backward will free: saved tensors, leaves; see
capture.CapturedGraph) and put one post-hook on every node. A post-hook
receives both grad_inputs and grad_outputs, and on one thread the engine
runs one node at a time, so the order post-hooks fire in is the engine's
real execution order (one hook per node instead of pre + post keeps the
overhead down). The hook is one shared function (it asks torch which node
is running) that goes straight into each node's hook dict, without a
RemovableHandle, and is deleted from it in a `finally`. It only appends
(node, grads) to a list; holding the gradient tensors also stops the engine
from reusing their buffers in place, so what we summarise is what flowed.

When summaries are made: what the script can still reach after the call
(leaves' .grad, retain_grad fills, autograd.grad's results, what a user hook
saw) at the end of the call. The steps of a *plain* call - no user hook
fired, nothing raised, every gradient made by torch - and the trace objects
of its graph wait for `finalize()`, which the runner calls after the script
(or `_finish` calls once what waits holds more than DEFER_BYTES): nothing but
the engine and us ever held those gradients, so they cannot change, and the
backward call the learner's script makes stays within about 2x of a plain
one. Other calls are summarised at the end of the call. A user hook that
changes a gradient in place while the backward runs is the one way a held
gradient can change before the call returns: the hook wrappers summarise
what they pass to the user's hook first, and steps recorded before the
change keep that summary.

A node that fails (a user hook raising, a custom Function's backward
raising, a C++ node's error) still gets a step, with `error` set, and the run
gets `error`; the exception itself reaches the script unchanged. Which node
failed is known exactly when a hook of the user's raised (the wrapper sees
it) or a custom Function's backward did (its frame in the traceback holds the
node as `ctx`); for a C++ node it is the node the engine would run next: the
ready node with the highest priority (AccumulateGrad first, then the highest
sequence number), as the engine's ready queue orders them.

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
from collections import OrderedDict
import sys
import threading
import weakref
from typing import Any, Optional

import torch

from autogradviz.engine.worker.capture import CaptureState, Names, capture_pending, estimate_bytes, root_edges
from autogradviz.engine.worker.module_tracker import namespace_module_paths
from torch.autograd.function import _HookMixin

from autogradviz.engine.trace.model import MAX_RECORDED_RUNS, BackwardRun, ErrorInfo, Event, Step, Trace, gc_paused

# Plain runs' gradients and captured activations held for finalize() (see
# Recorder._finish), at most this many bytes; past it, everything waiting is
# summarised at the end of that backward call.
DEFER_BYTES = 256 * 1024 * 1024

_current_node = torch._C._current_autograd_node
# Our own entry in every node's post-hook dict (each node has its own dict).
_OWN_KEY = -(2 ** 62) + 7
_TENSOR_ATTRS = ("backward", "register_hook", "register_post_accumulate_grad_hook", "retain_grad")


class _Active:
    """The backward call being recorded right now."""

    __slots__ = ("raw", "ids", "events", "_leaf_ids", "nodes", "failure", "changed")

    def __init__(self, ids, nodes):
        self.raw: list = []
        self.ids = ids
        self.nodes = nodes
        self.events: list[Event] = []
        self._leaf_ids: Optional[dict] = None
        # the first failure a hook wrapper saw: dict(node, error, grad_outputs, grad_inputs)
        self.failure: Optional[dict] = None
        # gradients a user hook changed in place: (len(raw) then, tensor, summary before)
        self.changed: list = []

    @property
    def leaf_ids(self) -> dict:
        """id(leaf tensor) -> node id (made when a hook event first needs it)."""
        if self._leaf_ids is None:
            d = {}
            for n in self.nodes:
                if type(n).__name__ == "AccumulateGrad":
                    try:
                        d[id(n.variable)] = self.ids[n]
                    except Exception:
                        pass
            self._leaf_ids = d
        return self._leaf_ids


class Recorder:
    def __init__(self, trace: Trace, state: CaptureState, namespace: dict,
                 user_filename: Optional[str] = None, max_runs: int = MAX_RECORDED_RUNS,
                 record_steps: bool = True):
        self.trace = trace
        # False: capture each backward's graph but put no hook of ours on its
        # nodes (no steps, no events) - for callers that only draw the graph.
        self.record_steps = record_steps
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
        self._user_node_hooks = 0  # node hooks the user registered (any node)
        # Runs whose steps wait for finalize(): (run, raw (node, grad_inputs,
        # grad_outputs) list, node ids), and the bytes they hold.
        self._pending_runs: list = []
        self._pending_bytes = 0
        self.defer_bytes = DEFER_BYTES

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
                        backward_hooks = {}
                    backward_hooks[_OWN_KEY] = hook
                    rec._own_hooks.append(backward_hooks)
                    return backward_hooks, None
                rec._user_node_hooks += 1
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
        self.state.node_hooks = self._node_hooks
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

    def _node_hooks(self, nodes) -> dict:
        """{node: names of the user's node hooks on it}, before they fire;
        free unless the script registered node hooks."""
        if not self._user_node_hooks:
            return {}
        return node_hook_names(nodes)

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

    def _before_user(self, tensors) -> list:
        """What a user hook is about to receive: [(tensor, version, summary)]
        (summaries made now, before the hook can change anything in place)."""
        out = []
        summarize = self.summ.summarize
        for x in tensors:
            if isinstance(x, torch.Tensor):
                try:
                    out.append((x, x._version, summarize(x)))
                except Exception:
                    pass
        return out

    def _after_user(self, act: _Active, seen: list) -> None:
        """A gradient the user's hook changed in place: steps recorded so far
        keep the summary from before the change."""
        for x, v, s in seen:
            try:
                if x._version != v and s is not None:
                    act.changed.append((len(act.raw), x, s))
            except Exception:
                pass

    def _user_failed(self, act: _Active, kind: str, node_id: Optional[str], name: str,
                     exc: BaseException, received, grad_outputs: list, grad_inputs: list) -> None:
        """A user's hook raised: the event, and the step that will not complete."""
        try:
            err = _error_text(exc)
            act.events.append(Event(len(act.raw), kind, node_id or "", name, received, None, False, err))
            if act.failure is None and node_id:
                act.failure = {"node": node_id, "error": err,
                               "grad_outputs": grad_outputs, "grad_inputs": grad_inputs}
        except Exception:
            pass

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
                seen = rec._before_user((grad,))
            except Exception:
                seen = []
            try:
                res = hook(grad)
            except BaseException as e:
                rec._user_failed(act, "tensor_hook", rec._node_id(act, target), name, e,
                                 seen[0][2] if seen else None, [x[2] for x in seen], [])
                raise
            try:
                rec._after_user(act, seen)
                returned = rec.summ.summarize(res) if isinstance(res, torch.Tensor) else None
                act.events.append(Event(
                    len(act.raw), "tensor_hook", rec._node_id(act, target) or "",
                    name, seen[0][2] if seen else None, returned, res is not None))
            except Exception:
                pass
            return res

        try:
            functools.update_wrapper(user_hook, hook, updated=())
        except Exception:
            pass
        user_hook._agv_hook_name = name
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
                nid = act.ids.get(node, "") if node is not None else ""
                # prehook: (grad_outputs,); post-hook: (grad_inputs, grad_outputs)
                seen = rec._before_user(_tensors(args[0]))
                if not pre:
                    seen_go = rec._before_user(_tensors(args[1]))
                else:
                    seen_go = []
            except Exception:
                nid, seen, seen_go = "", [], []
            try:
                res = hook(*args)
            except BaseException as e:
                if pre:
                    rec._user_failed(act, "node_prehook", nid, name, e, seen[0][2] if seen else None,
                                     [x[2] for x in seen], [])
                else:
                    rec._user_failed(act, "node_hook", nid, name, e, seen[0][2] if seen else None,
                                     [x[2] for x in seen_go], [x[2] for x in seen])
                raise
            try:
                rec._after_user(act, seen + seen_go)
                returned = rec.summ.summarize(_first_tensor(res)) if res is not None else None
                act.events.append(Event(
                    len(act.raw), "node_prehook" if pre else "node_hook", nid,
                    name, seen[0][2] if seen else None, returned, res is not None))
            except Exception:
                pass
            return res

        try:
            functools.update_wrapper(user_node_hook, hook, updated=())
        except Exception:
            pass
        user_node_hook._agv_hook_name = name
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
            try:
                res = hook(tensor)
            except BaseException as e:
                rec._user_failed(act, "post_accumulate_grad_hook", rec._node_id(act, target), name, e,
                                 received, [], [])
                raise
            try:
                act.events.append(Event(
                    len(act.raw), "post_accumulate_grad_hook",
                    rec._node_id(act, target) or "", name, received))
            except Exception:
                pass
            return res

        user_pag_hook._agv_hook_name = name
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
        run, g, cap, act, own = prep
        self.active = act
        exc = None
        result = None
        try:
            result = fn(*root_args, *args, **kwargs)
            return result
        except BaseException as e:
            exc = e
            raise
        finally:
            self.active = None
            _remove_own(own)
            try:
                self._finish(run, g, cap, act, result, kind, exc, args, kwargs)
            except Exception as e:
                self.errors.append(f"recording failed: {type(e).__name__}: {e}")
            exc = None  # no cycle through the traceback
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
        g, ids, cap = capture_pending(state, roots, names, origin="grad" if kind == "grad" else "backward")
        state.drop_known_outputs()  # summarised now; do not keep activations alive
        # Values of what capture asked for (leaves, parameters saved), now: a
        # hook of the user's could change a parameter in place while the
        # backward runs.
        self.summ.flush()
        nodes = cap.order
        run = BackwardRun(index=len(self.trace.backward_runs), graph=g.id, kind=kind,
                          line=frame.f_lineno if frame is not None else None)
        act = _Active(ids, nodes)
        app = act.raw.append

        def post(grad_inputs, grad_outputs):  # ours, on every node
            app((_current_node(), grad_inputs, grad_outputs))

        post._agv_own = True
        own = []
        if not self.record_steps:
            return run, g, cap, act, own  # the graph only: no hook of ours
        if self._orig.get("_register_hook") is not None:
            # Fast path: our hook goes straight into each node's hook dict.
            self._own_hooks = own
            self._internal = True
            try:
                for n in nodes:
                    n.register_hook(post)
            except BaseException:
                _remove_own(own)
                raise
            finally:
                self._internal = False
        else:  # (torch without _HookMixin._register_hook)
            own = [_Handle(n.register_hook(post)) for n in nodes]
        return run, g, cap, act, own

    def _finish(self, run, g, cap, act, result, kind, exc, args, kwargs):
        """After the real call: what the script could change from now on is
        read at once (leaves' .grad, retain_grad fills, autograd.grad's
        results, whatever a user hook saw); the steps of a plain run (no
        hook of the user's fired, no error, gradients made by torch alone)
        wait for finalize(), holding the gradients that flowed - nothing but
        the engine and us ever had them."""
        raw = act.raw
        ids = act.ids
        nodes = cap.order
        req = self.summ.request
        step_of = {e[0]: k for k, e in enumerate(raw)}
        plain = (exc is None and kind == "backward" and self.record_steps and not act.events
                 and not act.changed and act.failure is None and not _gives_tensors(args, kwargs))
        if plain:
            self._pending_runs.append((run, raw, ids))
            self._pending_bytes += _estimate_grad_bytes(raw)
        else:
            self.state.materialize(cap)
            self._steps(run, act, raw, ids)
        events = act.events
        if exc is not None:
            try:
                self._failed_step(run, g, ids, nodes, act, exc, step_of,
                                  kind == "grad" or "inputs" in kwargs or len(args) >= 4)
            except Exception as e:
                self.errors.append(f"failed step not found: {type(e).__name__}: {e}")
        # retain_grad fills: read from the tensors that retain grad.
        for t in list(self.state.retained):
            try:
                gf = t.grad_fn
                k = step_of.get(gf) if gf is not None else None
                if k is None or t.grad is None:
                    continue
                events.append(Event(k, "retain_grad", ids[gf], _label_for(t, self.namespace),
                                    req(t.grad, snapshot=True)))
            except Exception:
                pass
        events.sort(key=lambda e: e.step)
        run.events = events
        node_events = [e for e in events if e.kind in ("node_prehook", "node_hook") and e.node]
        if node_events:  # badges: the user's node hooks we saw firing
            by_id = {nd.id: nd for nd in g.nodes}
            for e in node_events:
                nd = by_id.get(e.node)
                if nd is not None and e.name and e.name not in nd.hooks:
                    nd.hooks.append(e.name)
        if kind == "backward":
            leaf_grads = run.leaf_grads
            every = not self.record_steps  # no steps: which leaves ran is unknown
            for i in cap.leaf_indices:
                n = nodes[i]
                if every or n in step_of:
                    try:
                        gr = n.variable.grad
                    except Exception:
                        gr = None
                    if gr is not None:
                        leaf_grads[ids[n]] = req(gr, snapshot=True)
        elif exc is None and result is not None:
            try:
                run.results = [req(r, snapshot=True) if isinstance(r, torch.Tensor) else None for r in result]
            except Exception:
                pass
        if not self.record_steps:
            run.steps, run.events = [], []
        self.trace.backward_runs.append(run)
        self.summ.flush()
        if self._pending_bytes + self.state.pending_bytes > self.defer_bytes:
            self.finalize()  # memory first: no more held until the script ends

    def _steps(self, run, act, raw, ids) -> None:
        """run.steps from what our post-hooks saw (summaries queued)."""
        if act is not None and act.changed:
            self._freeze_changed(act)
        steps = run.steps
        k = 0
        for nid, sgo, sgi in self.summ.request_grads(raw, ids):
            steps.append(Step(k, nid, sgo, sgi))
            k += 1
        if act is not None and act.changed:
            self._apply_changed(act, steps)

    def finalize(self) -> None:
        """Build everything that waited (graphs' trace objects, saved
        activations' summaries, plain runs' steps) and fill the summaries.
        The runner calls this when the script has finished; _finish calls it
        when what waits holds more than `defer_bytes`."""
        with gc_paused():
            self.state.materialize()
            pending, self._pending_runs = self._pending_runs, []
            self._pending_bytes = 0
            for run, raw, ids in pending:  # (plain runs: no hook changed a gradient)
                self._steps(run, None, raw, ids)
            self.summ.flush()

    # -- gradients changed in place by a user hook ---------------------------
    def _freeze_changed(self, act: _Active) -> None:
        """Steps recorded before a user hook changed a gradient in place keep
        the summary from before the change (see _after_user)."""
        # per tensor: [(mark, summary before the change)], in order
        cuts: dict = {}
        for mark, x, s in act.changed:
            cuts.setdefault(id(x), (x, []))[1].append((mark, s))
        act.changed = cuts  # type: ignore[assignment]

    def _apply_changed(self, act: _Active, steps: list) -> None:
        cuts = act.changed
        for k, (n, gi, go) in enumerate(act.raw):
            for grads, out in ((go, steps[k].grad_outputs), (gi, steps[k].grad_inputs)):
                for j, x in enumerate(grads):
                    c = cuts.get(id(x)) if x is not None else None
                    if c is None or c[0] is not x:
                        continue
                    for mark, s in c[1]:
                        if k < mark:
                            out[j] = s
                            break

    # -- a node that failed --------------------------------------------------
    def _failed_step(self, run, g, ids, nodes, act, exc, step_of, partial_graph) -> None:
        """The step of the node that raised (see the module docstring)."""
        run.error = ErrorInfo(type=type(exc).__name__, message=str(exc),
                              line=user_line(exc, self.filename))
        if not isinstance(exc, Exception):
            return  # KeyboardInterrupt, SystemExit: not a node's failure
        fail = act.failure
        if fail is None:
            fail = _failure_from_traceback(exc, act, self.summ)
        if fail is None and not partial_graph:
            n = _next_ready(g, nodes, ids, step_of)
            if n is not None:
                fail = {"node": ids[n], "error": _error_text(exc), "grad_outputs": [], "grad_inputs": []}
        if fail is None:
            return
        steps = run.steps
        steps.append(Step(len(steps), fail["node"], list(fail["grad_outputs"]), list(fail["grad_inputs"]),
                          fail["error"]))


def node_hook_names(nodes) -> dict:
    """{node: [names of the user's hooks registered on it with
    node.register_prehook / register_hook]}: torch keeps no readable list of a
    C++ node's Python hooks, so each node is asked to register a hook while
    the function torch registers through is swapped for a probe that only
    reads the node's existing hook dict (prehooks first, then post-hooks)."""
    out: dict = {}
    found: list = []

    def probe(backward_hooks, hook):
        found.append(backward_hooks)
        # A node without a dict gets an empty one (nothing to call).
        return (backward_hooks if backward_hooks is not None else OrderedDict()), None

    old = _HookMixin.__dict__.get("_register_hook")
    if old is None:
        return out
    _HookMixin._register_hook = staticmethod(probe)
    try:
        for n in nodes:
            names: list = []
            for reg in (n.register_prehook, n.register_hook):
                found.clear()
                try:
                    reg(_noop)
                except Exception:
                    continue
                d = found[0] if found else None
                if not d:
                    continue
                for v in list(d.values()):
                    if getattr(v, "_agv_own", False):
                        continue
                    nm = getattr(v, "_agv_hook_name", None) or _hook_name(v)
                    if nm not in names:
                        names.append(nm)
            if names:
                out[n] = names
    finally:
        _HookMixin._register_hook = old
    return out


def _noop(*args):
    return None


def _failure_from_traceback(exc, act: _Active, summ) -> Optional[dict]:
    """A custom autograd.Function whose backward raised: its frame (in the
    traceback) has the node as its first argument (ctx), then the gradients."""
    tb = exc.__traceback__
    found = None
    ids = act.ids
    while tb is not None:
        f = tb.tb_frame
        co = f.f_code
        if co.co_argcount >= 1:
            try:
                loc = f.f_locals
                first = loc.get(co.co_varnames[0])
                nid = ids.get(first) if first is not None else None
            except Exception:
                nid = None
            if nid is not None:
                grads = [loc.get(v) for v in co.co_varnames[1:co.co_argcount]]
                if co.co_flags & 0x04:  # *args
                    va = loc.get(co.co_varnames[co.co_argcount + co.co_kwonlyargcount])
                    if isinstance(va, tuple):
                        grads.extend(va)
                found = (nid, grads)  # innermost wins
        tb = tb.tb_next
    if found is None:
        return None
    nid, grads = found
    go = []
    for x in grads:
        try:
            go.append(summ.summarize(x) if isinstance(x, torch.Tensor) else None)
        except Exception:
            go.append(None)
    return {"node": nid, "error": _error_text(exc), "grad_outputs": go, "grad_inputs": []}


def _next_ready(g, nodes, ids, step_of) -> Optional[Any]:
    """The node the engine would run next: of the nodes whose consumers
    have all run, the one its ready queue puts first (AccumulateGrad, then
    the highest sequence number). Meaningful for a backward over the whole
    graph (no `inputs=`, not autograd.grad) on one device."""
    waiting: dict = {}  # node id -> consumers not yet run
    ran = {ids[n] for n in step_of}
    for e in g.edges:
        if e.dst not in ran:
            waiting[e.src] = waiting.get(e.src, 0) + 1
    best, best_key = None, None
    for n in nodes:
        nid = ids[n]
        if nid in ran or waiting.get(nid):
            continue
        try:
            key = (type(n).__name__ == "AccumulateGrad", n._sequence_nr())
        except Exception:
            continue
        if best_key is None or key > best_key:
            best, best_key = n, key
    return best


def _error_text(exc: BaseException) -> str:
    msg = str(exc)
    return f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__


def user_line(exc: BaseException, filename: Optional[str]) -> Optional[int]:
    """The last line of `filename` in the exception's traceback (where the
    user's code was when it raised), or None."""
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if filename is not None and tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _remove_own(entries) -> None:
    """Delete our entry from each node's hook dict."""
    for d in entries:
        try:
            if isinstance(d, _Handle):
                d.remove()
            else:
                del d[_OWN_KEY]
        except Exception:
            pass
    entries.clear()


class _Handle:
    __slots__ = ("h",)

    def __init__(self, h):
        self.h = h

    def remove(self):
        self.h.remove()


def _gives_tensors(args, kwargs) -> bool:
    """Did the script hand backward gradients of its own (`gradient=`,
    `grad_tensors=`)? The engine passes those on to nodes as they are, so
    the script can still change them: such runs are summarised at once. Also
    true for `create_graph=True` and `inputs=`."""
    for a in (*args, *kwargs.values()):
        if isinstance(a, torch.Tensor):
            return True
        if isinstance(a, (list, tuple)) and any(isinstance(x, torch.Tensor) for x in a):
            return True
    return bool(kwargs.get("create_graph"))


def _estimate_grad_bytes(raw: list, samples: int = 32) -> int:
    """Bytes of the gradients a run's post-hooks saw, from evenly spaced
    steps (a budget check)."""
    if not raw:
        return 0
    picked = raw[::max(1, len(raw) // samples)]
    grads = [x for _, gi, go in picked for x in (*gi, *go) if x is not None]
    return estimate_bytes(grads, len(grads) + 1) * len(raw) // len(picked)


def _tensors(x) -> list:
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [v for v in x if isinstance(v, torch.Tensor)]
    return []


def _first_tensor(x):
    if isinstance(x, torch.Tensor):
        return x
    if isinstance(x, (list, tuple)):
        for v in x:
            if isinstance(v, torch.Tensor):
                return v
    return None


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
