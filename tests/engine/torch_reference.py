"""Plain-torch helpers the engine tests use to observe a graph on their own
(no engine code): which nodes it has, and the order the engine runs them."""

from __future__ import annotations


def op_name(node) -> str:
    """node.name(), with AccumulateGrad shortened as the trace does."""
    n = node.name()
    return "AccumulateGrad" if n == "torch::autograd::AccumulateGrad" else n


def graph_nodes(roots) -> list:
    """Every autograd node reachable from the grad_fns of `roots` (tensors),
    walked iteratively."""
    seen, stack, nodes = set(), [r.grad_fn for r in roots], []
    while stack:
        n = stack.pop()
        if n is None or n in seen:
            continue
        seen.add(n)
        nodes.append(n)
        stack.extend(m for m, _ in n.next_functions)
    return nodes


class PrehookOrder:
    """A prehook of our own on every node: `order` lists op names in the
    order the engine ran the nodes. A context manager: the hooks are removed
    on exit."""

    def __init__(self, nodes):
        self.order: list[str] = []
        self._handles = [n.register_prehook(lambda go, _n=n: self.order.append(op_name(_n))) for n in nodes]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for h in self._handles:
            h.remove()
        return False


def scaled_square_grad(values: list, scale: float) -> list:
    """torch's gradient of sum((x * scale) ** 2) at x = values (what the
    children of the multi-process tests compute)."""
    import torch

    x = torch.tensor(values, requires_grad=True)
    (x * scale).pow(2).sum().backward()
    return x.grad.tolist()
