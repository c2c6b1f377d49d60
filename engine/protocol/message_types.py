"""Every protocol message as a typed struct, and the one place lines become them.

docs/worker-protocol.md lists the messages; here each one is a msgspec Struct
in a tagged union (the tag is the wire's `type`), so a line is decoded and
checked once, at the boundary: the worker's service, the GUI's QProcess
adapter and the CLI's blocking adapter then dispatch on the struct's class and
read typed attributes, never `dict.get("type")` and never a KeyError deep
inside. A line that does not fit is one `MessageError` naming the message kind
and the field.

Two parts are not decoded by the union itself: a `trace` message's trace and a
`values` message's summary go through engine/trace/codec.py (names of
non-finite floats, references, the trace's own version check), from the raw
JSON span msgspec skips over without building objects. Imports neither torch
nor Qt.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal, Optional, Union, cast

import msgspec

from autogradviz.engine.trace import codec
from autogradviz.engine.trace.model import TensorSummary, Trace

FETCH_MAX_VALUES = 4_000_000  # (messages.py re-exports it; the default of Fetch.max_values)

# A float of a reply that may be non-finite: strict JSON sends those as names.
JsonFloat = Union[float, Literal["NaN", "Infinity", "-Infinity"]]
Device = Literal["cpu", "cuda"]
Stream = Literal["stdout", "stderr"]


class ProtocolDecodeError(ValueError):
    """A line that is not a protocol message (not JSON, not an object, no type)."""


class MessageError(ProtocolDecodeError):
    """A line that is JSON but not a valid message: `kind` is its `type` (None
    when it has none), `field` the field that does not fit (None when the whole
    line is wrong), `id` its id when it has one (so the answer can name it)."""

    def __init__(self, kind: Optional[str], field: Optional[str], detail: str, id: Any = None):
        self.kind, self.field, self.detail, self.id = kind, field, detail, id
        where = f"{kind or 'message'}" + (f": {field!r}" if field else "")
        super().__init__(f"{where}: {detail}")


class _Message(msgspec.Struct, tag_field="type", kw_only=True):
    """Base of every message: the tag is the wire's `type`, written first."""


# -- requests (client -> worker, stdin) --------------------------------------------------------------
class Run(_Message, tag="run", omit_defaults=True):
    id: int
    source: str
    filename: str = "<editor>"
    device: Device = "cpu"
    steps: bool = True
    values: bool = True
    no_checkpoint: bool = False
    # An absolute path where no file is yet (`autogradviz trace -o FILE`: a
    # temporary name beside FILE): the worker creates it and writes the
    # trace file's bytes there instead of sending them; its `trace` message
    # then says `written` and carries only the trace's outline. When it
    # cannot write there, it sends the whole trace as usual.
    trace_file: Optional[str] = None


class Fetch(_Message, tag="fetch", omit_defaults=True):
    id: int
    tensor: str
    max_values: int = FETCH_MAX_VALUES


class InputReply(_Message, tag="input_reply", omit_defaults=True):
    id: int
    text: Optional[str] = None
    eof: bool = False

    def line(self) -> Optional[str]:
        """The line input() returns (its first line, no newline), or None: end of input."""
        if self.eof or self.text is None:
            return None
        return self.text.split("\n", 1)[0].rstrip("\r")


class CheckGradient(_Message, tag="check_gradient", omit_defaults=True):
    id: int
    leaf: Optional[str] = None
    run: Optional[int] = None
    grad_tensor: Optional[str] = None
    max_elements: Optional[int] = None


class Ping(_Message, tag="ping"):
    id: Optional[int] = None


class Shutdown(_Message, tag="shutdown"):
    pass


Request = Union[Run, Fetch, InputReply, CheckGradient, Ping, Shutdown]
REQUEST_CLASSES: tuple = Request.__args__  # type: ignore[attr-defined]


# -- messages (worker -> client, stdout) ---------------------------------------------------------------
class Ready(_Message, tag="ready"):
    protocol: Any  # (any value: a worker of another version is refused by check_ready, not here)
    pid: Optional[int] = None
    torch_version: str = ""
    cuda_available: bool = False
    cuda_devices: list[str] = []
    python: str = ""
    pgid: Optional[int] = None


