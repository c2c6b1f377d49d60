"""The typed protocol (engine/protocol/message_types.py): every message
round-trips through its wire line, and a line that does not fit is one clear
error (MessageError: the message kind and the field), never a KeyError deep
inside a client. The wire stays docs/worker-protocol.md's: `type` first, the
field names of the tables there.
"""

from __future__ import annotations

import json
import math

import pytest

from autogradviz.engine.protocol.messages import (
    MESSAGE_CLASSES, MESSAGE_TYPES, PROTOCOL_VERSION, REQUEST_CLASSES, REQUEST_TYPES, CheckGradient, Fetch,
    GradientCheck, InputReply, InputRequest, MessageError, Output, Ping, Pong, Progress, ProtocolDecodeError,
    ProtocolErrorMessage, Ready, Run, Shutdown, Started, TraceMessage, Values, decode_request,
    decode_worker_message, encode_message, kind_of)
from autogradviz.engine.protocol import message_types
from autogradviz.engine.trace import codec
from autogradviz.engine.trace.model import ErrorInfo, Graph, Node, TensorSummary, Trace

REQUESTS = [
    Run(id=1, source="print(1)\n"),
    Run(id=2, source="x = 1", filename="/tmp/s.py", device="cuda", steps=False, values=False, no_checkpoint=True),
    Fetch(id=3, tensor="t7"),
    Fetch(id=4, tensor="t8", max_values=10),
    InputReply(id=5, text="Ada"),
    InputReply(id=6, eof=True),
    CheckGradient(id=7, leaf="w", run=0),
    CheckGradient(id=8, leaf="w", run=1, grad_tensor="t9", max_elements=100),
    Ping(id=9),
    Shutdown(),
]

SUMMARY = TensorSummary(shape=[3], dtype="float32", device="cpu", values=[1.0, float("inf"), -2.5], numel=3,
                        min=-2.5, max=float("inf"), id="t1")
MESSAGES = [
    Ready(protocol=PROTOCOL_VERSION, pid=10, torch_version="2.13.0", cuda_available=True,
          cuda_devices=["NVIDIA H100"], python="3.12.1", pgid=10),
    Ready(protocol=PROTOCOL_VERSION, pid=10, torch_version="2.13.0", python="3.12.1", pgid=None),
    Started(id=1, cwd="/home/ada", pid=11),
    Output(id=1, stream="stderr", text="h\u00e9llo \u4e16\u754c\nnext"),
    Progress(id=1, code="summarising", params={"nodes": 10000}),
    TraceMessage(id=1, trace=Trace(script="s.py", stdout="hi\n",
                                   error=ErrorInfo(type="ValueError", message="bad", line=2))),
    Values(id=2, tensor="t1", summary=SUMMARY),
    Values(id=3, tensor="t2", summary=None, error="no tensor 't2' in the last run"),
    Pong(id=4),
    InputRequest(id=1, prompt="name? "),
    GradientCheck(id=5, leaf="w", run=0, shape=[2], fd=[2.0, float("-inf")], loss=1.5, loss_recorded=1.5,
                  step=1e-6, seconds=0.25, autograd=[2.0, 2.0]),
    GradientCheck(id=6, leaf="w", run=3, error="backward_not_reached", message="only 1 backward"),
    ProtocolErrorMessage(id=None, message="not a request: not JSON"),
    ProtocolErrorMessage(id=7, message="invalid request"),
]


def test_the_lists_cover_every_message_type():
    assert {kind_of(m) for m in REQUESTS} == set(REQUEST_TYPES) == {kind_of(c) for c in REQUEST_CLASSES}
    assert {kind_of(m) for m in MESSAGES} == set(MESSAGE_TYPES) == {kind_of(c) for c in MESSAGE_CLASSES}
    assert set(REQUEST_TYPES) == {"run", "fetch", "input_reply", "check_gradient", "ping", "shutdown"}
    assert set(MESSAGE_TYPES) == {"ready", "started", "output", "progress", "trace", "values", "pong",
                                  "input_request", "gradient_check", "protocol_error"}


@pytest.mark.parametrize("request_", REQUESTS, ids=lambda m: kind_of(m))
def test_every_request_round_trips(request_):
    line = encode_message(request_)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert line.startswith(b'{"type":"%s"' % kind_of(request_).encode())
    assert decode_request(line.rstrip(b"\n")) == request_


