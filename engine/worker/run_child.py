"""One run in a process of its own, forked from the worker's zygote (zygote.py).

Why a process per run: under `python script.py` every run is a new process,
so nothing one run does - `signal.alarm`, `resource.setrlimit`, environment
variables, a monkeypatched `torch.add`, `torch.set_num_threads`, warning
filters, an imported helper module, a thread left running - can reach the
next. The zygote has imported torch and the engine once; each run is a fork
of it, which starts in that state at the cost of a fork.

The run child runs the script exactly as the in-process worker did
(service.Worker.handle_run: probes, `started`/`output`/`trace` messages on
the protocol descriptor it inherited), and then, as python does when a
script's main code ends: waits for the non-daemon threads the script left
running (their prints still reach the run), runs the `atexit` functions, and
only then sends the trace. It stays alive afterwards to answer the requests
about its run (`fetch`, `check_gradient`: they need the live tensors), which
the zygote forwards to it on a pipe, until the zygote ends it (the next run,
Stop, shutdown).

Output: fds 1 and 2 are pipes read by fd_output.FdOutput, so whatever the
script or its subprocesses write reaches the Output pane and the trace. The
worker's real stderr (crash reports, the faulthandler dump a timed-out run's
client asks for with SIGUSR1) is kept on a private descriptor.
"""

from __future__ import annotations

import atexit
import faulthandler
import os
import signal
import sys
import threading
import time

# Written on the status pipe to the zygote once the trace is sent: from then
# on the run child's end is not a crash of the run.
TRACE_SENT = b"t"


def run_child(worker, requests_fd: int, status_fd: int, real_stderr: int, pipes: dict) -> None:
    """The forked child's whole life (never returns): made ready before its run
    is asked for (the zygote keeps one such spare, so that Run does not wait
    for a fork), then the run request (the first line on `requests_fd`), the
    run, and its follow-ups. `pipes`: {1: (r, w), 2: (r, w)}, its fds 1 and 2
    (fd_output.FdOutput)."""
    code = 0
    try:
        _as_fresh_process(real_stderr)
        from autogradviz.engine.protocol.messages import decode_request
        from autogradviz.engine.worker import warm_imports
        from autogradviz.engine.worker.fd_output import FdOutput

        output = FdOutput(pipes)
        sys.stdout = sys.__stdout__ = output.stdout  # type: ignore[misc]  # (the child's own streams, as python's)
        sys.stderr = sys.__stderr__ = output.stderr  # type: ignore[misc]  # (the child's own streams, as python's)
        _watch_parent(os.getppid())
        worker.reader = os.fdopen(requests_fd, "rb", buffering=1 << 16)
        worker.output_fds = output
        worker.at_end = end_of_main
        line = worker.reader.readline()
        if not line:  # the zygote ended without a run for us
            os._exit(0)
        worker.handle_request(decode_request(line.strip()))  # (the zygote sends only a valid Run)
        output.connect(None)  # what leftover threads and processes print later goes nowhere
        os.write(status_fd, TRACE_SENT + warm_imports.status_byte())
        if warm_imports.runs_once():
            _let_go_of_client(worker, real_stderr)
        for line in worker.reader:
            if not worker.handle_line(line):
                break
    except BaseException:  # noqa: BLE001 - a bug of ours: say so on the real stderr
        code = 70
        try:
            import traceback

            os.write(real_stderr, traceback.format_exc().encode("utf-8", "replace"))
        except Exception:
            pass
    os._exit(code)


def _let_go_of_client(worker, real_stderr: int) -> None:
    """A one-run worker's child, its trace sent, only waits to be ended:
    its ends of the client's pipes (the protocol's, the worker's stderr) are
    closed now, so that the client sees them end when the zygote exits - not
    once the kernel has freed this process's memory, the whole run's (0.03 s
    of `autogradviz trace` on a 50,000-node chain, after the file is written)."""
    try:
        faulthandler.disable()
        faulthandler.unregister(signal.SIGUSR1)
    except Exception:
        pass
    worker.channel.close()
    try:
        os.close(real_stderr)
    except OSError:
        pass


def _as_fresh_process(real_stderr: int) -> None:
    """Signals and crash reports as in a new worker process, minus the zygote's."""
    for sig in (signal.SIGCHLD, signal.SIGUSR1):
        signal.signal(sig, signal.SIG_DFL)
    try:
        signal.set_wakeup_fd(-1)
    except (ValueError, OSError):
        pass
    try:
        faulthandler.enable(file=real_stderr, all_threads=True)
        faulthandler.register(signal.SIGUSR1, file=real_stderr, all_threads=True)
    except Exception:
        pass
    _own_atexit()
    _reseed()


# torch's default seed where it does not seed every process afresh
FIXED_TORCH_SEED = 67280421310721


def _reseed() -> None:
    """Random generators seeded as in a new process: the zygote's seeds are
    every run's otherwise. (`random` reseeds itself after a fork; NumPy's
    global generator is the zygote's import; torch seeds each process at
    random unless it uses its fixed default.)"""
    if "numpy.random" in sys.modules:
        try:
            sys.modules["numpy.random"].seed()
        except Exception:
            pass
    torch = sys.modules.get("torch")
    if torch is not None:
        try:
            if torch.initial_seed() != FIXED_TORCH_SEED:
                torch.seed()
        except Exception:
            pass


def _own_atexit() -> None:
    """The atexit functions of this run are the script's, plus python's own
    (logging, multiprocessing); the zygote's torch finalizers (130 library
    registrations, 0.1 s) need not run in a process that only ends."""
    try:
        import weakref

        atexit._clear()
        for f in list(weakref.finalize._registry):  # type: ignore[attr-defined]  # (privates of weakref/threading, not in the stubs)
            f.atexit = False
        weakref.finalize._registered_with_atexit = False  # type: ignore[attr-defined]  # (privates of weakref/threading, not in the stubs)
        if "logging" in sys.modules:
            atexit.register(sys.modules["logging"].shutdown)
        if "multiprocessing.util" in sys.modules:
            atexit.register(sys.modules["multiprocessing.util"]._exit_function)
    except Exception:
        pass


def end_of_main() -> None:
    """What python does when the script's main code has ended (threading._shutdown,
    then atexit): the threading atexit hooks (concurrent.futures' pools), every
    non-daemon thread still running is waited for, then the atexit functions
    run. Never raises: a failing atexit function prints its traceback, as
    python's do."""
    try:
        hooks = list(getattr(threading, "_threading_atexits", []))
        threading._threading_atexits[:] = []  # type: ignore[attr-defined]  # (privates of weakref/threading, not in the stubs)
        for hook in reversed(hooks):
            try:
                hook()
            except Exception:
                _print_exc("threading atexit hook")
        me = threading.current_thread()
        while True:
            pending = [t for t in threading.enumerate()
                       if t is not me and not t.daemon and t.is_alive()]
            if not pending:
                break
            for t in pending:
                t.join()
        atexit._run_exitfuncs()  # (prints "Exception ignored in atexit callback" itself)
    except BaseException:  # noqa: BLE001 - e.g. KeyboardInterrupt in a join
        _print_exc("end of the script")


def _print_exc(where: str) -> None:
    try:
        import traceback

        sys.stderr.write(f"Exception in {where}:\n" + traceback.format_exc())
    except Exception:
        pass


def _watch_parent(parent: int, interval: float = 0.5) -> None:
    """End with the zygote: a run child must never outlive its worker."""
    def watch():
        while True:
            time.sleep(interval)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, name="autogradviz-parent-watch", daemon=True).start()