class Started(_Message, tag="started"):
    id: int
    cwd: str = ""
    pid: Optional[int] = None


class Output(_Message, tag="output"):
    id: int
    stream: Stream = "stdout"
    text: str = ""


class Progress(_Message, tag="progress"):
    id: Optional[int]
    code: str
    params: dict[str, Any] = {}


class TraceMessage(_Message, tag="trace", omit_defaults=True):
    """`trace`: the Trace; `trace_json`: its bytes exactly as sent (the trace
    file's content), kept only when decoding asked for it (never sent)."""

    id: int
    trace: Trace
    trace_json: Optional[bytes] = None
    # The bytes the worker wrote to the run's `trace_file` (the whole trace
    # file, its final newline included): then `trace` is the outline only
    # (codec.encode_outline) and `trace_json` those outline bytes.
    written: Optional[int] = None


class Values(_Message, tag="values"):
    id: Optional[int]
    tensor: str = ""
    summary: Optional[TensorSummary] = None
    error: Optional[str] = None


class Pong(_Message, tag="pong"):
    id: Optional[int] = None


class InputRequest(_Message, tag="input_request"):
    id: int
    prompt: str = ""


class GradientCheck(_Message, tag="gradient_check", omit_defaults=True):
    """Either the result (shape, fd, loss, ...) or `error` (a code) + `message`."""

    id: Optional[int]
    leaf: Optional[str] = None
    run: Optional[int] = None
    shape: Optional[list[int]] = None
    fd: Optional[list[JsonFloat]] = None
    loss: Optional[JsonFloat] = None
    loss_recorded: Optional[JsonFloat] = None
    step: Optional[JsonFloat] = None
    seconds: Optional[float] = None
    autograd: Optional[list[JsonFloat]] = None
    error: Optional[str] = None
    message: Optional[str] = None

    def __post_init__(self) -> None:
        for name in ("fd", "loss", "loss_recorded", "step", "autograd"):  # names back to floats
            value = getattr(self, name)
            if value is not None:
                setattr(self, name, codec.decode_value(value))


class ProtocolErrorMessage(_Message, tag="protocol_error"):
    id: Optional[int] = None
    message: str = ""


WorkerMessage = Union[Ready, Started, Output, Progress, TraceMessage, Values, Pong, InputRequest,
                      GradientCheck, ProtocolErrorMessage]
MESSAGE_CLASSES: tuple = WorkerMessage.__args__  # type: ignore[attr-defined]
Message = Union[Request, WorkerMessage]


def kind_of(cls_or_message) -> str:
    """The wire `type` of a message class or message."""
    cls: type[msgspec.Struct] = cls_or_message if isinstance(cls_or_message, type) else type(cls_or_message)
    return cast(str, cls.__struct_config__.tag)  # (every message class is tagged with its name)


# -- what is decoded on the wire (the big parts as raw spans) --------------------------------------------
class _TraceWire(_Message, tag="trace"):
    id: Any = None
    trace: msgspec.Raw = msgspec.Raw()  # empty: absent (msgspec has no Optional[Raw])
    written: Optional[int] = None


class _ValuesWire(_Message, tag="values"):
    id: Optional[int] = None
    tensor: str = ""
    summary: msgspec.Raw = msgspec.Raw()
    error: Optional[str] = None


_WireMessage = Union[Ready, Started, Output, Progress, _TraceWire, _ValuesWire, Pong, InputRequest,
                     GradientCheck, ProtocolErrorMessage]
_REQUESTS = msgspec.json.Decoder(Request)
_MESSAGES = msgspec.json.Decoder(_WireMessage)


class _Kind(msgspec.Struct):
    type: Any = None
    id: Any = None


_KIND = msgspec.json.Decoder(_Kind)
_FIELD_RE = re.compile(r"(?:at `\$\.(?P<at>[A-Za-z_]\w*)|required field `(?P<req>\w+)`)")


def decode_request(line: bytes) -> Request:
    """The request of one line (without its newline); MessageError (or
    ProtocolDecodeError for what is not a JSON object) when it does not fit."""
    return _decode(line, _REQUESTS, Request)


