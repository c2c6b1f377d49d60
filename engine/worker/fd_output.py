"""A run's output captured where python's is written: file descriptors 1 and 2.

Under `python script.py` everything a script prints - `print`, `os.write(1, ...)`,
`os.system("echo hi")`, a `subprocess` that inherits stdout, a C extension's
printf, `faulthandler`'s dumps - lands on fds 1 and 2. So in a run's process
(engine/worker/run_child.py) fds 1 and 2 are pipes, and a pump thread reads
them and hands the text to the run (the `output` messages and the trace's
stdout/stderr). `sys.stdout`/`sys.stderr` are real text files on those fds,
as python makes them (line buffered, as on a terminal), so `.buffer`,
`.fileno()` and `.reconfigure()` exist. The protocol itself is written on
another descriptor (std_fds.py), so nothing the script writes can corrupt it.

Why `sync()`: the pump reads asynchronously, but `input(prompt)` must send
its prompt before the input request, and the end of a run must hold every
byte written so far: `sync()` flushes python's buffers and reads what the
pipes hold right now, on the caller's thread (a lock keeps the two readers
in order). A process the script left running (a detached `sleep 40`) may
keep the pipes' write ends open forever, so nothing here ever waits for
end of file: the run ends when the script does.
"""

from __future__ import annotations

import codecs
import io
import os
import select
import sys
import threading
from typing import Callable, Optional

Sink = Callable[[str, str], None]

_CHUNK = 1 << 16


class FdOutput:
    """Pipes on fds 1 and 2, their pump thread and the text files on them."""

    def __init__(self, pipes: Optional[dict] = None) -> None:
        """`pipes`: {1: (r, w), 2: (r, w)} made by the caller (the zygote keeps
        a copy of the read ends, to pass on what a crashed run wrote last)."""
        self._sink: Optional[Sink] = None
        self._lock = threading.Lock()
        self._streams: dict[int, tuple[str, codecs.IncrementalDecoder]] = {}
        for fd, stream in ((1, "stdout"), (2, "stderr")):
            r, w = pipes[fd] if pipes else os.pipe()
            os.dup2(w, fd)  # (inheritable: children the script starts write here too)
            os.close(w)
            os.set_blocking(r, False)
            self._streams[r] = (stream, codecs.getincrementaldecoder("utf-8")("replace"))
        self.stdout = _text_file(1, "<stdout>")
        self.stderr = _text_file(2, "<stderr>")
        self._stop = False
        self._thread = threading.Thread(target=self._pump, name="autogradviz-fd-output", daemon=True)
        self._thread.start()

    def connect(self, sink: Optional[Sink]) -> None:
        """Where the text goes from now on (`sink(stream, text)`); None drops it."""
        self.sync()
        self._sink = sink

    def sync(self) -> None:
        """Everything written so far (python's buffers and the pipes) reaches the sink."""
        for f in (sys.stdout, sys.stderr, self.stdout, self.stderr):
            try:
                f.flush()
            except Exception:
                pass
        with self._lock:
            for r in self._streams:
                self._read(r)

    def _read(self, r: int) -> None:
        stream, decoder = self._streams[r]
        while True:
            try:
                data = os.read(r, _CHUNK)
            except BlockingIOError:
                return
            except OSError:
                return
            if not data:
                return
            text = decoder.decode(data)
            sink = self._sink
            if text and sink is not None:
                try:
                    sink(stream, text)
                except Exception:
                    pass
            if len(data) < _CHUNK:
                return

    def _pump(self) -> None:
        fds = list(self._streams)
        while not self._stop:
            try:
                ready, _, _ = select.select(fds, [], [], 0.5)
            except (OSError, ValueError):
                return
            if ready:
                with self._lock:
                    for r in ready:
                        self._read(r)


def read_left(r: int) -> str:
    """What a pipe holds now (non-blocking), as text."""
    parts = []
    try:
        os.set_blocking(r, False)
        while True:
            data = os.read(r, _CHUNK)
            if not data:
                break
            parts.append(data)
    except OSError:
        pass
    return b"".join(parts).decode("utf-8", "replace")


def _text_file(fd: int, name: str) -> io.TextIOWrapper:
    """sys.stdout / sys.stderr on `fd` as python makes them for a terminal:
    UTF-8, line buffered. (Errors are written as backslash escapes on both:
    a lone surrogate must never end a run with UnicodeEncodeError where the
    app printed it before.)"""
    raw = io.FileIO(fd, "w", closefd=False)
    try:
        raw.name = name
    except Exception:
        pass
    buffered = io.BufferedWriter(raw)
    return io.TextIOWrapper(buffered, encoding="utf-8", errors="backslashreplace",
                            line_buffering=True, write_through=(fd == 2))
