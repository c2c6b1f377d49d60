"""Walking the grad_fn graph from its roots: the part of capture that only
follows `next_functions` and finds each root's edge, kept apart from what
capture reads at each node (capture.py)."""

from __future__ import annotations

from typing import Any, Iterable

import torch

_get_edge = torch.autograd.graph.get_gradient_edge
_Tensor = torch.Tensor


def _pop_oldest(d: dict):
    k = next(iter(d))
    return k, d.pop(k)


def walk(roots: Iterable) -> tuple[list, list, dict]:
    """Iterative DFS over next_functions. Returns (nodes, next_functions per
    node, {node: its position})."""
    order: list = []
    nexts: list = []
    index: dict = {}
    # (node, input_nr) pairs, as next_functions holds them: a node's are
    # pushed in one C call (extend), None and visited ones skipped when popped
    stack = [(r, 0) for r in roots if r is not None]
    pop = stack.pop
    push_all = stack.extend
    app = order.append
    napp = nexts.append
    k = 0
    while stack:
        n = pop()[0]
        if n is None or n in index:
            continue
        index[n] = k
        k += 1
        app(n)
        nf = n.next_functions
        napp(nf)
        push_all(nf)
    return order, nexts, index


def root_edges(tensors) -> list[tuple[Any, int, Any]]:
    """(node, output_nr, tensor) for each root tensor / GradientEdge."""
    out: list[tuple[Any, int, Any]] = []
    if isinstance(tensors, (_Tensor, torch.autograd.graph.GradientEdge)):
        tensors = (tensors,)
    try:
        items = list(tensors)
    except TypeError:
        return out
    for t in items:
        try:
            if isinstance(t, torch.autograd.graph.GradientEdge):
                out.append((t.node, t.output_nr, None))
            elif isinstance(t, _Tensor):
                if t.grad_fn is not None:
                    out.append((t.grad_fn, t.output_nr, t))
                elif t.requires_grad:
                    e = _get_edge(t)
                    out.append((e.node, e.output_nr, t))
        except Exception:
            pass
    return out