def decode_worker_message(line: bytes, keep_trace_json: bool = False,
                          trace_outline: bool = False) -> WorkerMessage:
    """The worker's message of one line. A `trace` message's trace is decoded
    by the trace codec (MessageError naming the field `trace` when it is
    unreadable); with keep_trace_json its bytes are kept as sent, and with
    trace_outline too only its top-level facts are decoded
    (codec.decode_trace_outline: for a reader that writes the bytes as they
    are and reports how the run ended)."""
    span = _trace_span(line)
    if span is not None:
        try:
            return _trace_message(span[0], span[1], keep_trace_json, trace_outline and keep_trace_json)
        except MessageError:
            pass  # (not a line trace_message wrote after all: decoded in full below)
    wire = _decode(line, _MESSAGES, _WireMessage)
    if isinstance(wire, _TraceWire):
        msg = _trace_message(wire.id, bytes(wire.trace), keep_trace_json, trace_outline and keep_trace_json)
        if wire.written is not None:
            msg.written = wire.written
        return msg
    if isinstance(wire, _ValuesWire):
        return Values(id=wire.id, tensor=wire.tensor, error=wire.error,
                      summary=_summary(wire.id, bytes(wire.summary)))
    return wire


_TRACE_START = b'{"type":"trace","id":'
_TRACE_KEY = b',"trace":'


def _trace_span(line: bytes) -> Optional[tuple[int, bytes]]:
    """(run id, trace bytes) of a `trace` line as trace_message writes it,
    found without parsing the line: the trace (34 MB for 50,000 nodes) is
    then parsed once, by the trace codec, instead of once more to find where
    it ends. None for any other line (decoded in full)."""
    if not line.startswith(_TRACE_START):
        return None
    start = len(_TRACE_START)
    at = line.find(_TRACE_KEY, start, start + 24)
    if at < 0:
        return None
    digits = line[start:at]
    if not digits.isdigit() or (digits[:1] == b"0" and digits != b"0"):
        return None
    end = len(line)
    while end > at and line[end - 1] in b" \t\r\n":
        end -= 1
    if line[end - 1] != 0x7D or end - 1 <= at + len(_TRACE_KEY):  # (the line's closing "}")
        return None
    return int(digits), bytes(memoryview(line)[at + len(_TRACE_KEY):end - 1])


def _decode(line: bytes, decoder: msgspec.json.Decoder, union: Any) -> Any:
    try:
        return decoder.decode(line)
    except msgspec.ValidationError as exc:
        raise _message_error(line, exc) from None
    except msgspec.DecodeError:
        return _decode_with_json(line, union)


def _message_error(line: Any, exc: Exception, plain: Any = None) -> ProtocolDecodeError:
    """One clear error: the line's kind, the field msgspec names, its words."""
    if plain is None:
        try:
            head = _KIND.decode(line)
            kind, rid = head.type, head.id
        except (msgspec.DecodeError, msgspec.ValidationError):
            raise ProtocolDecodeError("a message must be a JSON object") from None
    else:
        kind, rid = plain.get("type"), plain.get("id")
    text = str(exc)
    if not isinstance(kind, str):
        return MessageError(None, "type", "a message needs a string 'type'", rid)
    found = _FIELD_RE.search(text)
    field = (found.group("at") or found.group("req")) if found else None
    if field == "type":
        return MessageError(kind, "type", f"unknown message type {kind!r}", rid)
    detail = text.split(" - at ", 1)[0]
    return MessageError(kind, field, detail, rid if isinstance(rid, int) else None)


def _decode_with_json(line: bytes, union: Any) -> Any:
    """msgspec cannot read \\u escapes of lone surrogates (a script printed
    one; the worker then writes the line as ASCII JSON); json can."""
    try:
        plain = json.loads(bytes(line).decode("utf-8", "surrogateescape"))
    except (ValueError, RecursionError) as exc:
        raise ProtocolDecodeError(f"not JSON: {exc}") from None
    if not isinstance(plain, dict):
        raise ProtocolDecodeError("a message must be a JSON object")
    big = {k: plain.pop(k) for k in ("trace", "summary") if plain.get("type") in ("trace", "values") and k in plain}
    try:
        wire = msgspec.convert(plain, union)
    except msgspec.ValidationError as exc:
        raise _message_error(None, exc, plain) from None
    if isinstance(wire, _TraceWire):
        return _trace_from_plain(wire.id, big.get("trace"))
    if isinstance(wire, _ValuesWire):
        summary = big.get("summary")
        try:
            value = None if summary is None else codec.from_builtins(TensorSummary, summary)
        except ValueError as exc:
            raise MessageError("values", "summary", str(exc), wire.id) from None
        return Values(id=wire.id, tensor=wire.tensor, error=wire.error, summary=value)
    return wire


