"""Record each backward call of the user's script into the trace.

The probes in engine/probes/backward.py route `Tensor.backward`,
`torch.autograd.backward` and `torch.autograd.grad` here (`Recorder.call`);
the hook probes (engine/probes/node_hooks.py, tensor_hooks.py) record the
user's hooks into the call being recorded (`Recorder.active`). The Recorder
itself patches nothing.

For each of the first MAX_RECORDED_RUNS calls, before the real call we capture
the graph (reading what the backward will free: saved tensors, leaves; see
capture.CapturedGraph) and put one post-hook on every node. A post-hook
receives both grad_inputs and grad_outputs, and on one thread the engine
runs one node at a time, so the order post-hooks fire in is the engine's
real execution order (one hook per node instead of pre + post keeps the
overhead down). The hook is one shared function (it asks torch which node
is running) that goes straight into each node's hook dict, without a
RemovableHandle (when the node-hooks probe is installed: `own_hooks_fast`),
and is deleted from it in a `finally`. It only appends (node, grads) to a
list; holding the gradient tensors also stops the engine from reusing their
buffers in place, so what we summarise is what flowed.

When summaries are made: what the script can still reach after the call
(leaves' .grad, retain_grad fills, autograd.grad's results, what a user hook
saw) at the end of the call. The steps of a *plain* call - no user hook
fired, nothing raised, every gradient made by torch - and the trace objects
of its graph wait for `finalize()`, which the runner calls after the script
(or `_finish` calls once what waits holds more than DEFER_BYTES): nothing but
the engine and us ever held those gradients, so they cannot change, and the
backward call the learner's script makes stays within about 2x of a plain
one. Other calls are summarised at the end of the call (see hook_events.py
for gradients a user hook changes in place).

A node that fails (a user hook raising, a custom Function's backward
raising, a C++ node's error) still gets a step, with `error` set, and the run
gets `error`; the exception itself reaches the script unchanged. Which node
failed is known exactly when a hook of the user's raised (the wrapper sees
it) or a custom Function's backward did (its frame in the traceback holds the
node as `ctx`); for a C++ node it is the node the engine would run next: the
ready node with the highest priority (AccumulateGrad first, then the highest
sequence number), as the engine's ready queue orders them.

retain_grad fills are read after the call from the tensors that called
retain_grad() (collected by engine/probes/retain_grad.py).

The user's script behaves exactly as without us: the real functions are
called with the user's own arguments, their results and exceptions pass
through untouched, and our own failures never reach the user (recording is
skipped instead and noted in the trace).
"""

from __future__ import annotations

import operator
import sys
import threading
from typing import Any, Optional

import torch

from autogradviz.engine.probes.base import BackwardPosition
from autogradviz.engine.trace.gc_pause import gc_paused, pause_gc, resume_gc
from autogradviz.engine.trace.model import MAX_RECORDED_RUNS, BackwardRun, ErrorInfo, Event, Step, Trace
from autogradviz.engine.worker.beneath_modes import beneath_modes
from autogradviz.engine.worker.capture import CaptureState, capture_pending, estimate_bytes, root_edges
from autogradviz.engine.worker.hook_events import error_text as _error_text
from autogradviz.engine.worker.module_tracker import namespace_module_paths
from autogradviz.engine.worker.names import Names
from autogradviz.engine.worker.progress import TICK_MASK
from autogradviz.engine.worker.run_tags import Turns, in_backward, tag_run

# Plain runs' gradients and captured activations held for finalize() (see
# Recorder._finish), at most this many bytes; past it, everything waiting is
# summarised at the end of that backward call.
DEFER_BYTES = 256 * 1024 * 1024

_current_node = torch._C._current_autograd_node
_first = operator.itemgetter(0)
_is_compiling = torch.compiler.is_compiling
# Our own entry in every node's post-hook dict (each node has its own dict).
_OWN_KEY = -(2 ** 62) + 7


