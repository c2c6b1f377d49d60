"""`input()` in a script: a line asked of the client, over the protocol.

The worker's real stdin is the protocol (and fd 0 reads /dev/null, see
std_fds.py), so a script has no console. For the time of a run `sys.stdin`
is a `ConsoleInput`: each line the script reads (`input()`, `sys.stdin.readline()`,
`for line in sys.stdin`) becomes an `input_request` message carrying the
prompt (the text printed on the current line of stdout, which is what
`input(prompt)` just wrote), and the run waits for the client's `input_reply`:
a line of text, or end of input (`eof`: the script then gets EOFError, as
under `python script.py < /dev/null`). The GUI asks the learner in its Output
pane; the CLI answers end of input at once and says why in one line.

While the script waits, the worker still answers `ping` (and `shutdown` ends
it); any other request is refused with `protocol_error`, because the worker
is busy running. Reading the protocol here is safe: during a run nothing else
reads it (the main loop is inside the run).
"""

from __future__ import annotations

import io
import os
import threading
from typing import Any, Callable, Optional

from autogradviz.engine.protocol.messages import (
    InputReply, InputRequest, MessageError, Ping, Pong, ProtocolDecodeError, ProtocolErrorMessage, Shutdown,
    decode_request, kind_of)

PROMPT_MAX_CHARS = 1000  # of the current stdout line, sent as the prompt


class ConsoleInput(io.TextIOBase):
    """sys.stdin for one run; see the module docstring.

    `send(message)` writes a protocol message; `reader` is the protocol's
    input (binary, line by line); `flush_output()` sends pending prints first
    (the prompt must be on screen before the input line appears)."""

    def __init__(self, run_id, send: Callable[[Any], None], reader, flush_output: Callable[[], None]):
        self._run_id = run_id
        self._send = send
        self._reader = reader
        self._flush_output = flush_output
        self._line_tail = ""  # stdout after its last newline: the prompt of input()
        self._lock = threading.Lock()
        self._ended = False
        self.lines_read = 0
        self.answers: list[str] = []  # the lines read (a re-run of the script reads them again)
        self._buffer = None

    # -- what the script printed ------------------------------------------------------
    def watching(self, on_output: Callable[[str, str], None]) -> Callable[[str, str], None]:
        """`on_output` that also remembers the current line of stdout."""
        def write(stream: str, text: str) -> None:
            if stream == "stdout" and isinstance(text, str):
                tail = self._line_tail + text
                self._line_tail = tail[tail.rfind("\n") + 1:][-PROMPT_MAX_CHARS:]
            on_output(stream, text)
        return write

    # -- the file interface -------------------------------------------------------------
    @property
    def encoding(self):
        return "utf-8"

    @property
    def name(self):
        return "<stdin>"

    def readable(self):
        return True

    def isatty(self):
        return False

    def fileno(self):
        raise io.UnsupportedOperation("fileno")

    @property
    def buffer(self):
        """The same lines as bytes (`sys.stdin.buffer`, as scripts that read
        binary input or decode it themselves use it)."""
        if self._buffer is None:
            self._buffer = io.BufferedReader(_LineBytes(self))
        return self._buffer

    def readline(self, size: Optional[int] = -1) -> str:  # type: ignore[override]  # (a text stream: str, as io.TextIOBase's)
        with self._lock:
            if self._ended:
                return ""
            line = self._ask()
            if line is None:
                self._ended = True
                return ""
            self.lines_read += 1
            self.answers.append(line + "\n")
            self._line_tail = ""  # the learner's Enter ended the line on screen
            return line + "\n"

    def read(self, size: Optional[int] = -1) -> str:
        """Every line up to the end of input (the client's `eof`)."""
        parts: list[str] = []
        while True:
            line = self.readline()
            if not line:
                return "".join(parts)
            parts.append(line)

    def readlines(self, hint=-1):
        return list(iter(self.readline, ""))

    # -- the protocol ---------------------------------------------------------------------
    def _ask(self) -> Optional[str]:
        """Send `input_request`, wait for this run's `input_reply`."""
        if self._reader is None:  # no protocol to ask (the worker run in-process)
            return None
        try:
            self._flush_output()
        except Exception:
            pass
        self._send(InputRequest(id=self._run_id, prompt=self._line_tail))
        while True:
            raw = self._reader.readline()
            if not raw:  # the client closed the pipe: nobody will ever answer
                os._exit(0)
            if not raw.strip():
                continue
            try:
                req = decode_request(raw.strip())
            except MessageError as exc:
                self._send(ProtocolErrorMessage(id=exc.id, message=f"invalid request: {exc}"))
                continue
            except ProtocolDecodeError as exc:
                self._send(ProtocolErrorMessage(id=None, message=f"not a request: {exc}"))
                continue
            if isinstance(req, InputReply):
                if req.id == self._run_id:
                    return req.line()
                continue  # (a late reply to an earlier run is dropped)
            if isinstance(req, Ping):
                self._send(Pong(id=req.id))
            elif isinstance(req, Shutdown):
                os._exit(0)
            else:
                self._send(ProtocolErrorMessage(
                    id=req.id, message=f"{kind_of(req)!r}: the worker is running a script that waits for input"))


class _LineBytes(io.RawIOBase):
    """ConsoleInput's lines, UTF-8 encoded, for `sys.stdin.buffer` (one line
    per read: a binary readline asks for one line, as on a terminal)."""

    def __init__(self, text: ConsoleInput):
        self._text = text
        self._pending = b""

    def readable(self):
        return True

    def readinto(self, b) -> int:
        if not self._pending:
            self._pending = self._text.readline().encode("utf-8")
            if not self._pending:
                return 0
        n = min(len(b), len(self._pending))
        b[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n
