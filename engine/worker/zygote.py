"""The worker as a zygote: torch imported once, every run a fresh fork of it.

Why: a script changes its process (signal.alarm, resource limits, environment,
monkeypatched torch functions, thread counts, warning filters, imported
modules, threads left running), and under `python script.py` none of it
reaches the next run because every run is a new process. Importing torch
takes seconds, so the worker imports it (and the engine) once, here, and
forks a run child (run_child.py) for each `run` request: the child starts
from exactly this state, and whatever it changes dies with it.

The zygote never initialises CUDA (a CUDA context does not survive a fork):
`cuda_info` asks torch in a throw-away fork. It starts no thread either (a
fork copies only the forking thread; a lock another thread held would stay
held in the child), so it watches its parent from its own select loop.

Who writes the protocol: while a run child lives, only it writes messages
(a big trace is no atomic pipe write, so two writers would interleave);
the zygote reads every request and forwards all but `run` and `shutdown`
to it on a pipe, where the child reads them as the in-process worker read
stdin (between runs, and while `input()` waits). With no run child (before
the first run, or after one ended once its trace was sent) the zygote
answers itself (`fetch`: no run; `ping`: pong).

A run child that dies before its trace was sent (a segfault, `os._exit`,
the OOM killer) takes the zygote with it, with the same status, so both
clients see and report the crash exactly as before (exit code or signal,
the faulthandler dump on stderr) and start a fresh worker. SIGUSR1 (the
client asking where a timed-out script is) is passed to the run child;
SIGTERM (Stop, timeout) ends the whole process group (service._lead_group).
"""

from __future__ import annotations

import errno
import faulthandler
import gc
import json
import os
import select
import signal
import sys
from typing import Any, Optional

from autogradviz.engine.protocol.messages import Output, ProtocolDecodeError, Run, Shutdown, decode_request
from autogradviz.engine.trace.gc_pause import freeze_for_good
from autogradviz.engine.worker.fd_output import read_left
from autogradviz.engine.worker import warm_imports
from autogradviz.engine.worker.run_child import TRACE_SENT, run_child

PARENT_CHECK_S = 0.5


def cuda_info() -> tuple[bool, list]:
    """(CUDA available, device names), asked in a forked child so that this
    process never initialises CUDA. (False, []) when anything goes wrong."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.close(r)
            import torch

            ok = bool(torch.cuda.is_available())
            names = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())] if ok else []
            os.write(w, json.dumps([ok, names]).encode())
        finally:
            os._exit(0)
    os.close(w)
    data = b""
    try:
        while True:
            chunk = os.read(r, 65536)
            if not chunk:
                break
            data += chunk
    finally:
        os.close(r)
        _wait(pid)
    try:
        ok, names = json.loads(data.decode())
        return bool(ok), [str(n) for n in names]
    except Exception:
        return False, []


def preload() -> None:
    """Import, once, what every run needs (each run child would otherwise pay
    for it again), and freeze what is there: the children's garbage collector
    then leaves the zygote's objects (and their memory pages) alone."""
    import autogradviz.engine.worker.runner  # noqa: F401
    import autogradviz.engine.worker.console_input  # noqa: F401
    import autogradviz.engine.worker.working_folder  # noqa: F401
    import autogradviz.engine.worker.fd_output  # noqa: F401
    import autogradviz.engine.worker.finite_diff  # noqa: F401
    import autogradviz.engine.worker.children  # noqa: F401
    import multiprocessing.forkserver  # noqa: F401
    import multiprocessing.popen_forkserver  # noqa: F401
    import multiprocessing.popen_spawn_posix  # noqa: F401
    import secrets  # noqa: F401
    for name in ("autogradviz.engine.probes.checkpoint_inner", "autogradviz.engine.probes.memory_timeline",
                 "numpy.random"):  # (numpy.random: reseeded in each run, run_child.py)
        try:
            __import__(name)
        except Exception:
            pass
    from autogradviz.engine.probes import registry

    try:
        registry.create()  # (imports every registered probe's module)
    except Exception:
        pass
    try:
        from autogradviz.engine.worker import derivatives_yaml

        derivatives_yaml.formulas()  # torch's derivatives.yaml, parsed once
    except Exception:
        pass
    if not warm_imports.runs_once():
        # (a long-lived zygote collects its imports' leftovers once before
        # freezing them for good; a one-run worker's leftovers die with it:
        # 80 ms of `autogradviz trace`)
        gc.collect()
    freeze_for_good()  # (gc.freeze(), and the recorder then never asks how much is frozen)