def _trace_message(rid: Any, raw: bytes, keep_trace_json: bool, outline: bool = False) -> TraceMessage:
    if not raw or raw == b"null":
        raise MessageError("trace", "trace", "a trace message needs its trace", rid)
    try:
        trace = (codec.decode_trace_outline if outline else codec.decode_trace)(raw)
    except ValueError as exc:
        raise MessageError("trace", "trace", str(exc), rid) from None
    return TraceMessage(id=rid, trace=trace, trace_json=raw if keep_trace_json else None)


def _trace_from_plain(rid: Any, plain: Any) -> TraceMessage:
    try:
        trace = codec.trace_from_builtins(plain)
    except ValueError as exc:
        raise MessageError("trace", "trace", str(exc), rid) from None
    return TraceMessage(id=rid, trace=trace, trace_json=None)


def _summary(rid: Any, raw: bytes) -> Optional[TensorSummary]:
    if not raw or raw == b"null":
        return None
    try:
        return codec.decode_as(TensorSummary, raw)
    except ValueError as exc:
        raise MessageError("values", "summary", str(exc), rid) from None


# -- encoding -------------------------------------------------------------------------------------------
def as_dict(message: Any) -> dict:
    """The message as the wire's object (`type` first): fields at their
    default left out where the message says so (omit_defaults), `trace_json`
    never. Traces and summaries stay objects (the codec writes them)."""
    cls = type(message)
    config = cls.__struct_config__
    defaults = dict(zip(cls.__struct_fields__[len(cls.__struct_fields__) - len(cls.__struct_defaults__):],
                        cls.__struct_defaults__))
    out: dict = {"type": config.tag}
    for name in cls.__struct_fields__:
        value = getattr(message, name)
        if name == "trace_json" or (config.omit_defaults and name in defaults and _is_default(value, defaults[name])):
            continue
        out[name] = value
    return out


def _is_default(value: Any, default: Any) -> bool:
    if default is msgspec.NODEFAULT:
        return False
    try:
        return bool(value == default) and type(value) is type(default)
    except Exception:  # (an array compared elementwise)
        return False


def encode_message(message: Any) -> bytes:
    """One protocol line (ending in a newline) for a typed message. A
    `TraceMessage` carries its trace as in trace files (its `trace_json`, when
    set, is written as it is: the worker encodes a trace once)."""
    if not isinstance(message, _Message):
        raise TypeError(f"not a protocol message: {type(message).__name__}")
    if isinstance(message, TraceMessage):
        data = message.trace_json if message.trace_json is not None else codec.encode_trace(message.trace)
        return trace_message(message.id, data, message.written)
    return codec.encode_json(as_dict(message)) + b"\n"


def trace_message(run_id: Any, trace_json: bytes, written: Optional[int] = None) -> bytes:
    """The `trace` line for a trace encoded already (codec.encode_trace);
    `written`: the bytes of the trace file the worker wrote (Run.trace_file),
    `trace_json` then being the trace's outline."""
    return b"".join(trace_message_parts(run_id, trace_json, written))


def trace_message_parts(run_id: Any, trace_json: bytes,
                        written: Optional[int] = None) -> tuple[bytes, bytes, bytes]:
    """trace_message's line in three parts, the trace's bytes as they are (a
    writer sends them one after the other: a 50,000-node trace is 34 MB)."""
    head = b'{"type":"trace","id":' + codec.encode_json(run_id)
    if written is not None:
        head += b',"written":' + codec.encode_json(written)
    return head + b',"trace":', trace_json, b"}\n"
