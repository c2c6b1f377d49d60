"""The worker protocol: message types, framing, version, limits (docs/worker-protocol.md).

The one module the worker (engine/worker/service.py) and both clients (the
CLI's blocking `WorkerClient` and the GUI's `WorkerProcess`) speak through, so
that framing, encoding, limits and the version check exist once. Imports
neither torch nor Qt.

Framing: one JSON object per line (UTF-8; the strings "NaN"/"Infinity"/
"-Infinity" for non-finite floats, as in trace files), `type` first. JSON
rather than MessagePack: a `trace` message then carries the trace file's
exact bytes, so the CLI writes what the worker encoded without decoding and
re-encoding it, and msgspec reads JSON about as fast as MessagePack.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any, Optional

import msgspec

from autogradviz.engine.trace import codec
from autogradviz.engine.trace.model import TensorSummary

# Sent in `ready`; a client that finds another number refuses the worker
# (ProtocolVersionError). 2: `progress` carries code + params; parts of a
# trace omit fields at their default; `values` summaries likewise. 3: input()
# is asked of the client (input_request / input_reply); `started` has `cwd`.
PROTOCOL_VERSION = 3

# -- message types ---------------------------------------------------------------------------------
# Requests (client -> worker, stdin)
RUN, FETCH, PING, SHUTDOWN = "run", "fetch", "ping", "shutdown"
INPUT_REPLY = "input_reply"  # the line a waiting input() gets (or eof), engine/worker/console_input.py
# Finite differences for one leaf of the last run, answered by `gradient_check`.
CHECK_GRADIENT = "check_gradient"
REQUEST_TYPES = (RUN, FETCH, PING, SHUTDOWN, INPUT_REPLY, CHECK_GRADIENT)
# Messages (worker -> client, stdout)
READY, STARTED, OUTPUT, PROGRESS, TRACE = "ready", "started", "output", "progress", "trace"
VALUES, PONG, PROTOCOL_ERROR = "values", "pong", "protocol_error"
INPUT_REQUEST = "input_request"  # the script waits in input(); answered by input_reply
GRADIENT_CHECK = "gradient_check"
MESSAGE_TYPES = (READY, STARTED, OUTPUT, PROGRESS, TRACE, VALUES, PONG, PROTOCOL_ERROR, INPUT_REQUEST,
                 GRADIENT_CHECK)

# -- limits ----------------------------------------------------------------------------------------
# How much of the worker's stderr a client keeps (crash reports, the
# faulthandler dump that names the running line at a timeout). One number
# for both clients: a dump of every thread's stack easily passes 4 KB.
STDERR_TAIL_BYTES = 64 * 1024
# A fetch answers with every value as JSON: ~20 bytes per element on the wire
# and more as Python floats on both sides. Past this many elements (a request
# may set its own `max_values`) the answer is an error, not a 1 GB line.
FETCH_MAX_VALUES = 4_000_000
# Output of one run that is forwarded (and kept in the trace), in characters,
# over both streams; past it the worker only counts.
OUTPUT_CAP = 1_000_000
# At a timeout the client sends SIGUSR1 (the worker's faulthandler dumps every
# stack on stderr), waits this long for the dump, then terminates the worker.
DUMP_WAIT_S = 0.2
# Terminate, then kill after this long.
KILL_GRACE_S = 2.0
DEFAULT_RUN_TIMEOUT_S = 60.0
START_TIMEOUT_S = 180.0  # importing torch on a cold disk can take a while


class ProtocolDecodeError(ValueError):
    """A line that is not a protocol message (not JSON, not an object, no type)."""


class ProtocolVersionError(RuntimeError):
    """The worker speaks another protocol version (a mixed installation)."""


def check_ready(message: dict) -> dict:
    """`message` (a `ready`) unchanged, or ProtocolVersionError naming both versions."""
    version = message.get("protocol")
    if version != PROTOCOL_VERSION:
        raise ProtocolVersionError(
            f"the worker speaks protocol version {version!r}, this client version {PROTOCOL_VERSION} "
            "(is autogradviz installed twice, in different versions?)")
    return message


# -- encoding --------------------------------------------------------------------------------------
def encode_message(message: dict) -> bytes:
    """One protocol line (ending in a newline) for a request or message dict.

    Values may be Traces and TensorSummaries (encoded as in trace files), or
    `msgspec.Raw` JSON (a trace encoded earlier). `type` leads the line."""
    if "type" not in message:
        raise ValueError("a protocol message needs a 'type'")
    if next(iter(message)) != "type":
        message = {"type": message["type"], **message}
    return codec.encode_json(message) + b"\n"


class _Envelope(msgspec.Struct):
    """First look at a line: its type, and the spans of the big typed parts
    (msgspec skips over them without building anything)."""

    type: Any = None
    id: Any = None
    trace: msgspec.Raw = msgspec.Raw()  # empty: absent (msgspec has no Optional[Raw])
    summary: msgspec.Raw = msgspec.Raw()


_ENVELOPE = msgspec.json.Decoder(_Envelope)
_PLAIN = msgspec.json.Decoder()


def decode_message(line: bytes, keep_trace_json: bool = False) -> dict:
    """The dict of one protocol line (without its newline).

    A `trace` message's `trace` is a Trace (ValueError if unreadable); with
    keep_trace_json, `trace_json` holds its JSON bytes exactly as sent, which
    is the trace file's content. A `values` message's `summary` is a
    TensorSummary (or None). Every other field as plain data, non-finite
    names left as they are (no protocol field but these is a float).
    Raises ProtocolDecodeError for a line that is not a message."""
    try:
        env = _ENVELOPE.decode(line)
    except msgspec.ValidationError:
        raise ProtocolDecodeError("a message must be a JSON object") from None
    except msgspec.DecodeError:
        return _decode_with_json(line, keep_trace_json)
    if not isinstance(env.type, str):
        raise ProtocolDecodeError("a message needs a string 'type'")
    raw = bytes(env.trace) if env.type == TRACE else b""
    if raw and raw != b"null":
        message = {"type": TRACE, "id": env.id, "trace": codec.decode_trace(raw)}
        if keep_trace_json:
            message["trace_json"] = raw
        return message
    message = _PLAIN.decode(line)
    if env.type == VALUES and message.get("summary") is not None:
        message["summary"] = codec.decode_as(TensorSummary, env.summary)
    return message


def _decode_with_json(line: bytes, keep_trace_json: bool) -> dict:
    """msgspec cannot read \\u escapes of lone surrogates; json can."""
    try:
        message = json.loads(bytes(line).decode("utf-8", "surrogateescape"))
    except ValueError as exc:
        raise ProtocolDecodeError(f"not JSON: {exc}") from None
    if not isinstance(message, dict):
        raise ProtocolDecodeError("a message must be a JSON object")
    if not isinstance(message.get("type"), str):
        raise ProtocolDecodeError("a message needs a string 'type'")
    if message["type"] == TRACE and isinstance(message.get("trace"), dict):
        if keep_trace_json:
            message["trace_json"] = codec.encode_json(message["trace"])
        message["trace"] = codec.trace_from_builtins(message["trace"])
    elif message["type"] == VALUES and isinstance(message.get("summary"), dict):
        message["summary"] = codec.from_builtins(TensorSummary, message["summary"])
    return message


def trace_message(run_id: Any, trace_json: bytes) -> bytes:
    """The `trace` line for a trace encoded already (codec.encode_trace)."""
    return encode_message({"type": TRACE, "id": run_id, "trace": msgspec.Raw(trace_json)})


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
    "PROTOCOL_VERSION", "REQUEST_TYPES", "CHECK_GRADIENT", "GRADIENT_CHECK", "MESSAGE_TYPES", "STDERR_TAIL_BYTES", "FETCH_MAX_VALUES",
    "OUTPUT_CAP", "DUMP_WAIT_S", "KILL_GRACE_S", "DEFAULT_RUN_TIMEOUT_S", "START_TIMEOUT_S",
    "ProtocolDecodeError", "ProtocolVersionError", "check_ready", "encode_message", "decode_message",
    "trace_message", "line_from_dump",
]
