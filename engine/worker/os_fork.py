"""Children of a plain `os.fork()` in the script: recorded, and ending as under python.

Under `python script.py` a child made by `os.fork()` runs the rest of the
script and then ends the interpreter: its atexit functions run, its exit
status is the script's (0, `sys.exit(n)`'s n, 1 after a traceback), or it
ends earlier with `os._exit(n)`. In the worker, the same child would instead
return from the script into the worker itself and answer the client in the
parent's place (the app showed the child's output as the run's, and lost the
parent's). So, while a script runs, `os.register_at_fork` hooks (installed
once per process, active only during a run, and never for multiprocessing's
own forks, which engine/worker/fork_child.py handles):

- in the parent, just before the fork: the child's relay configuration
  (engine/worker/children.py), as for any recorded child;
- in the child: its prints go to the relay (the parent's output, as they
  reach the same terminal under python), line-buffered as python's
  (engine/worker/child_stream.py); the recorder tags its runs with
  the child's index; `os._exit` first sends the runs recorded since the
  fork; `end_of_script` (called by the runner when the script's code
  returns or raises) ends the child as the interpreter would, trace sent.

The relay is reached lazily, on the child's first print or at its end: a
child that only runs a `preexec_fn` and execs connects to nothing.
Grandchildren are not recorded.
"""

from __future__ import annotations

import os
import sys
from typing import Callable, Optional

_registered = False
_current: Optional[tuple] = None  # (probe context, config function) of the run under way
_mp_forking = 0  # inside multiprocessing's own fork (fork_child.py records those)
_pending: Optional[dict] = None  # the next child's configuration (parent, around the fork)
_child: Optional["ForkedChild"] = None  # this process is an os.fork() child of a run


def start(ctx, config: Callable[[], dict]) -> None:
    """Record the children of `os.fork()` for this run (see the module docstring)."""
    global _registered, _current
    if not hasattr(os, "register_at_fork"):
        return
    if not _registered:
        os.register_at_fork(before=_before, after_in_parent=_after_in_parent, after_in_child=_after_in_child)
        _registered = True
    _current = (ctx, config)


def stop() -> None:
    global _current
    _current = None


class multiprocessing_fork:
    """Around multiprocessing's own fork: not one of ours."""

    def __enter__(self):
        global _mp_forking
        _mp_forking += 1

    def __exit__(self, *exc):
        global _mp_forking
        _mp_forking -= 1


def _before() -> None:
    global _pending
    _pending = None
    if _current is None or _mp_forking or _child is not None:
        return
    try:
        _pending = _current[1]()
    except Exception:  # ours: the child runs unrecorded
        _pending = None


def _after_in_parent() -> None:
    global _pending
    _pending = None


def _after_in_child() -> None:
    global _pending, _current, _child
    cfg, _pending = _pending, None
    current, _current = _current, None  # (grandchildren: not recorded)
    if cfg is None or current is None:
        return
    try:
        _child = ForkedChild(current[0], cfg)
    except Exception:
        _child = None


class ForkedChild:
    """This process, as an os.fork() child of a recorded run."""

    def __init__(self, ctx, cfg: dict):
        from autogradviz.engine.worker.child_exit import Once, send_on_sigterm
        from autogradviz.engine.worker.child_stream import relay_streams
        from autogradviz.engine.worker.run_tags import Turns

        self.ctx, self.cfg = ctx, cfg
        self._link = None
        from autogradviz.engine.worker.fork_child import fork_base

        self.base = fork_base(ctx)
        rec = ctx.recorder
        rec.turns = Turns()  # (another thread may have held the old one at the fork)
        rec.default_rank = cfg["index"]
        sys.stdout, sys.stderr = relay_streams(self.printed_bytes)  # (buffered as python's)
        ctx.output = self.printed
        self.send = Once(self._send)
        send_on_sigterm(self.send)
        self.real_exit = os._exit

        def _exit(code):  # the script ends the child early: its runs first
            try:
                _flush()
                self.send()
            finally:
                self.real_exit(code)
        os._exit = _exit

    def _linked(self):
        if self._link is None:
            from autogradviz.engine.worker.child_main import _Link
            self._link = _Link(self.cfg)
        return self._link

    def printed(self, stream: str, text: str) -> None:
        self.printed_bytes(stream, text.encode("utf-8", "replace"))

    def printed_bytes(self, stream: str, data: bytes) -> None:
        try:
            self._linked().printed_bytes(stream, data)
        except Exception:
            pass

    def _send(self) -> None:
        from autogradviz.engine.worker.fork_child import _child_trace

        try:
            self._linked().send(b"T" + _child_trace(self.ctx, self.base))
        except Exception as exc:
            self.printed("stderr", f"[autogradviz: this child's trace was lost: {exc!r}]\n")


def end_of_script(exc: Optional[BaseException]) -> None:
    """Where the script's code has returned (`exc` None) or raised: in an
    os.fork() child, end the process as the interpreter would; elsewhere
    return at once."""
    child = _child
    if child is None:
        return
    code = 0
    try:
        if isinstance(exc, SystemExit):
            if exc.code is None:
                code = 0
            elif isinstance(exc.code, int):
                code = exc.code
            else:
                print(exc.code, file=sys.stderr)
                code = 1
        elif exc is not None:
            from autogradviz.engine.worker.runner import _format_tb
            sys.stderr.write(_format_tb(exc))
            code = 1
        import atexit
        atexit._run_exitfuncs()  # (the script's: python runs them at exit)
        _flush()
        child.send()
    finally:
        child.real_exit(code & 0xFF)


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
