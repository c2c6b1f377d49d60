"""Tensor values written with the fewest digits their dtype needs.

Why: a float32 value read by `tolist()` is a Python float (float64), which
JSON writes with up to 17 significant digits (0.1f is 0.10000000149011612),
where 9 digits always identify a float32 and most need fewer ("0.1"). A
10,000-node chain's trace was 1.1-1.3 KB per node, mostly such digits.

`shorten` gives, for values of a float32/bfloat16/float16 tensor, the float64
nearest to the shortest decimal that rounds back to the same value in that
dtype (so JSON writes that decimal); `widen` rounds what was read back to the
dtype again, which gives exactly the float64 `tolist()` gave. Reading a file
written so therefore yields the very values torch had (tests/engine/
test_short_floats.py). bfloat16 values are float32 values, so they use
float32's digits.

Vectorised in numpy (numpy's own shortest repr, `astype(str)`, formats one
value at a time: about 3 us each, seconds for a big trace). For each number
of digits p the nearest p-digit decimal m * 10**-k is made as one correctly
rounded division (or product) of exact integers, which is the float64 nearest
that decimal while 10**|k| is exact (|k| <= 22); the first p that rounds back
wins. The rest (float32 values below about 1e-13 or above 1e13: vanishing
gradients' denormals) take numpy's repr of each distinct value. Every
result of the search is checked to round back (never a changed value).

Plain data: numpy only, no torch, no Qt.
"""

from __future__ import annotations

from array import array
from typing import Optional

# dtype name -> (numpy type name, most significant digits it needs)
_DIGITS = {"float32": ("float32", 9), "bfloat16": ("float32", 9), "float16": ("float16", 5)}
_EXACT_POW = 22  # 10**k is exact in float64 up to here
_POW10 = None  # numpy array of 10**0 .. 10**22 (made at the first use: numpy is imported late)


# the dtypes whose values are written shortened (and widened when read)
DTYPES = frozenset(_DIGITS)


def shorten(values: list, dtype: str) -> Optional[list]:
    """`values` (floats exactly representable in `dtype`) as the floats of
    their shortest decimals; None when one is not a float of that dtype (then
    the caller writes them as they are)."""
    import numpy as np

    ftype = np.dtype(_DIGITS[dtype][0]).type
    if not values:
        return []
    if set(map(type, values)) != {float}:
        return None
    a64 = np.array(values, dtype=np.float64)
    with np.errstate(all="ignore"):
        a = a64.astype(ftype)
        if not ((a.astype(np.float64) == a64) | np.isnan(a64)).all():
            return None
    return _shortest(a64, a, dtype).tolist()


def shorten_array(a, dtype: str):
    """shorten() for a numpy array of `dtype`'s values (float32 for float32
    and bfloat16, float16 for float16), of any shape: a float64 array of the
    same shape (the worker's batched summaries: no list to check or convert)."""
    import numpy as np

    ftype = np.dtype(_DIGITS[dtype][0]).type
    a = np.ascontiguousarray(a, dtype=ftype)
    flat = a.reshape(-1)
    with np.errstate(invalid="ignore"):  # (a NaN's payload: no warning, as tolist() gives none)
        wide = flat.astype(np.float64)
    if not flat.size:
        return wide.reshape(a.shape)
    return _shortest(wide, flat, dtype).reshape(a.shape)


def _shortest(a64, a, dtype: str):
    """The shortest decimals (as float64) of the flat values `a` (of the
    dtype's numpy type; `a64`: the same as float64)."""
    import numpy as np

    global _POW10
    if _POW10 is None:
        _POW10 = np.array([10.0 ** i for i in range(_EXACT_POW + 1)])
    kind, most = _DIGITS[dtype]
    ftype = np.dtype(kind).type
    with np.errstate(all="ignore"):
        out = a64.copy()
        nonzero = np.isfinite(a64) & (a64 != 0)
        idx = np.flatnonzero(nonzero)  # only these need digits (0, -0, inf, NaN are written short)
        x, xf = a64[idx], a[idx]
        exp = np.floor(np.log10(np.abs(x))).astype(np.int64)
        usable = (np.abs(most - 1 - exp) <= _EXACT_POW) & (np.abs(exp) <= _EXACT_POW)
        sel = np.flatnonzero(usable)
        x, xf, exp = x[sel], xf[sel], exp[sel]
        # digits needed is monotone (if p digits round back, so do p + 1):
        # a binary search per value, 4 passes over the values still open
        lo = np.ones(x.shape, dtype=np.int64)
        hi = np.full(x.shape, most, dtype=np.int64)
        open_ = np.arange(x.size)
        while open_.size:
            mid = (lo[open_] + hi[open_]) // 2
            ok = _nearest(x[open_], exp[open_], mid).astype(ftype) == xf[open_]
            hi[open_[ok]] = mid[ok]
            lo[open_[~ok]] = mid[~ok] + 1
            open_ = open_[lo[open_] < hi[open_]]
        cand = _nearest(x, exp, hi)
        hit = cand.astype(ftype) == xf
        out[idx[sel[hit]]] = cand[hit]
        todo = nonzero.copy()
        todo[idx[sel[hit]]] = False
        if todo.any():  # beyond exact powers of ten: numpy's repr of each distinct value
            uniq, where = np.unique(a[todo], return_inverse=True)
            out[todo] = uniq.astype(str).astype(np.float64)[where.reshape(-1)]
    return out


def _nearest(a64, exp, p):
    """The float64 nearest to each value's nearest p-digit decimal."""
    import numpy as np

    k = p - 1 - exp  # digits after the decimal point (|k| <= 22 where used)
    if not k.size or k.min() >= 0:  # (every value below 10**p, the usual case: one branch)
        scale = _POW10[k]
        return np.round(a64 * scale) / scale
    scale = _POW10[np.abs(k)]  # exact powers of ten
    up = k >= 0
    m = np.where(up, np.round(a64 * scale), np.round(a64 / scale))
    return np.where(up, m / scale, m * scale)


def widen(values: list, dtype: str) -> Optional[list]:
    """Values read back (shortest decimals) rounded to `dtype` again: exactly
    the floats torch's `tolist()` gave. None when they are not all numbers
    (a hand-edited file's lists)."""
    kind = _DIGITS[dtype][0]
    try:
        if kind == "float32":
            return array("f", values).tolist()
        import numpy as np

        with np.errstate(all="ignore"):
            return np.array(values, dtype=np.float16).astype(np.float64).tolist()
    except (TypeError, ValueError, OverflowError):
        return None
