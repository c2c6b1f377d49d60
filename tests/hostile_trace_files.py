"""Hostile trace files made from a real one: each changes one thing a load must
refuse (or repair). Shared by the CLI tests (tests/engine/test_hostile_traces.py)
and the app's Open Trace tests (tests/app/test_hostile_traces_in_app.py)."""

from __future__ import annotations

import copy
import json


def summaries(obj):
    """Every tensor summary (a dict with shape and dtype) in plain trace data."""
    stack = [obj]
    while stack:
        o = stack.pop()
        if isinstance(o, dict):
            if "shape" in o and "dtype" in o:
                yield o
            stack.extend(o.values())
        elif isinstance(o, list):
            stack.extend(o)


def hostile(data: dict, kind: str) -> str:
    """The text of `data` (a real trace) made hostile in one way."""
    d = copy.deepcopy(data)
    g = d["graphs"][0]
    if kind == "shape":  # every one-element tensor now claims a billion elements
        n = 0
        for s in summaries(d):
            if s.get("numel", 0) == 1 and len(s.get("values", [])) == 1:
                s["shape"] = [1_000_000_000, 1, 1]
                n += 1
        assert n
    elif kind == "slot":
        g["edges"][0]["slot"] = 10 ** 7
    elif kind == "module_path":
        node = next(n for n in g["nodes"] if n.get("module"))
        node["module"] = ".".join(["m"] * 10_000)
    elif kind == "nested":
        depth = 100_000
        return '{"format": "autogradviz-trace", "graphs": ' + "[" * depth + "]" * depth + "}"
    elif kind == "edge_src":
        g["edges"][0]["src"] = "no-such-node"
    elif kind == "step_node":
        d["backward_runs"][0]["steps"][0]["node"] = "no-such-node"
    elif kind == "too_many_values":
        s = next(s for s in summaries(d) if s.get("numel", 0) == 1 and s.get("values"))
        s["values"] = s["values"] * 65
    elif kind == "negative_size":
        s = next(s for s in summaries(d) if s.get("shape"))
        s["shape"] = [-1] + s["shape"][1:]
    else:
        raise ValueError(kind)
    return json.dumps(d)


REFUSED = {
    "shape": "shape (1000000000, 1, 1)",
    "slot": "slot 10,000,000",
    "nested": "nested too deeply",
    "edge_src": "'no-such-node' is not in graph",
    "step_node": "'no-such-node' is not in graph",
    "too_many_values": "65 values",
    "negative_size": "a negative size",
}
