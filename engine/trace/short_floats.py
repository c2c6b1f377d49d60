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


# the dtypes whose values are written shortened (and widened when read)
DTYPES = frozenset(_DIGITS)


def shorten(values: list, dtype: str) -> Optional[list]:
    """`values` (floats exactly representable in `dtype`) as the floats of
    their shortest decimals; None when one is not a float of that dtype (then
    the caller writes them as they are)."""
    import numpy as np

    kind, most = _DIGITS[dtype]
    ftype = np.dtype(kind).type
    if not values:
        return []
    if set(map(type, values)) != {float}:
        return None
    a64 = np.array(values, dtype=np.float64)
    with np.errstate(all="ignore"):
        a = a64.astype(ftype)
        back = a.astype(np.float64)
        nan = np.isnan(a64)
        if not ((back == a64) | nan).all():
            return None
        out = a64.copy()
        todo = np.isfinite(a64) & (a64 != 0)
        exp = np.floor(np.log10(np.abs(np.where(todo, a64, 1.0)))).astype(np.int64)
        # digits needed is monotone (if p digits round back, so do p + 1):
        # a binary search per value, 4 passes instead of up to 9
        todo &= np.abs(most - 1 - exp) <= _EXACT_POW
        todo &= np.abs(-exp) <= _EXACT_POW
        lo = np.ones(a64.shape, dtype=np.int64)
        hi = np.full(a64.shape, most, dtype=np.int64)
        while True:
            open_ = todo & (lo < hi)
            if not open_.any():
                break
            mid = (lo + hi) // 2
            ok = _rounds_back(a64, a, exp, mid, ftype)
            hi = np.where(open_ & ok, mid, hi)
            lo = np.where(open_ & ~ok, mid + 1, lo)
        cand = _nearest(a64, exp, hi)
        hit = todo & (cand.astype(ftype) == a)
        out[hit] = cand[hit]
        todo = np.isfinite(a64) & (a64 != 0) & ~hit
        if todo.any():  # beyond exact powers of ten: numpy's repr of each distinct value
            uniq, where = np.unique(a[todo], return_inverse=True)
            out[todo] = uniq.astype(str).astype(np.float64)[where.reshape(-1)]
    return out.tolist()


def _nearest(a64, exp, p):
    """The float64 nearest to each value's nearest p-digit decimal."""
    import numpy as np

    k = p - 1 - exp  # digits after the decimal point (|k| <= 22 where used)
    k = np.where(np.abs(k) <= _EXACT_POW, k, 0)
    scale = np.array([10.0 ** i for i in range(_EXACT_POW + 1)])[np.abs(k)]  # exact powers
    up = k >= 0
    m = np.where(up, np.round(a64 * scale), np.round(a64 / scale))
    return np.where(up, m / scale, m * scale)


def _rounds_back(a64, a, exp, p, ftype):
    return _nearest(a64, exp, p).astype(ftype) == a


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
