"""Heavy torch modules a run imported, imported once in the zygote for the next runs.

`torch.utils.checkpoint` (non-reentrant), `torch.compile` and much else import
`torch._dynamo` on first use: about 800 modules (sympy, torch.distributed,
...), 0.9-1.3 s. Under `python script.py` that is paid once per script. In
the worker every run is a fresh fork of the zygote (zygote.py), so each run
of a checkpoint lesson paid it again: a learner switching between
checkpoint lessons waited a second each time for nothing the script did.

So a run child says, with its TRACE_SENT status, whether such a module was
imported during its run (`status_byte`); the zygote then imports the same
module itself once it is idle (`import_now`), before forking the next spare
run child, and every later run finds it imported, as a second import in one
python process would. The script sees the same torch: the module is the one
its own import would have loaded; only `sys.modules` holds it a little
earlier (docs/architecture.md, "The worker").

Never for a worker that serves one run (`autogradviz trace`, whose client
asks it to exit right after the trace: an import then would only delay the
exit): its client sets RUNS_ONCE_ENV (engine/protocol/worker_config.py).
Nothing here starts a thread (the zygote must not: zygote.py); importing
torch._dynamo starts none (checked by tests/engine/test_warm_imports.py).
"""

from __future__ import annotations

import gc
import importlib
import os
import sys

from autogradviz.engine.protocol.worker_config import RUNS_ONCE_ENV

# On the status pipe after TRACE_SENT: the run imported a module of WARM_MODULES.
WARM_WANTED = b"w"
WARM_MODULES = ("torch._dynamo",)
# Read once, from the environment the worker started with (take_settings).
_runs_once = False


def take_settings() -> None:
    """At the worker's start: note RUNS_ONCE_ENV and take it out of the
    environment, which the scripts inherit (a script sees python's)."""
    global _runs_once
    _runs_once = os.environ.pop(RUNS_ONCE_ENV, None) == "1"


def runs_once() -> bool:
    """Whether this worker serves one run (a CLI's): its zygote need not
    collect what its imports left behind before freezing (preload)."""
    return _runs_once


def status_byte() -> bytes:
    """What a run child adds to its TRACE_SENT status (run_child.py)."""
    return WARM_WANTED if any(name in sys.modules for name in WARM_MODULES) else b""


def wanted(status: bytes) -> bool:
    """Whether the zygote should import WARM_MODULES after this status."""
    if WARM_WANTED not in status or _runs_once:
        return False
    return any(name not in sys.modules for name in WARM_MODULES)


def import_now() -> bool:
    """Import WARM_MODULES here (the zygote, idle), then freeze what they
    made, as preload() does; True when something was imported. A module that
    fails to import is left to the scripts (they import it and see the error
    as under python)."""
    done = False
    for name in WARM_MODULES:
        if name in sys.modules:
            continue
        try:
            importlib.import_module(name)
            done = True
        except Exception:
            sys.modules.pop(name, None)
    if done:
        from autogradviz.engine.trace.gc_pause import freeze_for_good

        gc.collect()
        freeze_for_good()
    return done
