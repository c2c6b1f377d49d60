"""Synthetic trace graphs shaped like real ones, for layout tests and benchmarks.

Real traces need torch and a worker; the layout only needs the graph's shape.
These builders mimic what the recorder produces (forward-direction edges,
AccumulateGrad leaves, module paths and call numbers) at any size, fast.
Test-only, so under tests/ (not shipped in the package); benchmarks/ put
tests/ on sys.path to use it.
"""

from __future__ import annotations

import random

from autogradviz.engine.trace.model import Edge, Graph, Node, TensorSummary


def _t(*shape) -> TensorSummary:
    return TensorSummary(shape=list(shape), dtype="torch.float32", device="cpu")


class _B:
    def __init__(self, gid="g0"):
        self.g = Graph(id=gid)
        self.n = 0
        self.call = 0

    def node(self, op, kind="op", label=None, module=None, cls=None, call=None, shape=(4, 4)):
        nid = f"n{self.n}"
        self.n += 1
        self.g.nodes.append(Node(id=nid, op=op, kind=kind, label=label, tensor=_t(*shape),
                                 module=module, module_class=cls, module_call=call))
        return nid

    def leaf(self, label, shape=(4, 4), module=None, cls=None):
        return self.node("AccumulateGrad", "leaf", label, module=module, cls=cls, shape=shape)

    def edge(self, src, dst, slot=0):
        self.g.edges.append(Edge(src=src, dst=dst, input_nr=0, slot=slot))


def mlp(layers: int = 3, width: int = 16) -> Graph:
    b = _B()
    x = None
    for i in range(layers):
        w = b.leaf(f"fc{i}.weight", (width, width))
        bias = b.leaf(f"fc{i}.bias", (width,))
        b.call += 1
        t = b.node("TBackward0", module=f"fc{i}", cls="Linear", call=b.call)
        b.edge(w, t)
        mm = b.node("AddmmBackward0", module=f"fc{i}", cls="Linear", call=b.call)
        b.edge(bias, mm, 0)
        if x is not None:
            b.edge(x, mm, 1)
        b.edge(t, mm, 2)
        x = mm
        if i < layers - 1:
            r = b.node("ReluBackward0")
            b.edge(x, r)
            x = r
    s = b.node("MeanBackward0", label="loss", shape=())
    b.edge(x, s)
    b.g.roots = [s]
    return b.g


def rnn(steps: int = 20, with_calls: bool = True) -> Graph:
    """An RNNCell unrolled over `steps` (5 nodes per call, shared weights),
    plus a running loss outside the module, like a typical training script."""
    b = _B()
    w_ih = b.leaf("cell.weight_ih", (8, 8))
    w_hh = b.leaf("cell.weight_hh", (8, 8))
    bias = b.leaf("cell.bias_ih", (8,))
    h = None
    loss = None
    for _ in range(steps):
        b.call += 1
        c = b.call if with_calls else None
        kw = dict(module="cell", cls="RNNCell", call=c)
        t1 = b.node("TBackward0", **kw)
        b.edge(w_ih, t1)
        a1 = b.node("AddmmBackward0", **kw)
        b.edge(bias, a1, 0)
        b.edge(t1, a1, 2)
        t2 = b.node("TBackward0", **kw)
        b.edge(w_hh, t2)
        a2 = b.node("AddBackward0", **kw)
        b.edge(a1, a2, 0)
        if h is not None:
            mm = b.node("MmBackward0", **kw)
            b.edge(h, mm, 0)
            b.edge(t2, mm, 1)
            b.edge(mm, a2, 1)
        else:
            b.edge(t2, a2, 1)
        h = b.node("TanhBackward0", **kw)
        b.edge(a2, h)
        s = b.node("SumBackward0")
        b.edge(h, s)
        if loss is None:
            loss = s
        else:
            nl = b.node("AddBackward0", label="loss")
            b.edge(loss, nl, 0)
            b.edge(s, nl, 1)
            loss = nl
    b.g.roots = [loss]
    return b.g


