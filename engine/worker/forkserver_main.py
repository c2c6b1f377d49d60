"""A forkserver the script starts, and the children it forks: recorded too.

With multiprocessing's *forkserver* start method (chosen by the script, and
the default on Linux from Python 3.14) a child is neither a copy of the
worker (fork) nor a fresh interpreter of its own (spawn): a server process,
started once, imports the script as `__mp_main__` (multiprocessing's
preload) and forks one child per `Process.start()`.

The child-processes probe (engine/probes/children.py) starts that server
through `server_main` instead of multiprocessing's `forkserver.main` (same
interpreter, flags, arguments, file descriptors), and hands each child its
relay configuration inside the pickled process object (attribute
`_autogradviz_child`). Here, in the server:

- the script is imported as multiprocessing would, but with the probes
  installed just before its code runs (engine/worker/child_main.py's
  `_import_main`, as for a spawned child);
- `BaseProcess._bootstrap` is wrapped: each forked child reports to the
  parent's relay and, at its end, sends the runs it recorded since the fork
  (engine/worker/fork_child.py, as for a forked child of the worker).

What the script's module-level code does in the server itself (under python
it runs there once, at preload) is not sent: no child ran it. Our failures
never change what the server or a child does: they run unrecorded.
"""

from __future__ import annotations

import os
import sys

# Process objects carry their child's relay configuration under this name.
CHILD_CONFIG_ATTR = "_autogradviz_child"


def server_main(cfg: dict, *args, **kwargs) -> None:
    """multiprocessing.forkserver.main(*args, **kwargs), recorded (see above)."""
    from multiprocessing import forkserver

    try:
        _prepare_server(cfg)
    except Exception as exc:  # ours: the server and its children run unrecorded
        print(f"[autogradviz: the forkserver's children are not recorded: {exc!r}]", file=sys.stderr)
    forkserver.main(*args, **kwargs)


def _prepare_server(cfg: dict) -> None:
    from multiprocessing import process, spawn

    from autogradviz.engine.probes import children as children_probe
    from autogradviz.engine.worker import child_main, fork_child

    children_probe.mark_child_process()  # grandchildren are not recorded
    recording: list = []

    def start_recording(namespace: dict) -> None:
        if not recording:
            recording.append(child_main._Recording(cfg, namespace, _nowhere))

    original_fixup = spawn._fixup_main_from_path  # type: ignore[attr-defined]  # (privates of multiprocessing, not in the stubs)

    def fixup(main_path):
        if getattr(sys.modules.get("__main__"), "__file__", None) == main_path:
            return  # (a child of this server: the server imported it already)
        if os.path.normpath(main_path) == cfg["main"]:
            child_main._import_main(main_path, cfg, start_recording)
        else:
            original_fixup(main_path)

    spawn._fixup_main_from_path = fixup  # type: ignore[attr-defined]  # (privates of multiprocessing, not in the stubs)
    original_bootstrap = process.BaseProcess._bootstrap  # type: ignore[attr-defined]  # (privates of multiprocessing, not in the stubs)

    def _bootstrap(self, *args, **kwargs):  # in each forked child only
        child_cfg = self.__dict__.pop(CHILD_CONFIG_ATTR, None)
        sender = None
        if child_cfg is not None:
            try:
                if not recording:  # (the script was not preloaded: the child imported it)
                    main = sys.modules.get("__mp_main__") or sys.modules["__main__"]
                    start_recording(main.__dict__)
                sender = fork_child._start_child(recording[0].ctx, child_cfg)
            except Exception:
                sender = None
        try:
            return original_bootstrap(self, *args, **kwargs)
        finally:
            if sender is not None:
                sender()

    process.BaseProcess._bootstrap = _bootstrap  # type: ignore[attr-defined]  # (privates of multiprocessing, not in the stubs)


def _nowhere(stream: str, text: str) -> None:
    """The server's own notes: under python nobody sees the server either."""
