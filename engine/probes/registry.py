"""The probes the runner installs for every run, in one list.

Adding a probe: write a module in this folder with a `Probe` subclass (see
base.py) and add ONE `register(...)` line at the bottom of this file. Its
factory is named by "module:attribute", imported only when a run starts, so
reading this list imports no probe (nor torch).

The runner creates fresh probes for every run (`create`), ordered by their
`order` (then by registration), installs them in that order and removes them
in reverse (see runner.py).
"""

from __future__ import annotations

import importlib
from typing import Callable, Union

Factory = Union[str, Callable[[], object]]

# (name, factory): "module:attribute" or a callable returning a Probe
_REGISTRY: list[tuple[str, Factory]] = []


def register(name: str, factory: Factory) -> None:
    """Add (or replace) the probe called `name`."""
    unregister(name)
    _REGISTRY.append((name, factory))


def unregister(name: str) -> None:
    _REGISTRY[:] = [(n, f) for n, f in _REGISTRY if n != name]


def registered() -> list[str]:
    return [n for n, _ in _REGISTRY]


def _resolve(factory: Factory):
    if isinstance(factory, str):
        mod, _, attr = factory.partition(":")
        return getattr(importlib.import_module(mod), attr)
    return factory


def create() -> list[tuple[str, object]]:
    """[(name, probe or the exception that stopped it being made)], in
    install order. A probe that cannot be made does not stop the others
    (the runner notes it)."""
    made: list[tuple[int, int, str, object]] = []
    for k, (name, factory) in enumerate(list(_REGISTRY)):
        try:
            probe = _resolve(factory)()
            order = getattr(probe, "order", 0)
        except Exception as exc:
            probe, order = exc, 0
        made.append((order, k, name, probe))
    made.sort(key=lambda e: (e[0], e[1]))
    return [(name, probe) for _, _, name, probe in made]


# -- the probes -------------------------------------------------------------------
register("modules", "autogradviz.engine.probes.modules:ModulesProbe")
register("saved_tensors_hooks", "autogradviz.engine.probes.saved_hooks:SavedTensorsHooksProbe")
register("retain_grad", "autogradviz.engine.probes.retain_grad:RetainGradProbe")
register("tensor_hooks", "autogradviz.engine.probes.tensor_hooks:TensorHooksProbe")
register("node_hooks", "autogradviz.engine.probes.node_hooks:NodeHooksProbe")
register("backward", "autogradviz.engine.probes.backward:BackwardProbe")
register("grad_scaler", "autogradviz.engine.probes.grad_scaler:GradScalerProbe")
register("checkpoint", "autogradviz.engine.probes.checkpoint:CheckpointProbe")
register("child_processes", "autogradviz.engine.probes.children:ChildProcessesProbe")
register("ddp_allreduce", "autogradviz.engine.probes.ddp:DdpAllReduceProbe")
register("memory", "autogradviz.engine.probes.memory:MemoryProbe")
register("source_lines", "autogradviz.engine.probes.source_lines:SourceLinesProbe")
