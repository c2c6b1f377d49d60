"""Labels and known tensors gathered from the user's namespaces for capture.

A node gets a label when the user can name what it stands for: a leaf by
its variable or parameter name (`fc1.weight`), an op node by the variables
that hold its output. Tensors inside lists, tuples and dicts one level deep
are named `name[i]` / `name['k']` (at most MAX_CONTAINER_ITEMS each). The
tensors are held until capture has read them, so the ids used as keys stay
unique meanwhile.
"""

from __future__ import annotations

from typing import Any, Optional

import torch

_Tensor = torch.Tensor

MAX_CONTAINER_ITEMS = 1000


class Names:
    """Labels and known tensors gathered from the user's namespaces."""

    __slots__ = ("leaf", "out", "tensors", "nodes", "keep")

    def __init__(self):
        self.leaf: dict[int, str] = {}  # id(leaf tensor) -> label
        # id(grad_fn) -> {output_nr: [labels]}; verified against `tensors`
        self.out: dict[int, dict[int, list[str]]] = {}
        self.tensors: dict[int, list] = {}  # id(grad_fn) -> tensors with that grad_fn
        self.nodes: dict[int, Any] = {}  # id(grad_fn) -> grad_fn
        self.keep: list = []

    def add(self, name: str, t) -> None:
        gf = t.grad_fn
        if gf is None:
            if t.requires_grad:
                self.leaf.setdefault(id(t), name)
                self.keep.append(t)
            return
        d = self.out.setdefault(id(gf), {})
        lst = d.setdefault(t.output_nr, [])
        if name not in lst:
            lst.append(name)
        self.tensors.setdefault(id(gf), []).append(t)
        self.nodes[id(gf)] = gf

    def add_namespace(self, ns: dict) -> None:
        for name, val in list(ns.items()):
            if name.startswith("__"):
                continue
            if isinstance(val, _Tensor):
                self.add(name, val)
            elif isinstance(val, (list, tuple)):
                for i, v in enumerate(val[:MAX_CONTAINER_ITEMS]):
                    if isinstance(v, _Tensor):
                        self.add(f"{name}[{i}]", v)
            elif isinstance(val, dict) and val is not ns:
                try:
                    items = list(val.items())[:MAX_CONTAINER_ITEMS]
                except Exception:
                    continue
                for k, v in items:
                    if isinstance(v, _Tensor):
                        self.add(f"{name}[{k!r}]", v)

    def add_params(self, param_names: dict[int, str], keep: list) -> None:
        for p in keep:
            if isinstance(p, _Tensor):
                n = param_names.get(id(p))
                if n is not None and p.requires_grad and p.grad_fn is None:
                    self.leaf[id(p)] = n
                    self.keep.append(p)

    def label_of(self, node) -> Optional[str]:
        d = self.out.get(id(node))
        if not d:
            return None
        labels: list[str] = []
        for nr in sorted(d):
            for lab in d[nr]:
                if lab not in labels:
                    labels.append(lab)
        if len(labels) > 3:
            labels = labels[:3] + ["…"]
        return ", ".join(labels)

    def tensor_of(self, node):
        ts = self.tensors.get(id(node))
        if not ts:
            return None
        best = None
        for t in ts:
            if t.grad_fn is node:
                if t.output_nr == 0:
                    return t
                if best is None:
                    best = t
        return best