def transformer(blocks: int = 2, heads_ops: int = 6) -> Graph:
    """Blocks of attention + MLP with residual connections, distinct module
    paths per block (like nn.TransformerEncoder's layers.0, layers.1 ...)."""
    b = _B()
    x = b.leaf("x", (2, 8, 16))
    for i in range(blocks):
        base = f"encoder.layers.{i}"
        b.call += 1
        kw = dict(module=f"{base}.self_attn", cls="MultiheadAttention", call=b.call)
        q = b.node("AddmmBackward0", **kw)
        b.edge(x, q)
        b.edge(b.leaf(f"{base}.self_attn.in_proj_weight", (48, 16)), q)
        cur = q
        for j in range(heads_ops):
            nxt = b.node(["ViewBackward0", "TransposeBackward0", "BmmBackward0", "SoftmaxBackward0",
                          "MulBackward0", "CloneBackward0"][j % 6], **kw)
            b.edge(cur, nxt)
            if j == 2:
                b.edge(q, nxt, 1)
            cur = nxt
        b.call += 1
        o = b.node("AddmmBackward0", module=f"{base}.self_attn.out_proj", cls="Linear", call=b.call)
        b.edge(cur, o)
        b.edge(b.leaf(f"{base}.self_attn.out_proj.weight", (16, 16)), o)
        r1 = b.node("AddBackward0", module=base, cls="TransformerEncoderLayer", call=b.call)
        b.edge(x, r1, 0)
        b.edge(o, r1, 1)
        b.call += 1
        n1 = b.node("NativeLayerNormBackward0", module=f"{base}.norm1", cls="LayerNorm", call=b.call)
        b.edge(r1, n1)
        b.edge(b.leaf(f"{base}.norm1.weight", (16,)), n1)
        b.call += 1
        l1 = b.node("AddmmBackward0", module=f"{base}.linear1", cls="Linear", call=b.call)
        b.edge(n1, l1)
        b.edge(b.leaf(f"{base}.linear1.weight", (64, 16)), l1)
        act = b.node("ReluBackward0", module=base, cls="TransformerEncoderLayer")
        b.edge(l1, act)
        b.call += 1
        l2 = b.node("AddmmBackward0", module=f"{base}.linear2", cls="Linear", call=b.call)
        b.edge(act, l2)
        b.edge(b.leaf(f"{base}.linear2.weight", (16, 64)), l2)
        r2 = b.node("AddBackward0", module=base, cls="TransformerEncoderLayer")
        b.edge(n1, r2, 0)
        b.edge(l2, r2, 1)
        x = r2
    s = b.node("MeanBackward0", label="loss", shape=())
    b.edge(x, s)
    b.g.roots = [s]
    return b.g


def gpt(blocks: int = 2) -> Graph:
    """A GPT-2-shaped graph: token and position embeddings, `blocks` blocks
    nested three deep (h.{i}.attn.qkv ...) with two residual connections
    each, a final LayerNorm and an LM head tied to the token embedding (one
    leaf used in two modules far apart)."""
    b = _B()

    def linear(path, x, out=16, inp=16):
        b.call += 1
        kw = dict(module=path, cls="Linear", call=b.call)
        t = b.node("TBackward0", **kw)
        b.edge(b.leaf(f"{path}.weight", (out, inp), module=path, cls="Linear"), t)
        v = b.node("ViewBackward0", **kw)
        b.edge(x, v)
        mm = b.node("AddmmBackward0", **kw)
        b.edge(b.leaf(f"{path}.bias", (out,), module=path, cls="Linear"), mm, 0)
        b.edge(v, mm, 1)
        b.edge(t, mm, 2)
        o = b.node("ViewBackward0", **kw)
        b.edge(mm, o)
        return o

    def norm(path, x):
        b.call += 1
        n = b.node("NativeLayerNormBackward0", module=path, cls="LayerNorm", call=b.call)
        b.edge(x, n, 0)
        b.edge(b.leaf(f"{path}.weight", (16,), module=path, cls="LayerNorm"), n, 1)
        b.edge(b.leaf(f"{path}.bias", (16,), module=path, cls="LayerNorm"), n, 2)
        return n

    wte = b.leaf("wte.weight", (100, 16))
    b.call += 1
    e1 = b.node("EmbeddingBackward0", module="wte", cls="Embedding", call=b.call)
    b.edge(wte, e1)
    b.call += 1
    e2 = b.node("EmbeddingBackward0", module="wpe", cls="Embedding", call=b.call)
    b.edge(b.leaf("wpe.weight", (8, 16)), e2)
    x = b.node("AddBackward0")
    b.edge(e1, x, 0)
    b.edge(e2, x, 1)
    for i in range(blocks):
        base = f"h.{i}"
        # a parent's call is numbered before its children's (forward pre-hooks)
        b.call += 1
        blk = b.call
        y = norm(f"{base}.ln_1", x)
        b.call += 1
        kw = dict(module=f"{base}.attn", cls="Attention", call=b.call)
        qkv = linear(f"{base}.attn.qkv", y, 48)
        sp = b.node("SplitBackward0", **kw)
        b.edge(qkv, sp)
        q = b.node("TransposeBackward0", **kw)
        k = b.node("TransposeBackward0", **kw)
        v = b.node("TransposeBackward0", **kw)
        for t in (q, k, v):
            b.edge(sp, t)
        att = b.node("BmmBackward0", **kw)
        b.edge(q, att, 0)
        b.edge(k, att, 1)
        sm = b.node("SoftmaxBackward0", **kw)
        b.edge(att, sm)
        av = b.node("BmmBackward0", **kw)
        b.edge(sm, av, 0)
        b.edge(v, av, 1)
        o = linear(f"{base}.attn.proj", av)
        r1 = b.node("AddBackward0", module=base, cls="Block", call=blk)
        b.edge(x, r1, 0)
        b.edge(o, r1, 1)
        y = norm(f"{base}.ln_2", r1)
        b.call += 1  # the MLP module itself makes no node
        f = linear(f"{base}.mlp.fc", y, 64)
        b.call += 1
        g = b.node("GeluBackward0", module=f"{base}.mlp.act", cls="GELU", call=b.call)
        b.edge(f, g)
        p = linear(f"{base}.mlp.proj", g, 16, 64)
        r2 = b.node("AddBackward0", module=base, cls="Block", call=blk)
        b.edge(r1, r2, 0)
        b.edge(p, r2, 1)
        x = r2
    y = norm("ln_f", x)
    b.call += 1
    t = b.node("TBackward0", module="lm_head", cls="Linear", call=b.call)
    b.edge(wte, t)  # tied weights
    mm = b.node("MmBackward0", module="lm_head", cls="Linear", call=b.call, shape=(8, 100))
    b.edge(y, mm, 0)
    b.edge(t, mm, 1)
    loss = b.node("NllLossBackward0", label="loss", shape=())
    b.edge(mm, loss)
    b.g.roots = [loss]
    return b.g


