"""Which nn.Module an error was raised in, for the error's explanation.

torch's message names the line ("mat1 and mat2 shapes cannot be multiplied
(2x3 and 4x8)") but not the layer: with `nn.Sequential(nn.Linear(4, 8), ...)`
the line is `model(x)` and the learner must guess which layer got what. The
traceback knows: the innermost frame running a module's `forward` holds the
module as `self`. It is named as the graph names modules (`model.0`: the
script's variable, then the `named_modules()` path; module_tracker) and
described by its class and `extra_repr()` ("Linear", "in_features=4,
out_features=8, bias=True"). Read after the script raised, from frames the
traceback keeps alive; nothing of the script runs.
"""

from __future__ import annotations

import os
from typing import Optional

import torch

from autogradviz.engine.worker.module_tracker import namespace_module_paths


def module_of_error(exc: BaseException, filename: str) -> Optional[dict]:
    """{"module": path, "module_class": class name, "module_args": extra_repr}
    for the innermost module whose forward was running when `exc` was raised,
    else None."""
    tb = exc.__traceback__
    inner = None
    script_globals = None
    user = os.path.abspath(filename) if filename else None
    while tb is not None:
        frame = tb.tb_frame
        code = frame.f_code
        if user is not None and script_globals is None and os.path.abspath(code.co_filename) == user:
            script_globals = frame.f_globals
        if code.co_name == "forward":
            me = frame.f_locals.get("self")
            if isinstance(me, torch.nn.Module):
                inner = me
        tb = tb.tb_next
    if inner is None:
        return None
    path = None
    if script_globals is not None:
        try:
            paths, _names, _keep = namespace_module_paths(script_globals)
            path = paths.get(id(inner))
        except Exception:
            path = None
    try:
        args = inner.extra_repr()
    except Exception:
        args = ""
    cls = type(inner).__name__
    return {"module": path or cls, "module_class": cls, "module_args": args}
