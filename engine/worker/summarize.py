"""Tensor -> TensorSummary, cheaply and in batches.

A summary is what crosses the process boundary instead of a tensor: shape,
dtype, device, the values (all of them when there are at most
MAX_INLINE_VALUES, else the first MAX_INLINE_VALUES with `truncated`), and
min/max/mean/norm where they mean something.

Why a `Summarizer` with `request()` + `flush()` instead of a plain function:
a recorded backward pass produces tens of thousands of gradients. `request()`
only fills the cheap metadata and queues the tensor (holding a reference, so
the engine cannot reuse its buffer in place); `flush()` turns the queue into
values and statistics at the end of the backward call (before control returns
to the user, who could otherwise change parameters in place). The same
tensor object is summarised once per flush.

Large tensors (truncated summaries) are kept in a `TensorStore` under the
summary's `id` so the GUI can fetch all values later; small ones are complete
in the summary and are not kept (their `id` is None). The store has a memory
budget; past it, summaries carry no id.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import torch

from autogradviz.engine.trace import codec, short_floats
from autogradviz.engine.trace.model import MAX_INLINE_VALUES, TensorSummary
from autogradviz.engine.worker.beneath_modes import beneath_modes, readable_storage
from autogradviz.engine.worker.progress import NO_PROGRESS, TICK_MASK

# Memory the store may keep alive for later fetches (bytes).
MAX_KEPT_BYTES = 512 * 1024 * 1024
# Tensors that may change later (parameters, .grad) are copied for fetch
# only when at most this big, and within this total.
MAX_SNAPSHOT_BYTES = 16 * 1024 * 1024
SNAPSHOT_BUDGET = 256 * 1024 * 1024
# Batched summaries: at least this many same-shaped tensors, stacked in chunks
# of at most this many bytes.
BATCH_MIN = 4
# Only tensors this small are batched: for larger ones torch's per-op
# overhead is negligible and stacking would only copy (or materialise
# expanded gradients).
BATCH_MAX_NUMEL = 4096
BATCH_BYTES = 64 * 1024 * 1024
# On the CPU, batches are stacked into one reused buffer of about this size:
# the reductions then run in cache, and a fresh 100 MB stack would spend most
# of its time in page faults.
CPU_CHUNK_BYTES = 1024 * 1024

_DTYPE_NAMES: dict = {}
_STRIDED = torch.strided
_PLAIN_TYPES = (torch.Tensor, torch.nn.Parameter)


def dtype_name(dtype) -> str:
    n = _DTYPE_NAMES.get(dtype)
    if n is None:
        n = str(dtype).replace("torch.", "")
        _DTYPE_NAMES[dtype] = n
    return n


_INT_DTYPES = {
    torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
}
for _n in ("uint16", "uint32", "uint64"):
    if hasattr(torch, _n):
        _INT_DTYPES.add(getattr(torch, _n))


def _plain(v):
    """JSON-able python value for a tensor element."""
    if isinstance(v, complex):
        return [v.real, v.imag]
    return v


class TensorStore:
    """Keeps tensors alive under string ids so their full values can be fetched."""

    def __init__(self, budget: int = MAX_KEPT_BYTES):
        self._tensors: dict[str, Any] = {}
        self._n = 0
        self._bytes = 0
        self._snap_bytes = 0
        self.budget = budget

    def add(self, t, snapshot: bool = False) -> Optional[str]:
        try:
            nbytes = t.numel() * t.element_size()
        except Exception:
            return None
        if self._bytes + nbytes > self.budget:
            return None
        if snapshot:
            # Copies cost time and memory at every capture: only moderate ones.
            if nbytes > MAX_SNAPSHOT_BYTES or self._snap_bytes + nbytes > SNAPSHOT_BUDGET:
                return None
            self._snap_bytes += nbytes
            try:
                with torch.no_grad():
                    t = t.detach().clone()
            except Exception:
                return None
        self._n += 1
        tid = f"t{self._n}"
        self._tensors[tid] = t
        self._bytes += nbytes
        return tid

    def add_many(self, ts: list, ss: list) -> None:
        """add() for gradients that will not change (no snapshot): sets each
        summary's id."""
        budget = self.budget
        tensors = self._tensors
        for t, s in zip(ts, ss):
            nbytes = s.numel * t.element_size()
            if self._bytes + nbytes > budget:
                continue
            self._n += 1
            tid = f"t{self._n}"
            tensors[tid] = t.detach() if t.requires_grad else t
            self._bytes += nbytes
            s.id = tid

    def get(self, tid: str):
        return self._tensors.get(tid)

    def clear(self):
        self._tensors.clear()
        self._bytes = 0