def random_dag(n: int = 2000, seed: int = 0, leaf_frac: float = 0.2, max_in: int = 3,
               locality: int = 30) -> Graph:
    """A random DAG of n nodes in creation order: each op consumes 1..max_in
    earlier nodes, mostly recent ones (as real graphs do), some leaves shared."""
    rng = random.Random(seed)
    b = _B()
    made: list[str] = []
    leaves: list[str] = []
    for i in range(n):
        if i < 2 or rng.random() < leaf_frac:
            nid = b.leaf(f"p{i}")
            leaves.append(nid)
            made.append(nid)
            continue
        nid = b.node(rng.choice(["AddBackward0", "MulBackward0", "MmBackward0", "TanhBackward0"]))
        k = rng.randint(1, max_in)
        srcs = set()
        for _ in range(k):
            if rng.random() < 0.1 and leaves:
                srcs.add(rng.choice(leaves))
            else:
                j = max(0, len(made) - 1 - int(rng.expovariate(1 / locality)))
                srcs.add(made[j])
        for s in srcs:
            b.edge(s, nid)
        made.append(nid)
    # one root consuming every sink, so the graph is connected like a loss
    has_out = {e.src for e in b.g.edges}
    sinks = [m for m in made if m not in has_out]
    root = b.node("SumBackward0", label="loss", shape=())
    for s in sinks[:50]:
        b.edge(s, root)
    b.g.roots = [root]
    return b.g


def trace_for(graph: Graph, with_run: bool = True):
    """A Trace holding `graph` and (optionally) one backward run over it: every
    node executed once, consumers before producers (reverse topological order,
    as the engine does), each sending a small gradient along every input edge."""
    from autogradviz.engine.trace.model import BackwardRun, Step, Trace

    tr = Trace(script="synthetic.py", graphs=[graph])
    if not with_run:
        return tr
    succ: dict[str, list[str]] = {n.id: [] for n in graph.nodes}
    indeg = {n.id: 0 for n in graph.nodes}
    slots: dict[str, int] = {n.id: 0 for n in graph.nodes}
    for e in graph.edges:
        # backward direction: dst runs before src
        succ[e.dst].append(e.src)
        indeg[e.src] += 1
        slots[e.dst] = max(slots[e.dst], e.slot + 1)
    order = [k for k, d in indeg.items() if d == 0]
    i = 0
    while i < len(order):
        for s in succ[order[i]]:
            indeg[s] -= 1
            if indeg[s] == 0:
                order.append(s)
        i += 1
    g1 = TensorSummary(shape=[], dtype="torch.float32", device="cpu", values=[1.0], numel=1,
                       min=1.0, max=1.0, mean=1.0, norm=1.0)
    steps = [Step(index=k, node=nid, grad_outputs=[g1], grad_inputs=[g1] * slots[nid])
             for k, nid in enumerate(order)]
    leaf_grads = {n.id: g1 for n in graph.nodes if n.kind == "leaf"}
    tr.backward_runs = [BackwardRun(index=0, graph=graph.id, steps=steps, leaf_grads=leaf_grads)]
    tr.backward_calls = 1
    return tr