class _Active:
    """The backward call being recorded right now."""

    __slots__ = ("raw", "ids", "events", "_leaf_ids", "nodes", "failure", "changed", "run", "fills")

    def __init__(self, ids, nodes, run=None):
        self.run = run  # its BackwardRun
        self.raw: list = []
        self.ids = ids
        self.nodes = nodes
        self.events: list[Event] = []
        self._leaf_ids: Optional[dict] = None
        # the first failure a hook wrapper saw: dict(node, error, grad_outputs, grad_inputs)
        self.failure: Optional[dict] = None
        # gradients a user hook changed in place: (len(raw) then, tensor, summary before)
        self.changed: list = []
        # producer node -> ((slot, AccumulateGrad node), ...): gradients our
        # hook did not hold (see _stealable), read from the leaf's step
        self.fills: dict = {}

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
    """Records backward/grad calls routed to `call` (see the module docstring)."""

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
        self._tls = threading.local()
        self.active: Optional[_Active] = None
        # our own failures (never the user's): (stage, "Type: message")
        self.errors: list[tuple[str, str]] = []
        # Set by the node-hooks probe while its patch of torch's hook
        # registration is installed: our own post-hooks then go straight into
        # each node's hook dict (`register_own`), no RemovableHandle.
        self.own_hooks_fast = False
        self.registering_own = False  # registering our own node hooks right now
        self._own_hooks: list = []
        # Runs whose steps wait for finalize(): (run, raw (node, grad_inputs,
        # grad_outputs) list, node ids), and the bytes they hold.
        self._pending_runs: list = []
        self._pending_bytes = 0
        self.defer_bytes = DEFER_BYTES
        self.turns = Turns()  # one recorded call at a time across threads
        self._count_lock = threading.Lock()  # (trace.backward_calls: counted outside a turn too)
        self.default_rank = None  # a child process's index (engine/worker/child_main.py)

    def position(self) -> BackwardPosition:
        """(calls so far, run being recorded, its steps so far): see
        probes.base.BackwardPosition. (With record_steps=False no step is
        recorded: `step` stays 0 during a call.)"""
        act = self.active
        if act is None or act.run is None:
            return BackwardPosition(self.trace.backward_calls)
        return BackwardPosition(self.trace.backward_calls, act.run.index, len(act.raw))

    def register_own(self, backward_hooks, hook):
        """While `registering_own`, the node-hooks probe hands torch's
        registration of our post-hook here: the hook goes into the node's
        dict under _OWN_KEY (deleted by _remove_own after the call)."""
        if backward_hooks is None:
            backward_hooks = {}
        backward_hooks[_OWN_KEY] = hook
        self._own_hooks.append(backward_hooks)
        return backward_hooks, None

    # -- the intercepted call ------------------------------------------------
    def _user_frame(self):
        f = sys._getframe(2)
        while f is not None:
            if self.filename is not None and f.f_code.co_filename == self.filename:
                return f
            f = f.f_back
        return None

    def names(self, frame) -> Names:
        """Labels for capture: parameters of the namespace's modules, the
        locals of `frame` (the user's frame that called backward), the
        namespace."""
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

    def call(self, kind, fn, root_args, roots_arg, args, kwargs):
        """`fn(*root_args, *args, **kwargs)` (the real backward/grad), recorded.
        Calls from several threads are recorded one at a time (run_tags.Turns)."""
        if getattr(self._tls, "busy", False) or (self.active is not None and in_backward()) or _is_compiling():
            # Nested (Tensor.backward -> autograd.backward, or a call from a
            # hook), or torch.compile's own (AOTAutograd traces the joint
            # graph with autograd.grad on fake tensors): not the script's.
            return fn(*root_args, *args, **kwargs)
        if len(self.trace.backward_runs) >= self.max_runs:
            # Every run there is to record is recorded: this call is only
            # counted, without waiting for a turn (a training loop's steady
            # steps after the first MAX_RECORDED_RUNS pay nearly nothing).
            return self._counted(fn, root_args, args, kwargs)
        with self.turns.take() as mine:
            if not mine:  # another thread's call held the recorder too long
                self._count()
                self.turns.missed += 1
                return fn(*root_args, *args, **kwargs)
            return self._call(kind, fn, root_args, roots_arg, args, kwargs)

    def _count(self) -> None:
        """One more backward call of the script (threads count under one lock)."""
        with self._count_lock:
            self.trace.backward_calls += 1

    def _counted(self, fn, root_args, args, kwargs):
        """The real call, counted but not recorded (runs_truncated)."""
        self._count()
        self.trace.runs_truncated = True
        tls = self._tls
        tls.busy = True
        try:
            return fn(*root_args, *args, **kwargs)
        finally:
            tls.busy = False

    def _call(self, kind, fn, root_args, roots_arg, args, kwargs):
        tls = self._tls
        trace = self.trace
        if len(trace.backward_runs) >= self.max_runs:
            return self._counted(fn, root_args, args, kwargs)
        self._count()

        tls.busy = True
        # Recording creates many small objects; cyclic GC passes over the
        # whole graph would dominate the cost. Paused for this call only.
        pause_gc()
        try:
            prep = self._prepare(kind, roots_arg, args, kwargs)
        except Exception as e:  # our failure: run unrecorded
            self.errors.append(("capture", _error_text(e)))
            prep = None
        except BaseException:  # (KeyboardInterrupt, SystemExit): never leave the GC paused
            tls.busy = False
            resume_gc()
            raise
        if prep is None:
            try:
                return fn(*root_args, *args, **kwargs)
            finally:
                tls.busy = False
                resume_gc()
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
                self.errors.append(("recording", _error_text(e)))
            exc = None  # no cycle through the traceback
            tls.busy = False
            # (what the call made and keeps goes to the oldest generation
            # unscanned: no collection of it inside the script's call)
            resume_gc(promote=True)

    @beneath_modes
    def _prepare(self, kind, roots_arg, args, kwargs):
        roots = root_edges(roots_arg)
        if not roots:
            return None
        frame = self._user_frame()
        names = self.names(frame)
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
        tag_run(run, self.default_rank)
        act = _Active(ids, nodes, run)
        app = act.raw.append
        drop = {}
        if self.record_steps and kind == "backward":  # (autograd.grad never runs AccumulateGrad: nothing stolen)
            act.fills = fills = _stealable(cap)
            drop = {n: frozenset(slot for slot, _ in v) for n, v in fills.items()}

        def post(grad_inputs, grad_outputs):  # ours, on every node
            n = _current_node()
            if drop:
                d = drop.get(n)
                if d is not None:  # (not held: AccumulateGrad steals it, as without us)
                    grad_inputs = tuple(None if i in d else x for i, x in enumerate(grad_inputs))
            app((n, grad_inputs, grad_outputs))

        post._agv_own = True
        if not self.record_steps:
            return run, g, cap, act, []  # the graph only: no hook of ours
        return run, g, cap, act, self.hook_nodes(nodes, post)

    def hook_nodes(self, nodes, post) -> list:
        """Our post-hook `post` on each node; returns what _remove_own takes
        back. Fast path: straight into each node's hook dict (register_own);
        else a handle each (no node-hooks probe, or a torch without
        _HookMixin._register_hook). A nested backward (a reentrant
        checkpoint's re-run, engine/probes/checkpoint_inner.py) hooks its
        nodes while the outer run's hooks are in place."""
        if not self.own_hooks_fast:
            return [_Handle(n.register_hook(post)) for n in nodes]
        outer = self._own_hooks
        own: list = []
        self._own_hooks = own
        self.registering_own = True
        try:
            for n in nodes:
                n.register_hook(post)
        except BaseException:
            _remove_own(own)
            raise
        finally:
            self.registering_own = False
            self._own_hooks = outer
        return own

    @beneath_modes
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
        step_of = dict(zip(map(_first, raw), range(len(raw))))  # {node: its step} (in C: 10,000s of steps)
        plain = (exc is None and kind == "backward" and self.record_steps and not act.events
                 and not act.changed and act.failure is None and not _gives_tensors(args, kwargs))
        if plain:
            _read_stolen(cap, raw, step_of, req)
            self._pending_runs.append((run, raw, ids, act.fills))
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
                self.errors.append(("failed_step", _error_text(e)))
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
            for ev in node_events:
                nd = by_id.get(ev.node)
                if nd is not None and ev.name and ev.name not in nd.hooks:
                    nd.hooks.append(ev.name)
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
                run.result_nodes = _input_nodes(args, kwargs, ids, len(run.results))
            except Exception:
                pass
        if not self.record_steps:
            run.steps, run.events = [], []
        self.trace.backward_runs.append(run)
        self.summ.flush()
        if self._pending_bytes + self.state.pending_bytes > self.defer_bytes:
            self.finalize()  # memory first: no more held until the script ends

    def _steps(self, run, act, raw, ids, pending_fills=None) -> None:
        """run.steps from what our post-hooks saw (summaries queued)."""
        if act is not None and act.changed:
            self._freeze_changed(act)
        steps = run.steps
        phase = self.state.progress.phase("building", len(raw))
        k = 0
        for nid, sgo, sgi in self.summ.request_grads(raw, ids):
            if not k & TICK_MASK:
                phase.tick(k)
            steps.append(Step(k, nid, sgo, sgi))
            k += 1
        fills = act.fills if act is not None else pending_fills
        if fills:
            _fill_stolen(fills, raw, steps)
        if act is not None and act.changed:
            self._apply_changed(act, steps)

    @beneath_modes
    def finalize(self) -> None:
        """Build everything that waited (graphs' trace objects, saved
        activations' summaries, plain runs' steps) and fill the summaries.
        The runner calls this when the script has finished; _finish calls it
        when what waits holds more than `defer_bytes`."""
        with gc_paused():
            self.state.materialize()
            pending, self._pending_runs = self._pending_runs, []
            self._pending_bytes = 0
            for run, raw, ids, fills in pending:  # (plain runs: no hook changed a gradient)
                self._steps(run, None, raw, ids, fills)
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
        cuts: dict = act.changed  # type: ignore[assignment]  # (a dict once _cut_changed ran)
        for k, (_n, gi, go) in enumerate(act.raw):
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