def _fill_small(s: TensorSummary, vals: list, kind: str) -> None:
    """Statistics for a complete (<= MAX_INLINE_VALUES) value list, in Python."""
    n = len(vals)
    if kind == "c":
        s.values = [_plain(v) for v in vals]
        if n:
            s.norm = math.sqrt(sum(abs(v) ** 2 for v in vals))
        return
    s.values = vals
    if not n:
        return
    if kind == "f":
        tot = 0.0
        sq = 0.0
        nan = False
        for v in vals:
            if v != v:
                nan = True
                break
            tot += v
            sq += v * v
        if nan:
            s.min = s.max = s.mean = s.norm = float("nan")
            return
        s.min = float(min(vals))
        s.max = float(max(vals))
        s.mean = tot / n
        s.norm = math.sqrt(sq) if sq != float("inf") else float("inf")
        if s.mean != s.mean:  # inf - inf
            s.mean = float("nan")
    else:  # integer / bool
        s.min = float(min(vals))
        s.max = float(max(vals))


def _kind(dtype) -> str:
    if dtype.is_floating_point:
        return "f"
    if dtype.is_complex:
        return "c"
    if dtype == torch.bool or dtype in _INT_DTYPES:
        return "i"
    return "?"


def _head(t):
    """The first MAX_INLINE_VALUES elements in row-major order, without
    flattening (copying) a whole non-contiguous tensor."""
    if t.is_contiguous():
        return t.view(-1)[:MAX_INLINE_VALUES]
    x = t
    while x.dim() > 1 and x.shape[0] > 1 and x[0].numel() >= MAX_INLINE_VALUES:
        x = x[0]
    if x.dim() > 1 and x.shape[0] > 1:
        inner = max(1, x[0].numel())
        x = x[: -(-MAX_INLINE_VALUES // inner)]
    return x.reshape(-1)[:MAX_INLINE_VALUES]


def _dense_order(t):
    """A view of `t` with its dimensions in memory order, when that makes it
    contiguous. Min, max, mean and norm do not depend on element order, and
    reductions over a transposed view (a Linear's weight.t(), a tied embedding)
    run up to 20x slower than over the same memory read in order."""
    if t.dim() < 2 or t.is_contiguous():
        return t
    order = sorted(range(t.dim()), key=lambda d: (-t.stride(d), -t.shape[d]))
    view = t.permute(order)
    return view if view.is_contiguous() else t


def _fill_large(s: TensorSummary, t, kind: str) -> None:
    # Statistics straight on the tensor (any layout): no flattening copy; the
    # head (first values in logical order) comes from the tensor as the user sees it.
    with torch.no_grad():
        head = _head(t)
        t = _dense_order(t)
        if kind == "f":
            x = t if t.dtype in (torch.float32, torch.float64) else t.float()
            mn, mx = torch.aminmax(x)
            stats = torch.stack([mn.to(x.dtype), mx.to(x.dtype), x.mean(), torch.linalg.vector_norm(x)])
            vals = head.tolist()
            s.min, s.max, s.mean, s.norm = [float(v) for v in stats.tolist()]
        elif kind == "i":
            x = t.to(torch.int64) if t.dtype == torch.bool else t
            mn, mx = torch.aminmax(x)
            vals = head.tolist()
            s.min, s.max = float(mn.item()), float(mx.item())
        elif kind == "c":
            vals = [_plain(v) for v in head.tolist()]
            s.norm = float(torch.linalg.vector_norm(t).item())
        else:
            vals = head.float().tolist()
    s.values = vals


def _symbolic_summary(t, meta) -> TensorSummary:
    """A tensor with symbolic sizes (torch.compile's dynamic shapes, a fake
    tensor): its sizes as text in `sizes_text` (`s0`, `8`), `shape` empty
    and no values - never int() of a size (it would specialise the graph)."""
    s = TensorSummary([], meta[0], meta[1], [], True, 0)
    try:
        s.sizes_text = [str(d) for d in t.shape]
        s.requires_grad = bool(t.requires_grad)
    except Exception:
        pass
    return s


class Summarizer:
    """Queues tensors for summarising; `flush()` fills the queued summaries."""

    def __init__(self, store: Optional[TensorStore] = None):
        self.store = store if store is not None else TensorStore()
        # memory key -> summary, for dedupe within one flush (every tensor
        # behind a key is held until the flush, so the memory cannot be reused).
        self._seen: dict = {}
        # queued: (dtype, device, shape) -> ([tensors], [summaries]) for
        # tensors that can be summarised in a batch, and [(tensor, summary)]
        self._groups: dict = {}
        self._singles: list = []
        self._hold: list = []
        self._by_id: dict = {}  # id(tensor) -> (summary, version)
        # (dtype, device) -> (dtype name, device name, batchable)
        self._meta: dict = {}
        # One shape list per distinct shape, shared by the summaries (never
        # changed in place): a 50,000-node trace then holds a few shape lists
        # instead of 66,000, which the exit's gc.collect (runner._clear_main)
        # and every allocation paid for.
        self._shapes: dict = {}
        self._bufs: dict = {}  # dtype -> CPU stacking buffer (see CPU_CHUNK_BYTES)
        self.progress = NO_PROGRESS  # long flushes report here (worker/progress.py)
        # False: summaries carry metadata only (shape, dtype, device), no
        # values or statistics (a run for the plain picture; Trace.values_recorded)
        self.values = True
        # True: the float32/bfloat16/float16 values, min and max are kept as
        # their shortest decimals (short_floats.py), made from the batch's
        # array at once, for a trace that is only sent (Trace.float_digits
        # "dtype" in memory: the codec then has nothing to shorten - 0.15 s
        # of a 50,000-node trace's encoding, mostly lists built and cut).
        self.shorten = False
        self._short_pending: list = []  # filled one by one: shortened at the flush's end

    def _meta_of(self, dt, dev):
        m = self._meta[(dt, dev)] = (
            dtype_name(dt), str(dev),
            (dt.is_floating_point or dt in _INT_DTYPES or dt == torch.bool) and dev.type != "meta")
        return m

    def _new(self, t, queue: bool) -> Optional[TensorSummary]:
        """A summary with the metadata of `t` filled; with `queue`, `t` is
        queued for the flush that fills its values."""
        try:
            dt = t.dtype
            dev = t.device
            m = self._meta.get((dt, dev))
            if m is None:
                m = self._meta_of(dt, dev)
            shape = t.shape
            numel = t.numel()
            if type(numel) is not int:  # symbolic sizes (a tensor torch.compile traces)
                return _symbolic_summary(t, m)
            sh = self._shapes.get(shape)
            if sh is None:
                sh = self._shapes[shape] = [*shape]
            s = TensorSummary(sh, m[0], m[1], [], numel > MAX_INLINE_VALUES, numel,
                              None, None, None, None, None, t.requires_grad, t.is_leaf)
            if type(t) not in _PLAIN_TYPES and not readable_storage(t):
                s.truncated = True  # a wrapper subclass: no values of its own (beneath_modes)
                return s
            if queue:
                if m[2] and 0 < numel <= BATCH_MAX_NUMEL and t.layout is _STRIDED:
                    g = self._groups.get((dt, dev, shape))
                    if g is None:
                        self._groups[(dt, dev, shape)] = ([t], [s])
                    else:
                        g[0].append(t)
                        g[1].append(s)
                else:
                    self._singles.append((t, s))
            return s
        except Exception:
            return None

    def summarized_by_id(self) -> dict:
        """{id(tensor): (summary, its _version then)} for the tensors requested
        since the last flush (each held, so the ids are unique): a hot loop
        may look here before calling request (empty without values)."""
        return self._by_id

    def request(self, t, snapshot: bool = False) -> Optional[TensorSummary]:
        """Summary of `t` (values filled at the next flush). `snapshot`: the
        tensor may change in place later (a leaf, a .grad): read it now."""
        if t is None:
            return None
        if not self.values:
            s = self._new(t, False)
            if s is not None:
                s.truncated = True  # (no values: none of them are here)
            return s
        # Same Python object (held until the flush, so its id is unique).
        e = self._by_id.get(id(t))
        if e is not None:
            try:
                if e[1] == t._version:
                    return e[0]
            except Exception:
                pass
        # The same memory seen as a different Python object (a saved weight
        # unpacked by every node that saved it) is summarised once.
        try:
            version = t._version
            ptr = t.data_ptr()
            key = (ptr, version, t.dtype, t.shape, t.stride(), t.device) if ptr else id(t)
        except Exception:
            version = None
            key = id(t)
        s = self._seen.get(key)
        if s is not None:
            self._by_id[id(t)] = (s, version)
            self._hold.append(t)
            return s
        s = self._new(t, not snapshot)
        if s is None:
            return None
        self._seen[key] = s
        self._by_id[id(t)] = (s, version)
        if snapshot:
            # The tensor may change in place later (a parameter, a .grad):
            # summarise it now; keep a copy for fetch only within the budget.
            if self._fill(s, t) and s.truncated:
                s.id = self.store.add(t.detach(), snapshot=True)
            self._hold.append(t)  # its id() stays unique until the flush
        return s

    def request_grads(self, raw, ids) -> list:
        """[Step-like (node id, grad_outputs, grad_inputs) summaries] for the
        (node, grad_inputs, grad_outputs) a backward call's post-hooks saw:
        one summary per Python object (the engine hands the same object to
        the node that produced it and to the node that consumed it); no
        memory-key dedupe (different gradients are different memory). The
        tensors are held (queued) until the flush."""
        by_id = self._by_id
        get = by_id.get
        new = self._new
        out: list = []
        app = out.append
        def summaries(tensors) -> list:
            # One summary per tensor object and version: a gradient passed on
            # unchanged (or summed into a leaf) is summarised once.
            res = []
            for x in tensors:
                if x is None or type(x) is TensorSummary:  # (read already: recorder._read_stolen)
                    res.append(x)
                    continue
                e = get(id(x))
                if e is not None and e[1] == x._version:
                    res.append(e[0])
                    continue
                s = new(x, True)
                if s is not None:
                    by_id[id(x)] = (s, x._version)
                res.append(s)
            return res

        for n, gi, go in raw:
            sgo = summaries(go)
            app((ids.get(n, ""), sgo, summaries(gi)))
        return out

    def summarize(self, t, snapshot: bool = True) -> Optional[TensorSummary]:
        """Summary filled right away."""
        s = self.request(t, snapshot=snapshot)
        if s is not None and (self._groups or self._singles):
            self.flush()
        return s

    def _fill(self, s: TensorSummary, t) -> bool:
        """Values and statistics of `t` into `s`; false when they cannot be
        read (another layout, meta, nested, a wrapper subclass)."""
        try:
            if t.layout != torch.strided or t.is_meta or getattr(t, "is_nested", False):
                return False
            if type(t) not in _PLAIN_TYPES and not readable_storage(t):
                return False
            kind = _kind(t.dtype)
            d = t.detach()  # a detached view: no graph is built below
            if s.numel <= MAX_INLINE_VALUES:
                if kind == "?":
                    s.values = d.reshape(-1).float().tolist()
                else:
                    _fill_small(s, d.reshape(-1).tolist(), kind)
            else:
                _fill_large(s, d, kind)
            if self.shorten and s.dtype in short_floats.DTYPES:
                self._short_pending.append(s)
            return True
        except Exception:
            return False

    @beneath_modes
    def flush(self) -> None:
        """Fill every queued summary. Tensors of the same shape, dtype and
        device (the gradients of an unrolled loop, typically) are stacked and
        summarised with a handful of batched torch ops instead of several ops
        per tensor; the rest one by one."""
        groups, singles = self._groups, self._singles
        self._groups = {}
        self._singles = []
        self._seen = {}
        self._hold = []
        self._by_id.clear()  # (the same dict: see summarized_by_id)
        phase = self.progress.phase(
            "summarising", sum(len(g[0]) for g in groups.values()) + len(singles), "tensors")
        done = 0
        if groups:
            with torch.no_grad():
                for (dt, dev, shape), (ts, ss) in groups.items():
                    n = len(ts)
                    if n < BATCH_MIN:
                        singles.extend(zip(ts, ss))
                        continue
                    numel = ss[0].numel
                    row = max(1, numel * ts[0].element_size())
                    buf = None
                    if dev.type == "cpu":
                        per = max(BATCH_MIN, CPU_CHUNK_BYTES // row)
                        buf = self._bufs.get(dt)
                        if buf is None or buf.numel() < min(n, per) * numel:
                            buf = self._bufs[dt] = torch.empty(
                                max(CPU_CHUNK_BYTES // ts[0].element_size(), min(n, per) * numel), dtype=dt)
                    else:
                        per = BATCH_BYTES // row
                        if per < 2:  # huge tensors: stacking would only copy them
                            singles.extend(zip(ts, ss))
                            continue
                    for k in range(0, n, per):
                        phase.tick(done + k)
                        ct, cs = ts[k:k + per], ss[k:k + per]
                        try:
                            self._fill_batch(ct, cs, None if buf is None else
                                             buf[:len(ct) * numel].view(len(ct), *shape))
                        except Exception:
                            singles.extend(zip(ct, cs))
                    done += n
        for i, (t, s) in enumerate(singles):
            if not i & TICK_MASK:
                phase.tick(done + i)
            if s.truncated:
                s.id = self.store.add(t.detach())
            self._fill(s, t)
        if self._short_pending:
            pending, self._short_pending = self._short_pending, []
            codec.shorten_in_place(list({id(s): s for s in pending}.values()))

    def _fill_batch(self, ts: list, ss: list, out=None) -> None:
        """Summaries of same-shaped tensors: one stack (into `out` when
        given), reductions along rows, one tolist for all the values and one
        for all the statistics. (Under no_grad: the stack builds no graph.)"""
        x = (torch.stack(ts) if out is None else torch.stack(ts, out=out)).reshape(len(ts), -1)
        dt = x.dtype
        floating = dt.is_floating_point
        small = x.shape[1] <= MAX_INLINE_VALUES
        if floating:
            # Small tensors: statistics in float64, as the one-by-one path
            # computes them in Python; large ones in their own precision
            # (float32/64) as _fill_large does.
            xs = x.double() if small else (x if dt in (torch.float32, torch.float64) else x.float())
            st = torch.stack([xs.amin(1), xs.amax(1), xs.mean(1),
                              torch.linalg.vector_norm(xs, dim=1)], 1)
            if not small and xs.dtype != torch.float64:
                st = st.double()
        else:
            xi = x.long() if dt == torch.bool else x
            st = torch.stack([xi.amin(1), xi.amax(1)], 1).double()
        name = ss[0].dtype
        if floating and small and self.shorten and name in short_floats.DTYPES:
            for s, v, mn, mx, me, no in zip(ss, *_short_rows(x, st, name)):
                s.values = v
                s.min = mn
                s.max = mx
                s.mean = me
                s.norm = no
            return
        stats = st.tolist()
        vals = (x if small else x[:, :MAX_INLINE_VALUES]).tolist()
        if floating:
            for s, v, (mn, mx, me, no) in zip(ss, vals, stats):
                s.values = v
                s.min = mn
                s.max = mx
                s.mean = me
                s.norm = no
        else:
            for s, v, (mn, mx) in zip(ss, vals, stats):
                s.values = v
                s.min = mn
                s.max = mx
        if not small:
            self.store.add_many(ts, ss)


def _short_rows(x, st, name: str) -> tuple[list, list, list, list, list]:
    """(values, minima, maxima, means, norms) of the rows of `x` (same-shaped
    float32/bfloat16/float16 tensors, one per row, all their values) from
    their statistics `st` (columns min, max, mean, norm): the values, minima
    and maxima as shortest decimals (short_floats.shorten_array). Each as a
    list, from the arrays directly (torch's tolist() of a float32 batch, or
    of the statistics row by row, is slower than numpy's of columns)."""
    a = (x.float() if x.dtype == torch.bfloat16 else x).cpu().numpy()
    stats = st.cpu().numpy()
    short = short_floats.shorten_array

    def ends(col: int) -> list:  # (minima and maxima are values of the dtype)
        return short(stats[:, col].astype(a.dtype), name).tolist()
    return short(a, name).tolist(), ends(0), ends(1), stats[:, 2].tolist(), stats[:, 3].tolist()


def summarize(t, store: Optional[TensorStore] = None) -> Optional[TensorSummary]:
    """One-off summary of a tensor (values filled)."""
    return Summarizer(store).summarize(t)


@beneath_modes
def full_summary(t) -> Optional[TensorSummary]:
    """A summary with all values (for fetch)."""
    if t is None:
        return None
    s = summarize(t, TensorStore(budget=0))
    if s is None:
        return None
    try:
        if s.truncated and readable_storage(t):
            with torch.no_grad():
                vals = t.detach().reshape(-1).tolist()
            s.values = [_plain(v) for v in vals]
            s.truncated = False
    except Exception:
        pass
    return s