def _same(a, b) -> bool:
    """Equal, with traces and summaries compared as their file form (NaN-safe)."""
    if isinstance(a, TraceMessage):
        return a.id == b.id and codec.encode_trace(a.trace) == codec.encode_trace(b.trace)
    return encode_message(a) == encode_message(b)


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: kind_of(m))
def test_every_message_round_trips(message):
    line = encode_message(message)
    assert line.startswith(b'{"type":"%s"' % kind_of(message).encode()) and line.count(b"\n") == 1
    json.loads(line)  # strict JSON: no NaN or Infinity literals
    decoded = decode_worker_message(line.rstrip(b"\n"))
    assert type(decoded) is type(message)
    assert _same(decoded, message)
    if not isinstance(message, (TraceMessage, Values, GradientCheck)):
        assert decoded == message


def test_non_finite_floats_cross_as_names_and_come_back_as_floats():
    message = GradientCheck(id=1, leaf="w", run=0, fd=[float("nan"), float("inf")], loss=float("-inf"))
    line = encode_message(message)
    assert b'"NaN"' in line and b'"Infinity"' in line and b'"-Infinity"' in line
    back = decode_worker_message(line)
    assert math.isnan(back.fd[0]) and back.fd[1] == math.inf and back.loss == -math.inf
    values = decode_worker_message(encode_message(Values(id=2, tensor="t1", summary=SUMMARY)))
    assert values.summary.values[1] == math.inf and isinstance(values.summary, TensorSummary)


def test_a_trace_keeps_its_bytes_when_asked():
    data = codec.encode_trace(Trace(script="s.py"))
    line = encode_message(TraceMessage(id=3, trace=Trace(), trace_json=data))
    assert line == b'{"type":"trace","id":3,"trace":' + data + b"}\n", "a trace encoded once is sent as it is"
    kept = decode_worker_message(line.rstrip(b"\n"), keep_trace_json=True)
    assert kept.trace_json == data and kept.trace.script == "s.py"
    assert decode_worker_message(line.rstrip(b"\n")).trace_json is None


def test_a_lone_surrogate_line_is_read_too():
    line = b'{"type":"output","id":1,"stream":"stdout","text":"\\ud800!"}'
    assert decode_worker_message(line) == Output(id=1, stream="stdout", text="\ud800!")
    trace_line = b'{"type":"trace","id":2,"trace":' + codec.encode_trace(Trace(stdout="\ud800")) + b"}"
    assert b"\\ud800" in trace_line
    assert decode_worker_message(trace_line).trace.stdout == "\ud800"


def test_default_fields_are_left_out_where_the_protocol_says_optional():
    assert encode_message(Run(id=1, source="x")) == b'{"type":"run","id":1,"source":"x"}\n'
    assert encode_message(InputReply(id=1, eof=True)) == b'{"type":"input_reply","id":1,"eof":true}\n'
    assert encode_message(Shutdown()) == b'{"type":"shutdown"}\n'
    assert encode_message(ProtocolErrorMessage(message="m")) == b'{"type":"protocol_error","id":null,"message":"m"}\n'


# -- malformed lines: one clear error each ---------------------------------------------------------------
BAD_REQUESTS = [
    ('{"type": "run", "id": 8, "source": 42}', "run", "source", 8),
    ('{"type": "run", "id": 8}', "run", "source", 8),
    ('{"type": "run", "id": 9, "source": "x", "device": "tpu"}', "run", "device", 9),
    ('{"type": "run", "id": 11, "source": "x", "steps": "no"}', "run", "steps", 11),
    ('{"type": "run", "id": "one", "source": "x"}', "run", "id", None),
    ('{"type": "fetch", "id": 10}', "fetch", "tensor", 10),
    ('{"type": "fetch", "id": 10, "tensor": "t", "max_values": "all"}', "fetch", "max_values", 10),
    ('{"type": "input_reply", "id": 1, "text": 5}', "input_reply", "text", 1),
    ('{"type": "input_reply", "id": 1, "eof": "yes"}', "input_reply", "eof", 1),
    ('{"type": "check_gradient", "id": 2, "leaf": "w", "run": "first"}', "check_gradient", "run", 2),
    ('{"type": "check_gradient", "leaf": "w"}', "check_gradient", "id", None),
    ('{"type": "ping", "id": [1]}', "ping", "id", None),
    ('{"type": "launch-missiles", "id": 7}', "launch-missiles", "type", 7),
    ('{"type": 5}', None, "type", None),
    ('{"id": 5}', None, "type", 5),
]
BAD_MESSAGES = [
    ('{"type": "ready", "pid": 1}', "ready", "protocol", None),
    ('{"type": "ready", "protocol": 3, "cuda_devices": "gpu"}', "ready", "cuda_devices", None),
    ('{"type": "started", "id": 1, "cwd": 3}', "started", "cwd", 1),
    ('{"type": "output", "id": 1, "stream": "stdin", "text": ""}', "output", "stream", 1),
    ('{"type": "progress", "id": 1, "code": "x", "params": [1]}', "progress", "params", 1),
    ('{"type": "progress", "id": 1}', "progress", "code", 1),
    ('{"type": "trace", "id": 4, "trace": {"format": "something else"}}', "trace", "trace", 4),
    ('{"type": "trace", "id": 4}', "trace", "trace", 4),
    ('{"type": "values", "id": 2, "tensor": "t", "summary": {"shape": "wide"}}', "values", "summary", 2),
    ('{"type": "pong", "id": "x"}', "pong", "id", None),
    ('{"type": "input_request", "id": 1, "prompt": null}', "input_request", "prompt", 1),
    ('{"type": "gradient_check", "id": 1, "fd": ["many"]}', "gradient_check", "fd", 1),
    ('{"type": "protocol_error", "id": 1, "message": 7}', "protocol_error", "message", 1),
    ('{"type": "run", "id": 1, "source": "x"}', "run", "type", 1),  # a request is not a worker's message
]


