"""Hooks on grad_fn nodes: the user's, and the recorder's own.

Torch stores every hook put on a node (`node.register_hook` /
`register_prehook`, for C++ nodes, custom Functions and AccumulateGrad
alike) through one Python staticmethod,
`torch.autograd.function._HookMixin._register_hook`. Patching it serves two
purposes, so one probe owns it:

- the user's node hooks are wrapped to record an Event per firing (see
  worker/hook_events.py, lent through `ProbeContext.services`), and counted, so that capture looks for hook names
  on nodes only when the script registered any (`node_hook_names`);
- the recorder's own post-hook on every node goes straight into the node's
  hook dict, without a RemovableHandle (a few microseconds per node, on every
  node of every recorded backward call).
"""

from __future__ import annotations

import functools
from collections import OrderedDict

import torch
from torch.autograd.function import _HookMixin

from autogradviz.engine.probes.base import CORE_ORDER, Probe
from autogradviz.engine.trace.model import Event

_current_node = torch._C._current_autograd_node


class NodeHooksProbe(Probe):
    name = "node_hooks"
    order = CORE_ORDER

    def install(self, ctx) -> None:
        super().install(ctx)
        self.user_hooks = 0  # node hooks the user registered (any node)
        ctx.state.node_hooks = self._names_before_firing
        if "_register_hook" not in vars(_HookMixin):
            return  # (a torch without it: our hooks get handles, user hooks are not seen)
        rec = ctx.recorder
        probe = self

        def make(orig):
            def _register_hook(backward_hooks, hook):
                if rec.registering_own:  # ours: no RemovableHandle (see Recorder._prepare)
                    return rec.register_own(backward_hooks, hook)
                probe.user_hooks += 1
                return orig(backward_hooks, probe.wrap_node_hook(hook))
            try:
                functools.update_wrapper(_register_hook, orig)
            except Exception:
                pass
            return _register_hook

        self.patches.wrap(_HookMixin, "_register_hook", make)
        rec.own_hooks_fast = True

    def remove(self) -> None:
        if self.ctx is not None:
            self.ctx.recorder.own_hooks_fast = False
        super().remove()

    def _names_before_firing(self, nodes) -> dict:
        """{node: names of the user's node hooks on it}, before they fire;
        free unless the script registered node hooks."""
        if not self.user_hooks:
            return {}
        services = self.ctx.services if self.ctx is not None else None
        if services is None:  # (installed by the worker, which always lends them)
            return {}
        return node_hook_names(nodes, services.hook_events.hook_name)

    def wrap_node_hook(self, hook):
        he = self.ctx.services.hook_events  # (the worker's hook bookkeeping, lent through the context)
        name = he.hook_name(hook)
        rec = self.ctx.recorder
        summ = self.ctx.summ

        def user_node_hook(*args):
            act = rec.active
            if act is None:
                return hook(*args)
            pre = len(args) == 1
            try:
                node = _current_node()
                nid = act.ids.get(node, "") if node is not None else ""
                # prehook: (grad_outputs,); post-hook: (grad_inputs, grad_outputs)
                seen = he.before_user(summ, he.tensors_in(args[0]))
                seen_go = he.before_user(summ, he.tensors_in(args[1])) if not pre else []
            except Exception:
                nid, seen, seen_go = "", [], []
            try:
                res = hook(*args)
            except BaseException as e:
                if pre:
                    he.user_failed(act, "node_prehook", nid, name, e, seen[0][2] if seen else None,
                                   [x[2] for x in seen], [])
                else:
                    he.user_failed(act, "node_hook", nid, name, e, seen[0][2] if seen else None,
                                   [x[2] for x in seen_go], [x[2] for x in seen])
                raise
            try:
                he.after_user(act, seen + seen_go)
                returned = summ.summarize(he.first_tensor(res)) if res is not None else None
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


def node_hook_names(nodes, hook_name) -> dict:
    """{node: [names of the user's hooks registered on it with
    node.register_prehook / register_hook]}: torch keeps no readable list of a
    C++ node's Python hooks, so each node is asked to register a hook while
    the function torch registers through is swapped for a reader that only
    looks at the node's existing hook dict (prehooks first, then post-hooks)."""
    out: dict = {}
    found: list = []

    def reader(backward_hooks, hook):
        found.append(backward_hooks)
        # A node without a dict gets an empty one (nothing to call).
        return (backward_hooks if backward_hooks is not None else OrderedDict()), None

    old = _HookMixin.__dict__.get("_register_hook")
    if old is None:
        return out
    _HookMixin._register_hook = staticmethod(reader)  # type: ignore[method-assign]  # (patched for this read, restored below)
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
                    nm = getattr(v, "_agv_hook_name", None) or hook_name(v)
                    if nm not in names:
                        names.append(nm)
            if names:
                out[n] = names
    finally:
        _HookMixin._register_hook = old  # type: ignore[method-assign]
    return out


def _noop(*args):
    return None
