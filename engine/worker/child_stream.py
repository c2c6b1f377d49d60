"""A recorded child's sys.stdout and sys.stderr: buffered as python's are.

Under `python script.py` in a terminal a process's stdout is line-buffered:
`print(rank, grad.tolist(), flush=True)` writes its pieces ("0", " ",
"[3.0, ...]", "\n") into a buffer, and the terminal gets one write per line
or flush - two processes printing at the same time show whole lines. A
child that forwarded every `write()` to the relay on its own (as the
worker's own stream stand-in does) made the pieces of two ranks' prints
interleave in the Output pane (`10  [3.0, ...][3.0, ...]`).

So a child's streams are real `io.TextIOWrapper`s over a `BufferedWriter`
whose raw file is the relay (engine/worker/children.py): line-buffered (a
flush at every newline or carriage return, or when the buffer fills), one
relay message per flush, with `.buffer`, `.reconfigure()`, `.encoding` and
the rest as python's have them. Its encoding is UTF-8; errors are python's
own ("strict" for stdout, "backslashreplace" for stderr). Whatever is
still buffered at the child's end is flushed before its trace is sent.
"""

from __future__ import annotations

import io
from typing import Callable

BytesSink = Callable[[str, bytes], None]


class _RelayFile(io.RawIOBase):
    """The raw file under a child's stream: each write is one relay message."""

    def __init__(self, stream: str, sink: BytesSink):
        super().__init__()
        self.stream = stream
        self.name = f"<{stream}>"
        self._sink = sink

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        raise io.UnsupportedOperation("fileno")

    def write(self, data) -> int:
        data = bytes(data)
        if data:
            try:
                self._sink(self.stream, data)
            except Exception:  # (the relay is gone: lost, as a closed terminal loses it)
                pass
        return len(data)


def relay_stream(stream: str, sink: BytesSink) -> io.TextIOWrapper:
    """A line-buffered text stream ('stdout' or 'stderr') whose flushes go
    to `sink(stream, data)`, one call per flush."""
    raw = _RelayFile(stream, sink)
    return io.TextIOWrapper(io.BufferedWriter(raw), encoding="utf-8",
                            errors="strict" if stream == "stdout" else "backslashreplace",
                            newline="\n", line_buffering=True)


def relay_streams(sink: BytesSink) -> tuple[io.TextIOWrapper, io.TextIOWrapper]:
    """(stdout, stderr) for a child reporting to the relay through `sink`."""
    return relay_stream("stdout", sink), relay_stream("stderr", sink)
