"""Trace records of the module table (`Trace.modules`, docs/trace-format.md).

One `ModuleRecord` per nn.Module the script called (by module path), in the
order their first calls returned (so a module's children come before it): what a torchsummary-style layer table shows -
the output shape and the parameter count - read from torch while the script
ran (engine/worker/module_table.py). Plain data: no torch, no Qt.
"""

from __future__ import annotations

from typing import Optional

from autogradviz.engine.trace.features import declare
from autogradviz.engine.trace.part import _Part


class ModuleRecord(_Part):
    # The module path the graph's nodes carry in `Node.module` ("model",
    # "model.0", "net.fc1"): the enclosing modules are its dotted prefixes.
    path: str
    class_name: str = ""
    calls: int = 0  # forward calls of this module during the run
    # Shape of the first call's output (the first tensor when it returned a
    # tuple, list or dict); None when it returned no tensor.
    output_shape: Optional[list[int]] = None
    output_dtype: Optional[str] = None
    # True when the output was a tuple/list/dict (output_shape is its first tensor's)
    output_multiple: bool = False
    # sum(p.numel() for p in module.parameters()): this module and everything below it,
    # each shared parameter once (as torch counts), at the first call
    params: int = 0
    trainable: int = 0  # the same for parameters with requires_grad
    own_params: int = 0  # parameters registered on this module itself (recurse=False)


# Trace.modules: a child process (mp.spawn) usually runs the parent's model
# code, so a module path already listed is not listed twice.
MODULES_FEATURE = declare("modules", ModuleRecord, "modules", unique_by="path")
