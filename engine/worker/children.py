"""The parent's side of recording child processes: a relay children report to.

A script's child processes (`torch.multiprocessing.spawn`, DDP ranks,
`multiprocessing.Process` with the spawn start method) are new interpreters:
nothing of the worker's recording is in them. The child-processes probe
(engine/probes/children.py) makes multiprocessing start each spawned child
through engine/worker/child_main.py, which installs the same probes there
and reports back to this relay over a `multiprocessing.connection` socket
(authenticated with a per-run random key, which a spawned child gets in its
environment, never on its command line; bytes only - never pickle; the
socket's folder goes at the run's end, or after a crash with the next relay
or worker, engine/worker/relay_folders.py):

  b"H" + JSON {"pid", "index"}   once, when the child has connected
  b"O" + b"o"/b"e" + UTF-8 text   what the child printed (stdout / stderr), one
                                  message per flush of its line-buffered stream
                                  (engine/worker/child_stream.py):
                                  passed on at once to the run's output, as a
                                  child's prints reach the terminal under python;
                                  answered b"A" once passed on (the child's print
                                  returns then: the order of prints is kept)
  b"T" + trace JSON               the child's partial trace, at its exit
  b"W"                            close()'s own marker, answered b"A": every
                                  connection made before it has been taken

`close()` waits (briefly) for connected children to finish sending, then
`traces()` gives what arrived, in the order the children were started; the
probe merges them into the one trace (engine/trace/merge.py).

Why a socket and not inherited pipes or files: multiprocessing's spawn
closes every inherited file descriptor except its own, and a child's prints
must show while it runs, not after.
"""

from __future__ import annotations

import codecs
import json
import os
import shutil
import tempfile
import threading
import time
from multiprocessing.connection import Client, Listener
from typing import Callable

from autogradviz.engine.worker.relay_folders import FOLDER_PREFIX, remove_stale_relay_folders

# How long close() waits for children still sending (their prints, their trace).
CLOSE_WAIT_S = 5.0
# A spawned child finds the relay's key here (and removes it at once): never
# on its command line, which every user of the machine can read (/proc/*/cmdline).
RELAY_KEY_ENV = "AUTOGRADVIZ_RELAY_KEY"


class ChildRelay:
    """Listens for this run's children; relays prints, collects traces."""

    def __init__(self, output: Callable[[str, str], None]):
        self.key = os.urandom(16)
        # (our own folder: multiprocessing's default one is only removed at an
        # interpreter exit, which the worker never has. Named after this
        # process, so that once it is gone - killed mid-run, its close()
        # never ran - the next relay or worker removes the folder.)
        self._folder = None
        if os.name == "posix":
            remove_stale_relay_folders()
            self._folder = tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{os.getpid()}_")
        address = os.path.join(self._folder, "relay") if self._folder else None
        self.listener = Listener(address, authkey=self.key)
        self.address = self.listener.address
        self.output = output
        self.launched = 0  # children started so far (the next one's index)
        self._results: list[tuple[dict, bytes]] = []
        self._serving: list[threading.Thread] = []
        self._closing = False
        self._lock = threading.Lock()
        self._acceptor = threading.Thread(target=self._accept, name="autogradviz-children", daemon=True)
        self._acceptor.start()

    def config(self, **extra) -> dict:
        """What the next child needs to report here (its index is counted).
        `key` is secret: never put it on a command line (a spawned child
        gets it in its environment, RELAY_KEY_ENV)."""
        with self._lock:
            index = self.launched
            self.launched += 1
        return dict(address=self.address, key=self.key.hex(), index=index, **extra)

    def _accept(self) -> None:
        while True:
            try:
                conn = self.listener.accept()
            except Exception:
                # closed (by close()), or a failed handshake: a child killed
                # while it connected (its socket reset: an OSError too), or
                # not one of ours. Only the first ends the listening.
                if self._closing:
                    return
                time.sleep(0.01)  # (never a busy loop)
                continue
            if self._closing:
                conn.close()
                return
            t = threading.Thread(target=self._serve, args=(conn,), name="autogradviz-child", daemon=True)
            with self._lock:  # (started before close() can see it: it joins what it sees)
                t.start()
                self._serving.append(t)

    def _serve(self, conn) -> None:
        info: dict = {}
        # (a flush may end inside a UTF-8 character: the rest comes in the next)
        decoders = {name: codecs.getincrementaldecoder("utf-8")("replace") for name in ("stdout", "stderr")}
        try:
            while True:
                data = conn.recv_bytes()
                kind = data[:1]
                if kind == b"O":
                    stream = "stderr" if data[1:2] == b"e" else "stdout"
                    try:
                        text = decoders[stream].decode(data[2:])
                        if text:
                            self.output(stream, text)
                    except Exception:
                        pass
                    conn.send_bytes(b"A")  # passed on: the child's print returns
                elif kind == b"W":
                    conn.send_bytes(b"A")  # close()'s marker (see there)
                elif kind == b"H":
                    info = json.loads(data[1:])
                elif kind == b"T":
                    with self._lock:
                        self._results.append((info, data[1:]))
        except (EOFError, OSError, ValueError):
            pass
        finally:
            conn.close()

    def close(self, wait_s: float = CLOSE_WAIT_S) -> None:
        """Wait for children still connected (up to `wait_s`), then stop listening."""
        deadline = time.monotonic() + wait_s
        # Connections are accepted in the order they came: once a marker sent
        # now is answered, every child that connected before it has its
        # serving thread (one accepted a moment ago would otherwise be missed
        # and its trace lost).
        marker = threading.Thread(target=self._mark, name="autogradviz-relay-mark", daemon=True)
        marker.start()
        marker.join(max(0.0, deadline - time.monotonic()))
        with self._lock:
            serving = list(self._serving)
        for t in serving:
            t.join(max(0.0, deadline - time.monotonic()))
        self._closing = True
        # Wake the acceptor (a listening socket's accept() ignores close()).
        # In a thread of its own, waited for briefly: when the acceptor has
        # already returned (a child killed mid-handshake, seen as we close),
        # nobody answers this handshake and it would wait forever.
        waker = threading.Thread(target=self._wake, name="autogradviz-relay-wake", daemon=True)
        waker.start()
        waker.join(1.0)
        self._acceptor.join(1.0)
        try:
            self.listener.close()
        except Exception:
            pass
        if self._folder:
            shutil.rmtree(self._folder, ignore_errors=True)

    def _mark(self) -> None:
        try:
            with Client(self.address, authkey=self.key) as link:
                link.send_bytes(b"W")
                link.recv_bytes()
        except Exception:
            pass

    def _wake(self) -> None:
        try:
            Client(self.address, authkey=self.key).close()
        except Exception:
            pass

    def traces(self) -> list[tuple[dict, bytes]]:
        """(hello info, trace bytes) per child that sent one, by start order."""
        with self._lock:
            return sorted(self._results, key=lambda r: r[0].get("index", 0))


def end_leftover_children() -> None:
    """What the interpreter does for multiprocessing at exit: terminate the
    daemonic children the script left running, wait for the others."""
    import multiprocessing

    for p in multiprocessing.active_children():
        try:
            if p.daemon:
                p.terminate()
            p.join()
        except Exception:
            pass
    # A forkserver the script started ends with the interpreter under python:
    # here, with the run.
    try:
        from multiprocessing import forkserver
        if getattr(forkserver._forkserver, "_forkserver_pid", None) is not None:
            forkserver._forkserver._stop()  # type: ignore[attr-defined]  # (a private of multiprocessing, not in the stubs)
    except Exception:
        pass
