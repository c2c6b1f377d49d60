"""The worker protocol: message types, framing, version, limits (docs/worker-protocol.md).

The one module the worker (engine/worker/service.py) and both clients (the
CLI's blocking `WorkerClient` and the GUI's `WorkerProcess`) speak through, so
that framing, encoding, limits and the version check exist once. Imports
neither torch nor Qt.

The messages themselves are typed structs (message_types.py, re-exported
here): decoded once, dispatched on their class.

Framing: one JSON object per line (UTF-8; the strings "NaN"/"Infinity"/
"-Infinity" for non-finite floats, as in trace files), `type` first. JSON
rather than MessagePack: a `trace` message then carries the trace file's
exact bytes, so the CLI writes what the worker encoded without decoding and
re-encoding it, and msgspec reads JSON about as fast as MessagePack.
"""

from __future__ import annotations

import os
import re
from typing import Optional

from autogradviz.engine.protocol.message_types import (  # noqa: F401 - the protocol's one import
    FETCH_MAX_VALUES, MESSAGE_CLASSES, REQUEST_CLASSES, CheckGradient, Fetch, GradientCheck, InputReply,
    InputRequest, MessageError, Output, Ping, Pong, Progress, ProtocolDecodeError, ProtocolErrorMessage,
    Ready, Request, Run, Shutdown, Started, TraceMessage, Values, WorkerMessage, as_dict, decode_request,
    decode_worker_message, encode_message, kind_of, trace_message)

from autogradviz.engine.protocol.run_limits import DEFAULT_RUN_TIMEOUT_S, START_TIMEOUT_S  # noqa: F401 - re-exported

# Sent in `ready`; a client that finds another number refuses the worker
# (ProtocolVersionError). 2: `progress` carries code + params; parts of a
# trace omit fields at their default; `values` summaries likewise. 3: input()
# is asked of the client (input_request / input_reply); `started` has `cwd`.
PROTOCOL_VERSION = 3

# -- message types (the wire's `type` of each struct; dispatch on the classes, not these) ------------
REQUEST_TYPES = tuple(kind_of(cls) for cls in REQUEST_CLASSES)
MESSAGE_TYPES = tuple(kind_of(cls) for cls in MESSAGE_CLASSES)
CHECK_GRADIENT, GRADIENT_CHECK = kind_of(CheckGradient), kind_of(GradientCheck)

# -- limits ----------------------------------------------------------------------------------------
# How much of the worker's stderr a client keeps (crash reports, the
# faulthandler dump that names the running line at a timeout). One number
# for both clients: a dump of every thread's stack easily passes 4 KB.
STDERR_TAIL_BYTES = 64 * 1024
# A fetch answers with every value as JSON: ~20 bytes per element on the wire
# and more as Python floats on both sides. Past this many elements (a request
# may set its own `max_values`) the answer is an error, not a 1 GB line.
# (FETCH_MAX_VALUES = 4_000_000: message_types.py, the default of Fetch.max_values)
# Output of one run that is forwarded (and kept in the trace), in characters,
# over both streams; past it the worker only counts.
OUTPUT_CAP = 1_000_000
# At a timeout the client sends SIGUSR1 (the worker's faulthandler dumps every
# stack on stderr), waits this long for the dump, then terminates the worker.
DUMP_WAIT_S = 0.2
# Terminate, then kill after this long.
KILL_GRACE_S = 2.0
# (DEFAULT_RUN_TIMEOUT_S, START_TIMEOUT_S: run_limits.py, import-free, re-exported here)


class ProtocolVersionError(RuntimeError):
    """The worker speaks another protocol version (a mixed installation)."""


def check_ready(message: Ready) -> Ready:
    """`message` (a `ready`) unchanged, or ProtocolVersionError naming both versions."""
    version = message.protocol
    if version != PROTOCOL_VERSION:
        raise ProtocolVersionError(
            f"the worker speaks protocol version {version!r}, this client version {PROTOCOL_VERSION} "
            "(is autogradviz installed twice, in different versions?)")
    return message


# -- timeouts and crashes ---------------------------------------------------------------------------
_FRAME_RE = re.compile(r'File "(?P<file>[^"]*)", line (?P<line>\d+)')


def line_from_dump(text: str, filename: str) -> Optional[int]:
    """The user's line in a faulthandler dump on the worker's stderr (most
    recent call first): where a timed-out or crashed script was."""
    names = {filename, os.path.abspath(filename)}  # (the worker runs a file under its absolute path)
    for m in _FRAME_RE.finditer(text):
        if m.group("file") in names:
            return int(m.group("line"))
    return None


__all__ = [
    "PROTOCOL_VERSION", "REQUEST_TYPES", "CHECK_GRADIENT", "GRADIENT_CHECK", "MESSAGE_TYPES", "STDERR_TAIL_BYTES",
    "FETCH_MAX_VALUES", "OUTPUT_CAP", "DUMP_WAIT_S", "KILL_GRACE_S", "DEFAULT_RUN_TIMEOUT_S", "START_TIMEOUT_S",
    "ProtocolDecodeError", "MessageError", "ProtocolVersionError", "check_ready", "encode_message",
    "decode_request", "decode_worker_message", "trace_message", "line_from_dump", "as_dict", "kind_of",
    "Run", "Fetch", "InputReply", "CheckGradient", "Ping", "Shutdown", "Request", "REQUEST_CLASSES",
    "Ready", "Started", "Output", "Progress", "TraceMessage", "Values", "Pong", "InputRequest",
    "GradientCheck", "ProtocolErrorMessage", "WorkerMessage", "MESSAGE_CLASSES",
]