class Zygote:
    """The worker's main loop: requests in, a run child per `run`."""

    def __init__(self, worker, proto_in: int):
        self.worker = worker
        self.proto_in = proto_in
        self.child: Any = None  # pid of the run child
        self.child_requests: Any = None  # fd: requests forwarded to it
        self.child_status: Any = None  # fd: TRACE_SENT from it
        self.trace_sent = False
        self.warm_wanted = False  # the last run imported what later runs should find (warm_imports.py)
        self.dying: set = set()  # ended run children not yet reaped
        # A run child forked ahead, waiting for its run request: Run does not
        # wait for a fork. (pid, requests fd, status fd, output pipes)
        self.spare: Optional[tuple] = None
        self.run_id: Any = None
        self.output_pipes: list = []  # read ends of the run child's fds 1 and 2 (a copy)
        self.real_stderr = os.dup(2)
        os.set_inheritable(self.real_stderr, False)
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        os.set_blocking(self._wake_r, False)

    # -- the loop ------------------------------------------------------------------
    def serve(self) -> None:
        """Serve until shutdown or end of input; never returns."""
        signal.signal(signal.SIGCHLD, lambda *a: None)
        signal.set_wakeup_fd(self._wake_w)
        try:
            faulthandler.unregister(signal.SIGUSR1)
        except Exception:
            pass
        signal.signal(signal.SIGUSR1, self._pass_on)
        parent = os.getppid()
        pending = b""
        while True:
            fds = [self.proto_in, self._wake_r] + ([self.child_status] if self.child_status is not None else [])
            try:
                ready, _, _ = select.select(fds, [], [], PARENT_CHECK_S)
            except InterruptedError:
                ready = []
            if parent > 1 and os.getppid() != parent:
                self._exit(0)  # the GUI or CLI is gone
            if self._wake_r in ready:
                _drain(self._wake_r)
            if self.child_status is not None and self.child_status in ready:
                self._read_status()
            self._check_child()
            self._reap_dying()
            if self.warm_wanted and self.proto_in not in ready:
                self._warm_up()
            if self.spare is None and not (self.run_id is not None and warm_imports.runs_once()):
                try:
                    # (the next run's, while this one runs on another core; a
                    # one-run worker's run took its spare: no other one)
                    self._fork_spare()
                except OSError:
                    pass  # (no process to spare now: the run request forks, or says why)
            if self.proto_in in ready:
                try:
                    data = os.read(self.proto_in, 1 << 16)
                except OSError:
                    data = b""
                if not data:
                    self._exit(0)
                pending += data
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    self._request(line)

    def _request(self, line: bytes) -> None:
        try:  # (a line that is not a valid request is answered by whoever serves it)
            req = decode_request(line.strip()) if line.strip() else None
        except ProtocolDecodeError:
            req = None
        if isinstance(req, Run):
            self._start_run(req, line)
        elif isinstance(req, Shutdown):
            self._exit(0)
        elif self.child is not None and self.child_requests is not None:
            try:
                _write_all(self.child_requests, line + b"\n")
            except OSError:
                self._check_child(block=True)
                if self.child is None:
                    self.worker.handle_line(line)
        else:
            self.worker.handle_line(line)  # no run: answered here

    # -- run children -----------------------------------------------------------------
    def _start_run(self, req: Run, line: bytes) -> None:
        self._end_child()
        for _attempt in range(2):
            if self.spare is None:
                self._fork_spare()
            assert self.spare is not None  # (_fork_spare made one, or raised)
            pid, req_w, status_r, output_pipes = self.spare
            self.spare = None
            try:
                _write_all(req_w, line.strip() + b"\n")  # (the spare's first line: its run)
                break
            except OSError:  # the spare died meanwhile: another one
                self._drop(pid, [req_w, status_r] + [r for _s, r in output_pipes])
        self.output_pipes = output_pipes
        self.run_id = req.id
        self.child, self.child_requests, self.child_status = pid, req_w, status_r
        self.trace_sent = False

    def _fork_spare(self) -> None:
        """Fork the next run child now; it waits for its run request (run_child.py)."""
        req_r, req_w = os.pipe()
        status_r, status_w = os.pipe()
        pipes = {1: os.pipe(), 2: os.pipe()}
        try:
            sys.stderr.flush()
        except Exception:
            pass
        try:
            pid = os.fork()
        except OSError:
            for fd in (req_r, req_w, status_r, status_w, *pipes[1], *pipes[2]):
                os.close(fd)
            raise
        if pid == 0:
            signal.set_wakeup_fd(-1)
            theirs = [self.proto_in, req_w, status_r, self._wake_r, self._wake_w,
                      self.child_requests, self.child_status] + [r for _s, r in self.output_pipes]
            for fd in theirs:  # (the zygote's and the running child's: never a spare's)
                if fd is not None:
                    try:
                        os.close(fd)
                    except OSError:
                        pass
            run_child(self.worker, req_r, status_w, self.real_stderr, pipes)  # never returns
        os.close(req_r)
        os.close(status_w)
        for _r, w in pipes.values():
            os.close(w)
        self.spare = (pid, req_w, status_r, [("stdout", pipes[1][0]), ("stderr", pipes[2][0])])

    def _drop(self, pid: int, fds: list) -> None:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
        self.dying.add(pid)
        for fd in fds:
            try:
                os.close(fd)
            except OSError:
                pass

    def _read_status(self) -> None:
        try:
            data = os.read(self.child_status, 64)
        except OSError:
            data = b""
        if TRACE_SENT in data:
            self.trace_sent = True
            self.warm_wanted = warm_imports.wanted(data)

    def _warm_up(self) -> None:
        """Idle, after a run that imported torch._dynamo: import it here, and
        fork the spare again so that the next run has it (warm_imports.py)."""
        self.warm_wanted = False
        if warm_imports.import_now() and self.spare is not None:
            pid, req_w, status_r, output_pipes = self.spare
            self.spare = None
            self._drop(pid, [req_w, status_r] + [r for _s, r in output_pipes])

    def _check_child(self, block: bool = False) -> None:
        """Reap the run child if it ended; its death before the trace is the worker's."""
        if self.child is None:
            return
        try:
            pid, status = os.waitpid(self.child, 0 if block else os.WNOHANG)
        except ChildProcessError:
            pid, status = self.child, 0
        if pid == 0:
            return
        if not self.trace_sent:
            self._read_status()
        if not self.trace_sent:
            self._pass_on_output()
        self._forget_child()
        if not self.trace_sent:
            self._die_like(status)

    def _end_child(self) -> None:
        """End the run child and every process it left in our group. Not waited
        for: the kernel frees its memory while the next run starts (reaped later)."""
        if self.child is None:
            return
        pid = self.child
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
        _kill_group_members(keep=self.spare[0] if self.spare else None)
        self.dying.add(pid)
        self._forget_child()

    def _reap_dying(self) -> None:
        for pid in list(self.dying):
            try:
                done, _status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid
            if done:
                self.dying.discard(pid)

    def _pass_on_output(self) -> None:
        """What the dead run child wrote last and never read (a print right
        before `os._exit` or a segfault): sent as its output, as a terminal
        would have shown it."""
        for stream, r in self.output_pipes:
            text = read_left(r)
            if text:
                try:
                    self.worker.channel.send(Output(id=self.run_id, stream=stream, text=text))
                except Exception:
                    pass

    def _forget_child(self) -> None:
        for _stream, r in self.output_pipes:
            try:
                os.close(r)
            except OSError:
                pass
        self.output_pipes = []
        for fd in (self.child_requests, self.child_status):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.child = self.child_requests = self.child_status = None

    def _pass_on(self, signum, frame) -> None:
        if self.child is not None:
            try:
                os.kill(self.child, signum)
            except OSError:
                pass

    def _die_like(self, status: int) -> None:
        """End as the run child ended (a crash the client reports as before)."""
        _kill_group_members()
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            try:
                faulthandler.disable()
                signal.signal(sig, signal.SIG_DFL)
                os.kill(os.getpid(), sig)
            except (OSError, ValueError):
                pass
            os._exit(128 + sig)
        os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)

    def _exit(self, code: int) -> None:
        if self.child is not None:
            try:
                os.kill(self.child, signal.SIGKILL)
            except OSError:
                pass
        _kill_group_members()
        try:
            sys.stderr.flush()
        except Exception:
            pass
        os._exit(code)


def _kill_group_members(keep: Optional[int] = None) -> None:
    """SIGKILL the other processes of our group (what runs left behind), but `keep`."""
    from autogradviz.engine.worker.service import _end_group, _group_members

    try:
        if keep is None:
            _end_group()
            return
        if os.getpgid(0) != os.getpid():
            return
        for pid in _group_members():
            if pid != keep:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
    except Exception:
        pass


def _wait(pid: int) -> None:
    while True:
        try:
            os.waitpid(pid, 0)
            return
        except ChildProcessError:
            return
        except InterruptedError:
            continue


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 4096):
            pass
    except OSError:
        pass


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            n = os.write(fd, view)
        except InterruptedError:
            continue
        except OSError as exc:
            if exc.errno == errno.EAGAIN:
                select.select([], [fd], [])
                continue
            raise
        view = view[n:]
