"""Pausing and freezing Python's cyclic GC: the one place that does it.

Why pause: building or flattening a trace, capturing a graph, laying it out
or building its scene makes millions of small objects without cycles, and
every generational pass set off meanwhile rescans all of them (loading an
8,000-node trace: 1.1 s -> 0.3 s paused).

Why here, with a lock and a count: the GC switch is global to the process,
and the GUI pauses it from two threads (the layout thread and the scene
build). Each place saving `gc.isenabled()` and restoring it on its own let
one thread switch the GC back on in the middle of another's pause (or leave
it off: a pause that began while another held it saved "off"). Here the
first pause of any thread saves the state and the last resume restores it.

Why freeze, and when to undo it: a big trace or scene lives long; full passes
over its objects stall the GUI for 0.1-0.4 s again and again, so `freeze`
moves every tracked object out of the collector's sight (they are still freed
by reference counting when dropped). Frozen objects are never scanned, so a
cycle among them would never be collected: each holder (`"trace"`, `"scene"`,
`"layout"`) `thaw`s once it holds nothing big any more, and the last one
calls `gc.unfreeze()`. A short-lived process (the CLI) may freeze for good.

Neither torch nor Qt: imported by both processes.
"""

from __future__ import annotations

import gc
import threading

_lock = threading.Lock()
_depth = 0  # pauses in progress, all threads together
_was_enabled = True  # the GC's state before the first of them
_holders: set = set()  # who froze objects and has not thawed
# The worker's zygote froze everything its imports made, for good (see
# freeze_for_good): promote then never unfreezes, and need not ask
# gc.get_freeze_count(), which walks the whole frozen list (40 ms over the
# zygote's ~280,000 objects: it was most of each recorded backward's cost).
_frozen_for_good = False


def pause_gc() -> None:
    """Pause the cyclic GC (any thread; pair with resume_gc)."""
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1


def resume_gc(promote: bool = False) -> None:
    """End one pause; the last one puts the GC back as the first found it.

    `promote` (the recorder, after a recorded backward call): the objects
    made during the pause go straight to the oldest generation instead of
    being scanned by the young collection the next allocation would set off
    (the objects of a 10,000-node capture: 150,000 in one pass, 20-35 ms
    inside the learner's backward call). `gc.freeze()` then `gc.unfreeze()`
    does that in O(1) (both merge lists); done only when nothing is frozen
    (no holder, no zygote's freeze), since unfreeze releases everything
    frozen. Unreachable cycles among them are still found, by the next full
    collection, as `gc.collect()` always finds them."""
    global _depth
    with _lock:
        if _depth == 0:
            return  # (unpaired: nothing to end)
        _depth -= 1
        if _depth == 0 and _was_enabled:
            if promote and not _holders and not _frozen_for_good and gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


class gc_paused:
    """`with gc_paused():` pause_gc() ... resume_gc(); re-entrant, thread-safe.
    `gc_paused(promote=True)`: see resume_gc."""

    def __init__(self, promote: bool = False):
        self.promote = promote

    def __enter__(self):
        pause_gc()
        return self

    def __exit__(self, *exc):
        resume_gc(self.promote)
        return False


def freeze(holder: str) -> None:
    """Take every object alive now out of the collector's sight, for
    `holder`, which keeps big long-lived data (see the module doc)."""
    with _lock:
        _holders.add(holder)
        gc.freeze()


def freeze_for_good() -> None:
    """Freeze every object alive now for the rest of the process (the
    worker's zygote before forking run children: copy-on-write pages stay
    shared). Nothing here unfreezes them afterwards."""
    global _frozen_for_good
    with _lock:
        _frozen_for_good = True
        gc.freeze()


def thaw(holder: str) -> None:
    """`holder` keeps nothing big any more: when no holder is left, the
    frozen objects go back to the collector (gc.unfreeze)."""
    with _lock:
        if holder not in _holders:
            return
        _holders.discard(holder)
        if not _holders:
            gc.unfreeze()


def frozen_holders() -> frozenset:
    """Who froze and has not thawed (tests)."""
    with _lock:
        return frozenset(_holders)