def _stealable(cap) -> dict:
    """Where AccumulateGrad would steal the gradient: a leaf whose .grad is
    None, without hooks of its own, fed by one edge of the graph. The engine
    then hands the producer's gradient to AccumulateGrad, which makes it the
    leaf's .grad without a copy when nobody else holds it - our post-hook on
    the producer must not hold it (a copy would show in the script's dispatch
    modes and x.grad would be another tensor). Returns {producer node:
    ((slot, AccumulateGrad node), ...)}; the step of the producer gets the
    value the leaf's step saw (the same tensor)."""
    nodes, nexts = cap.order, cap.nexts
    if nexts is None or not cap.leaf_indices:
        return {}
    fed: dict = {}
    for i in cap.leaf_indices:
        n = nodes[i]
        try:
            var = n.variable
            if var.grad is None and not var._backward_hooks:
                fed[n] = 0
        except Exception:
            pass
    if not fed:
        return {}
    found = []
    for i, nf in enumerate(nexts):
        slot = 0
        for m, _ in nf:
            if m is not None and m in fed:
                fed[m] += 1
                found.append((i, slot, m))
            slot += 1
    out: dict = {}
    for i, slot, m in found:
        if fed[m] == 1:
            out.setdefault(nodes[i], []).append((slot, m))
    return out


