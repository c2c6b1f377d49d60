"""A trace file of a newer format version is refused with a clear message;
older files (and files without a version) load. No Qt, no worker."""

from __future__ import annotations

import json
import pathlib

import pytest

from autogradviz.engine.trace import codec
from autogradviz.engine.trace.model import VERSION, Trace

V1 = pathlib.Path(__file__).parents[1] / "data" / "trace_v1.json"


@pytest.mark.parametrize("decode", [codec.decode_trace, lambda text: codec.trace_from_builtins(json.loads(text))])
def test_newer_version_is_refused(decode):
    data = json.loads(V1.read_text())
    data["version"] = VERSION + 1
    with pytest.raises(codec.TraceVersionError) as info:
        decode(json.dumps(data))
    assert info.value.found == VERSION + 1 and info.value.known == VERSION
    assert "newer" in str(info.value) and "update autogradviz" in str(info.value)
    assert isinstance(info.value, codec.TraceDecodeError)  # callers that catch decode errors still do


def test_current_older_and_missing_versions_load():
    data = json.loads(V1.read_text())
    assert codec.decode_trace(V1.read_bytes()).graphs
    for version in (VERSION, 0, None):
        if version is None:
            data.pop("version", None)
        else:
            data["version"] = version
        trace = codec.decode_trace(json.dumps(data))
        assert isinstance(trace, Trace) and trace.graphs


def test_garbage_is_not_a_trace():
    for text in (b"\x00garbage", b"[1, 2]", b'{"format": "other"}', b""):
        with pytest.raises(codec.TraceDecodeError):
            codec.decode_trace(text)
