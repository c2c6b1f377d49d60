"""Events for the user's own hooks, shared by the hook probes.

The probes in engine/probes/tensor_hooks.py and node_hooks.py wrap each hook
the script registers; while a backward call is being recorded the wrapper
records an `Event` (what the hook received and returned) tied to the step
about to run - hooks on a tensor run before its node, the user's node hooks
before our post-hook - and then calls the user's hook unchanged. What a hook
receives is summarised before it runs: the user may change it in place.

A gradient a hook changes in place while the backward runs is the one way a
gradient the recorder holds can change before the call returns: steps
recorded before the change keep the summary from before it (`after_user`
notes the change; Recorder applies it when it builds the steps).

A hook that raises still gets its event (with `error`), and the first such
failure names the step that did not complete; the exception itself goes on
to the script unchanged.
"""

from __future__ import annotations

from typing import Optional

import torch

from autogradviz.engine.trace.model import Event
from autogradviz.engine.worker.beneath_modes import beneath_modes


def hook_name(hook) -> str:
    """The name a hook is shown by: its qualified name (also for a
    functools.partial), else its type's name."""
    n = getattr(hook, "__qualname__", None) or getattr(hook, "__name__", None)
    if n is None:
        f = getattr(hook, "func", None)  # functools.partial
        n = getattr(f, "__qualname__", None) if f is not None else None
    return n or type(hook).__name__


def error_text(exc: BaseException) -> str:
    msg = str(exc)
    return f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__


def hook_target(t):
    """Key to find the trace node of tensor t at event time."""
    try:
        if t.grad_fn is not None:
            return ("node", t.grad_fn)
        return ("leaf", id(t))
    except Exception:
        return None


def node_id(act, target) -> Optional[str]:
    """The trace node id of a hook_target in the call being recorded."""
    if target is None:
        return None
    if target[0] == "node":
        return act.ids.get(target[1])
    return act.leaf_ids.get(target[1])


@beneath_modes
def before_user(summ, tensors) -> list:
    """What a user hook is about to receive: [(tensor, version, summary)]
    (summaries made now, before the hook can change anything in place)."""
    out = []
    summarize = summ.summarize
    for x in tensors:
        if isinstance(x, torch.Tensor):
            try:
                out.append((x, x._version, summarize(x)))
            except Exception:
                pass
    return out


@beneath_modes
def after_user(act, seen: list) -> None:
    """A gradient the user's hook changed in place: steps recorded so far
    keep the summary from before the change."""
    for x, v, s in seen:
        try:
            if x._version != v and s is not None:
                act.changed.append((len(act.raw), x, s))
        except Exception:
            pass


def user_failed(act, kind: str, nid: Optional[str], name: str, exc: BaseException,
                received, grad_outputs: list, grad_inputs: list) -> None:
    """A user's hook raised: the event, and the step that will not complete."""
    try:
        err = error_text(exc)
        act.events.append(Event(len(act.raw), kind, nid or "", name, received, None, False, err))
        if act.failure is None and nid:
            act.failure = {"node": nid, "error": err,
                           "grad_outputs": grad_outputs, "grad_inputs": grad_inputs}
    except Exception:
        pass


def tensors_in(x) -> list:
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [v for v in x if isinstance(v, torch.Tensor)]
    return []


def first_tensor(x):
    if isinstance(x, torch.Tensor):
        return x
    if isinstance(x, (list, tuple)):
        for v in x:
            if isinstance(v, torch.Tensor):
                return v
    return None