def _read_stolen(cap, raw, step_of, req) -> None:
    """A plain run's steps wait for finalize, but a gradient AccumulateGrad
    stole is the leaf's .grad now: the script may change it in place (the
    next backward adds into it). Such steps get its summary now."""
    nodes = cap.order
    for i in cap.leaf_indices:
        n = nodes[i]
        k = step_of.get(n)
        if k is None:
            continue
        try:
            node, gi, go = raw[k]
            g0 = go[0] if go else None
            grad = n.variable.grad
            # (stolen: the .grad is a detached alias of what the node received)
            if g0 is not None and grad is not None and (g0 is grad or g0.data_ptr() == grad.data_ptr()):
                raw[k] = (node, gi, (req(go[0], snapshot=True), *go[1:]))
        except Exception:
            pass


def _fill_stolen(fills: dict, raw: list, steps: list) -> None:
    """The producer's gradients our hook did not hold (see _stealable): the
    value its AccumulateGrad received."""
    where = {e[0]: k for k, e in enumerate(raw)}
    for producer, slots in fills.items():
        k = where.get(producer)
        if k is None:
            continue
        gi = steps[k].grad_inputs
        for slot, acc in slots:
            j = where.get(acc)
            if j is not None and slot < len(gi) and steps[j].grad_outputs:
                gi[slot] = steps[j].grad_outputs[0]


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


def _input_nodes(args, kwargs, ids, n: int) -> list:
    """torch.autograd.grad's `inputs` (its second argument) as node ids: a
    leaf's AccumulateGrad, another tensor's grad_fn, a GradientEdge's node."""
    inputs = kwargs.get("inputs", args[0] if args else None)
    if isinstance(inputs, (torch.Tensor, torch.autograd.graph.GradientEdge)):
        inputs = (inputs,)
    out = []
    for t in list(inputs or ())[:n]:
        try:
            node = t.node if isinstance(t, torch.autograd.graph.GradientEdge) else (
                t.grad_fn if t.grad_fn is not None else torch.autograd.graph.get_gradient_edge(t).node)
            out.append(ids.get(node) if node is not None else None)
        except Exception:
            out.append(None)
    return out + [None] * (n - len(out))


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



def _label_for(t, ns) -> Optional[str]:
    for k, v in ns.items():
        if v is t:
            return k
    return None

