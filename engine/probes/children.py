"""Child processes the script spawns: started through us, recorded, merged.

multiprocessing's spawn start method (torch.multiprocessing.spawn, DDP
examples, DataLoader workers where spawn is the default) starts each child
with the command line `spawn.get_command_line()` returns: `python -c "from
multiprocessing.spawn import spawn_main; spawn_main(...)"`. While the script
runs, that line starts engine/worker/child_main.py's `child_main` instead,
which calls the very same `spawn_main` after installing our probes in the
child (see there). Nothing else about the child changes: same interpreter,
flags, arguments, environment, pipes.

The children report to a relay (engine/worker/children.py; its key reaches
a spawned child in the environment, never on the command line): their prints
appear in the run's output as they happen; their traces are merged into
this one at the end (engine/trace/merge.py), every run tagged with its rank
and pid. Before merging, children the script left running are handled as
the interpreter would at exit: daemonic ones terminated, others waited for.

Children started with the fork start method (Linux's default for
`multiprocessing.Process` before Python 3.14) are copies of the worker,
recorder included: they report to the same relay through
engine/worker/fork_child.py; so do the children of a plain `os.fork()`
(engine/worker/os_fork.py). With the forkserver start method (the default
from 3.14), the server multiprocessing starts is ours
(engine/worker/forkserver_main.py): each child it forks reports the same way.

In a child itself this probe does nothing: grandchildren run unrecorded.
"""

from __future__ import annotations

import importlib
import multiprocessing
import os
import threading
from multiprocessing import popen_fork, process, spawn

from autogradviz.engine.probes.base import Probe

_SPAWN_CALL = "from multiprocessing.spawn import spawn_main; spawn_main("
_OUR_CALL = "from autogradviz.engine.worker.child_main import child_main; child_main({cfg!r}, "
_FORKSERVER_CALL = "from multiprocessing.forkserver import main; main("
_OUR_SERVER_CALL = "from autogradviz.engine.worker.forkserver_main import server_main; server_main({cfg!r}, "

# Set in a process that records for a parent (a forkserver of ours): its own
# children are not recorded.
_in_child = False


def mark_child_process() -> None:
    """This process records for a parent: the probe leaves its children alone."""
    global _in_child
    _in_child = True