@pytest.mark.parametrize("line,kind,field,rid", BAD_REQUESTS, ids=[b[0] for b in BAD_REQUESTS])
def test_a_malformed_request_is_one_message_error(line, kind, field, rid):
    with pytest.raises(MessageError) as info:
        decode_request(line.encode())
    err = info.value
    assert (err.kind, err.field, err.id) == (kind, field, rid)
    assert field in str(err) and (kind is None or kind in str(err))


@pytest.mark.parametrize("line,kind,field,rid", BAD_MESSAGES, ids=[b[0] for b in BAD_MESSAGES])
def test_a_malformed_message_is_one_message_error(line, kind, field, rid):
    with pytest.raises(MessageError) as info:
        decode_worker_message(line.encode())
    assert (info.value.kind, info.value.field, info.value.id) == (kind, field, rid)


@pytest.mark.parametrize("line", [b"this is not json", b"[1, 2, 3]", b'"text"', b"{"])
def test_what_is_not_a_json_object_is_a_decode_error(line):
    for decode in (decode_request, decode_worker_message):
        with pytest.raises(ProtocolDecodeError) as info:
            decode(line)
        assert not isinstance(info.value, KeyError)


def test_every_kind_has_a_malformed_case():
    assert {b[1] for b in BAD_REQUESTS} >= set(REQUEST_TYPES) - {"shutdown"}  # (shutdown has no fields)
    assert {b[1] for b in BAD_MESSAGES} >= set(MESSAGE_TYPES)


def test_encoding_refuses_what_is_not_a_message():
    with pytest.raises(TypeError):
        encode_message({"type": "ping", "id": 1})


def test_a_trace_line_is_read_alike_however_it_is_laid_out():
    """A `trace` line as trace_message writes it is cut at its trace without
    a first parse (message_types._trace_span); the same line laid out
    otherwise, or with more after the trace, goes the full way: same results."""
    trace = Trace(script="s.py", stdout="out", graphs=[Graph(id="g1", nodes=[Node("n1", "X", "op")])])
    data = codec.encode_trace(trace)
    line = b'{"type":"trace","id":7,"trace":' + data + b"}\n"
    assert message_types._trace_span(line) == (7, data)
    spaced = b'{"type": "trace", "id": 7, "trace": ' + data + b"}"
    extra = b'{"type":"trace","id":7,"trace":' + data + b',"more":1}'
    assert message_types._trace_span(spaced) is None
    for variant in (line, spaced, extra):
        for keep, outline in ((False, False), (True, False), (True, True)):
            got = decode_worker_message(variant, keep_trace_json=keep, trace_outline=outline)
            assert got.id == 7 and got.trace.script == "s.py" and got.trace.stdout == "out"
            assert got.trace.graphs == ([] if outline else trace.graphs)
            assert got.trace_json == (data if keep else None)
    for bad in (b'{"type":"trace","id":7,"trace":' + data[:-1] + b"}",  # cut short
                b'{"type":"trace","id":07,"trace":' + data + b"}",  # not JSON
                b'{"type":"trace","id":7,"trace":{"format":"other"}}'):
        with pytest.raises((MessageError, ProtocolDecodeError)):
            decode_worker_message(bad, keep_trace_json=True, trace_outline=True)


def test_a_trace_line_in_parts_is_the_line():
    data = codec.encode_trace(Trace(script="s.py"))
    parts = message_types.trace_message_parts(9, data)
    assert parts[1] is data and b"".join(parts) == message_types.trace_message(9, data)
    assert decode_worker_message(b"".join(parts), keep_trace_json=True).trace_json == data
