"""A recorded number as the panels and exports write it: six significant
digits, inf/nan as Python writes them, a dash for a value not recorded (the
GradScaler panel and the web page's GradScaler stages show the same numbers,
so they share this one writer)."""

from __future__ import annotations

import math
from typing import Optional


def six_digits(x: Optional[float]) -> str:
    if x is None:
        return "—"
    if isinstance(x, float) and (math.isnan(x) or math.isinf(x)):
        return str(x)
    return f"{x:.6g}"