class ChildProcessesProbe(Probe):
    name = "child_processes"

    def __init__(self):
        super().__init__()
        self.relay = None

    def install(self, ctx) -> None:  # noqa: C901 - over the cap before it was set; to be split (issue 22)
        super().install(ctx)
        if multiprocessing.parent_process() is not None or _in_child:
            return  # we are a child: grandchildren are not recorded
        self._pid = os.getpid()
        device = ctx.namespace.get("device", ctx.trace.device)
        lock = threading.Lock()
        # the worker's child-process machinery, lent through the context
        # (engine/worker/probe_context.py; imported when first used)
        cp = ctx.services.child_processes
        os_fork = cp.os_fork

        def relay_now():  # made when the first child starts (most scripts start none)
            with lock:
                if self.relay is None:
                    self.relay = cp.ChildRelay(ctx.output or (lambda stream, text: None))
                return self.relay

        def get_command_line(orig):
            def command_line(**kwds):
                cmd = orig(**kwds)
                try:
                    k = cmd.index("-c") + 1
                except ValueError:
                    return cmd  # (a frozen executable: left alone)
                if not cmd[k].startswith(_SPAWN_CALL):
                    return cmd
                cfg = config()
                cfg.pop("key", None)  # (secret: in the child's environment, see spawn_launch)
                return cmd[:k] + [_OUR_CALL.format(cfg=cfg) + cmd[k][len(_SPAWN_CALL):]] + cmd[k + 1:]
            return command_line

        def spawn_launch(orig):  # the relay's key reaches a spawned child in its environment
            def launch(popen, *args, **kwargs):
                with _key_in_environment(relay_now().key.hex(), cp.RELAY_KEY_ENV):
                    return orig(popen, *args, **kwargs)
            return launch

        def config():  # what the next child needs to report to us
            return relay_now().config(display=ctx.filename, main=_main_path(ctx.namespace), device=device,
                                      steps=ctx.record_steps)

        def fork_launch(orig):
            def _launch(popen, process_obj):
                with os_fork.multiprocessing_fork():  # (not a plain os.fork: recorded by fork_child)
                    return cp.launch_recorded(orig, popen, process_obj, ctx, config)
            return _launch

        def server_command(orig):  # the forkserver: ours (see forkserver_main)
            def spawnv_passfds(path, args, passfds):
                try:
                    k = args.index("-c") + 1
                    if args[k].startswith(_FORKSERVER_CALL):
                        cfg = dict(display=ctx.filename, main=_main_path(ctx.namespace), device=device,
                                   steps=ctx.record_steps, index=None)
                        args = [*args[:k], _OUR_SERVER_CALL.format(cfg=cfg) + args[k][len(_FORKSERVER_CALL):],
                                *args[k + 1:]]
                except ValueError:
                    pass
                return orig(path, args, passfds)
            return spawnv_passfds

        def forkserver_launch(orig):  # each child's relay configuration, in its process object
            def _launch(popen, process_obj):
                attr = cp.CHILD_CONFIG_ATTR
                setattr(process_obj, attr, config())
                try:
                    return orig(popen, process_obj)
                finally:
                    process_obj.__dict__.pop(attr, None)
            return _launch

        self.patches.wrap(spawn, "get_command_line", get_command_line)
        for module_name, method in (("popen_spawn_posix", "_launch"), ("popen_spawn_win32", "__init__")):
            try:
                module = importlib.import_module(f"multiprocessing.{module_name}")
            except ImportError:  # (the other platform's)
                continue
            self.patches.wrap(module.Popen, method, spawn_launch)
        self.patches.wrap(popen_fork.Popen, "_launch", fork_launch)
        os_fork.start(ctx, config)
        try:
            from multiprocessing import popen_forkserver, util
        except ImportError:  # (no forkserver on this platform)
            return
        self.patches.wrap(util, "spawnv_passfds", server_command)
        self.patches.wrap(popen_forkserver.Popen, "_launch", forkserver_launch)

    def remove(self) -> None:
        services = self.ctx.services if self.ctx is not None else None
        if services is not None:
            services.child_processes.os_fork.stop()
        super().remove()

    def contribute(self, trace) -> None:
        # Only in the process that installed it: a forked child ending its
        # copy of the probes (engine/worker/fork_child.py) must not close
        # the parent's relay (its socket file would go, and the later
        # children could not report).
        if self.ctx is None or os.getpid() != getattr(self, "_pid", None):
            return
        services = self.ctx.services
        if services is not None:
            services.child_processes.end_leftover_children()
        relay = self.relay
        if relay is None:
            return
        from autogradviz.engine.trace import codec
        from autogradviz.engine.trace.merge import merge_child

        relay.close()
        for info, data in relay.traces():
            pid = info.get("pid")
            try:  # (one child's unreadable trace loses that child's only)
                merge_child(trace, codec.decode_trace(data), f"p{pid}.", info.get("index"), pid)
            except Exception as exc:
                self.ctx.internal_error(f"children.merge (pid {pid})", exc)


_key_lock = threading.Lock()
_key_users = 0  # spawns under way that need the key in the environment


class _key_in_environment:
    """The relay's key in os.environ (RELAY_KEY_ENV) only while a spawned
    child is being started (it inherits the environment and removes the
    key from its own at once, engine/worker/child_main.py): never on a
    command line, and not seen by the script's code the rest of the time."""

    def __init__(self, key: str, name: str):
        self.key = key
        self.name = name  # the variable's name (engine/worker/children.py's RELAY_KEY_ENV)

    def __enter__(self):
        global _key_users
        with _key_lock:
            _key_users += 1
            os.environ[self.name] = self.key

    def __exit__(self, *exc):
        global _key_users
        with _key_lock:
            _key_users -= 1
            if not _key_users:
                os.environ.pop(self.name, None)


def _main_path(namespace: dict):
    """The main module's path as multiprocessing.spawn sends it to a child."""
    path = namespace.get("__file__")
    if path is None:
        return None
    # (ORIGINAL_DIR: a module global of multiprocessing.process the stubs leave out)
    if not os.path.isabs(path) and process.ORIGINAL_DIR is not None:  # type: ignore[attr-defined]
        path = os.path.join(process.ORIGINAL_DIR, path)  # type: ignore[attr-defined]
    return os.path.normpath(path)
