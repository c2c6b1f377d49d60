"""Records the module table: each called module's output shape and
parameter counts, for `Trace.modules` (a torchsummary-style layer table).

A global module forward hook (installed after the ModuleTracker's, so the
tracker already knows each module's path) notes the first call of every
module - output shape and dtype, `parameters()` counts - and counts later
calls. One dict lookup per later call; counting parameters happens once per
module. Never changes what the forward returns.
"""

from __future__ import annotations

from typing import Any, Callable

import torch
from torch.nn.modules import module as _nn_module

from autogradviz.engine.trace.modules import ModuleRecord
from autogradviz.engine.worker.module_tracker import own_global_hook, release_global_hook

_is_compiling = torch.compiler.is_compiling


def _first_tensor(output):
    if isinstance(output, torch.Tensor):
        return output, False
    if isinstance(output, dict):
        output = list(output.values())
    if isinstance(output, (list, tuple)):
        for item in output:
            if isinstance(item, torch.Tensor):
                return item, True
        return None, True
    return None, False


class ModuleTable:
    def __init__(self, path_of: Callable[[torch.nn.Module], str]):
        self._path_of = path_of
        self._records: dict[str, ModuleRecord] = {}
        self._handle: Any = None  # torch's RemovableHandle once installed
        self._tracker: Any = None  # the ModuleTracker that calls _count, if any

    def install(self, tracker=None) -> None:
        """A global forward hook of its own, or, given the ModuleTracker
        (`tracker`), called from the tracker's (`after_call`): one hook fewer
        in every module call - a compiled module's call included, where the
        learner's loop pays for each global hook."""
        if tracker is not None:
            self._tracker = tracker
            tracker.after_call = self._count
            return
        self._handle = _nn_module.register_module_forward_hook(self._post)
        own_global_hook(self._handle)  # (torch.compile does not warn about it)

    def remove(self) -> None:
        tracker = getattr(self, "_tracker", None)
        if tracker is not None and tracker.after_call == self._count:
            tracker.after_call = None
        self._tracker = None
        if self._handle is not None:
            release_global_hook(self._handle)
            self._handle.remove()
            self._handle = None

    def _post(self, module, _args, output):
        if _is_compiling():  # Dynamo traces this hook: nothing of ours in its graph
            return None
        try:
            self._count(module, self._path_of(module), output)
        except Exception:  # a recorder's problem never reaches the script
            pass
        return None

    def _count(self, module, path: str, output) -> None:
        """One call of `module` (at `path`) returned `output`."""
        try:
            record = self._records.get(path)
            if record is None:
                record = self._records[path] = self._first(module, path, output)
            record.calls += 1
        except Exception:  # a recorder's problem never reaches the script
            pass

    @staticmethod
    def _first(module, path: str, output) -> ModuleRecord:
        tensor, multiple = _first_tensor(output)
        params = list(module.parameters())
        return ModuleRecord(
            path=path, class_name=type(module).__name__,
            output_shape=list(tensor.shape) if tensor is not None else None,
            output_dtype=str(tensor.dtype).replace("torch.", "") if tensor is not None else None,
            output_multiple=multiple,
            params=sum(p.numel() for p in params),
            trainable=sum(p.numel() for p in params if p.requires_grad),
            own_params=sum(p.numel() for p in module.parameters(recurse=False)))

    def records(self) -> list[ModuleRecord]:
        """In first-call order (a parent's forward starts first but its hook
        fires last, so order by path depth where one path contains another
        would be wrong; the app nests by path)."""
        return list(self._records.values())
