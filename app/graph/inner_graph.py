"""A reentrant checkpoint's node expanded into the graph its re-run built.

Reentrant checkpoint leaves one CheckpointFunctionBackward node in the graph
the learner's backward runs on; what it does inside - re-run the segment with
grad, then a nested backward through that little graph - is recorded apart
(`Recomputation.graph` and `.steps`, engine/probes/checkpoint_inner.py).
Expanding the node draws that inner graph in the same picture: its nodes
join the shown graph as a module-like group ("checkpoint 1 · recomputed"),
with one extra edge from each of its roots into the CheckpointFunctionBackward
node (the re-run's result is what that node stands for). The outer graph's
nodes and edges keep their positions in the lists, so the replay state's
edge indices stay valid; the inner nodes have no replay status of their own
(the recompute phase lights them, checkpoint_regions.py).

Pure data (no Qt, no torch): the session makes the expanded Graph once per
(graph, expanded set) and hands it to the layout like any graph.
"""

from __future__ import annotations

from typing import Iterable

import msgspec

from autogradviz.engine.trace.model import Edge, Graph



def inner_group(number: int) -> str:
    """The group (Node.module) the inner nodes of checkpoint `number` are
    drawn in: its frame's title."""
    return f"checkpoint {number} · recomputed"


def expandable(trace, graph_id: str) -> dict[str, str]:
    """{checkpoint id: inner graph id} of the reentrant checkpoints of
    `graph_id` whose re-run's inner graph was recorded."""
    out = {}
    for c in getattr(trace, "checkpoints", None) or []:
        if c.graph == graph_id and c.kind == "reentrant" and c.nodes:
            inner = next((r.graph for r in c.recomputations if r.graph), None)
            if inner is not None:
                out[c.id] = inner
    return out


def expanded_graph(trace, graph: Graph, checkpoint_ids: Iterable[str], title=inner_group) -> Graph:
    """`graph` with the inner graphs of these checkpoints drawn in (see the
    module docstring); `graph` itself when none applies. `title(number)`
    names the group of checkpoint `number`'s inner nodes (the app passes a
    translated one)."""
    inner_of = expandable(trace, graph.id)
    wanted = [cid for cid in checkpoint_ids if cid in inner_of]
    if not wanted:
        return graph
    nodes = list(graph.nodes)
    edges = list(graph.edges)
    by_id = {c.id: (k, c) for k, c in enumerate(trace.checkpoints, 1)}
    for cid in wanted:
        number, c = by_id[cid]
        try:
            ig = trace.graph(inner_of[cid])
        except KeyError:
            continue
        group = title(number)
        for n in ig.nodes:
            nodes.append(msgspec.structs.replace(n, module=group, module_class=None, module_call=None))
        edges.extend(ig.edges)
        anchor = c.nodes[0]
        for root in ig.roots:
            edges.append(Edge(src=root, dst=anchor))
    return Graph(id=graph.id, nodes=nodes, edges=edges, roots=list(graph.roots), origin=graph.origin)
