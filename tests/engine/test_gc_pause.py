"""The one GC pause (engine/trace/gc_pause.py): thread-safe, restores what it
found, and freezes that are undone when no holder is left."""

from __future__ import annotations

import gc
import re
import threading
from pathlib import Path

import pytest

from autogradviz.engine.trace import gc_pause, model
from autogradviz.engine.trace.gc_pause import freeze, frozen_holders, gc_paused, pause_gc, resume_gc, thaw

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def gc_on():
    was = gc.isenabled()
    gc.enable()
    yield
    for h in frozen_holders():
        thaw(h)
    (gc.enable if was else gc.disable)()


def _in_thread(fn, started: threading.Event, release: threading.Event) -> threading.Thread:
    def body():
        with gc_paused():
            started.set()
            release.wait(60)
        fn()

    t = threading.Thread(target=body, daemon=True)
    t.start()
    return t


def test_one_threads_end_does_not_switch_the_gc_on_inside_anothers_pause():
    # thread A pauses, then this thread pauses, then A ends its pause: the GC
    # must stay off until this thread's pause ends too
    a_in, a_out, done = threading.Event(), threading.Event(), threading.Event()
    t = _in_thread(done.set, a_in, a_out)
    assert a_in.wait(60)
    with gc_paused():
        a_out.set()
        assert done.wait(60)
        assert not gc.isenabled(), "another thread's pause ended ours"
    t.join(60)
    assert gc.isenabled()


def test_a_pause_that_began_inside_anothers_leaves_the_gc_on_at_the_end():
    # this thread pauses first; thread B pauses and ends after this one: the
    # last end switches the GC back on (it was on before the first)
    b_in, b_out, done = threading.Event(), threading.Event(), threading.Event()
    pause_gc()
    t = _in_thread(done.set, b_in, b_out)
    assert b_in.wait(60)
    resume_gc()
    assert not gc.isenabled()  # B is still inside
    b_out.set()
    assert done.wait(60)
    t.join(60)
    assert gc.isenabled()


def test_nested_and_off_before():
    with gc_paused():
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    with gc_paused():
        pass
    assert not gc.isenabled()  # it was off: it stays off
    resume_gc()  # an unpaired end changes nothing
    assert not gc.isenabled()


def test_freeze_is_undone_when_the_last_holder_thaws():
    keep = [[i] for i in range(1000)]
    freeze("trace")
    freeze("scene")
    assert gc.get_freeze_count() > 0
    thaw("trace")
    assert gc.get_freeze_count() > 0 and frozen_holders() == {"scene"}
    thaw("trace")  # twice: nothing more
    thaw("scene")
    assert gc.get_freeze_count() == 0 and not frozen_holders()
    del keep


def test_promote_moves_what_the_pause_made_to_the_oldest_generation_unscanned():
    import weakref

    class Cycle:
        pass

    gc.collect()
    with gc_paused(promote=True):
        made = [[i] for i in range(5000)]
        garbage = Cycle()
        garbage.me = garbage  # an unreachable cycle once dropped
        dead = weakref.ref(garbage)
        del garbage
    # nothing young left for the next allocation's collection to scan ...
    assert gc.get_count()[0] < 50 and gc.isenabled()
    young = {id(o) for o in gc.get_objects(0)} | {id(o) for o in gc.get_objects(1)}
    assert id(made) not in young and id(made[0]) not in young
    assert any(o is made for o in gc.get_objects(2))
    assert dead() is not None
    # ... and the cycle is still found by a full collection, as always
    gc.collect()
    assert dead() is None
    del made


def test_promote_leaves_frozen_objects_frozen():
    keep = [[i] for i in range(100)]
    freeze("scene")
    frozen = gc.get_freeze_count()
    with gc_paused(promote=True):
        more = [[i] for i in range(100)]
    assert gc.get_freeze_count() == frozen  # (no unfreeze while a holder, or the zygote, froze)
    thaw("scene")
    del keep, more


FROZEN_FOR_GOOD = """\
import gc
from autogradviz.engine.trace.gc_pause import freeze_for_good, gc_paused
keep = [[i] for i in range(100)]
freeze_for_good()
frozen = gc.get_freeze_count()
walk = gc.get_freeze_count
def walks_the_frozen_list():
    raise AssertionError("gc.get_freeze_count() called")
gc.get_freeze_count = walks_the_frozen_list
with gc_paused(promote=True):
    more = [[i] for i in range(100)]
gc.get_freeze_count = walk
assert gc.isenabled() and gc.get_freeze_count() == frozen > 0, (frozen, gc.get_freeze_count())
print("ok")
"""


def test_promote_after_the_zygotes_freeze_asks_nothing_and_unfreezes_nothing():
    # (a process of its own: freeze_for_good cannot be undone) gc.get_freeze_count()
    # walks the whole frozen list: 40 ms per recorded backward in a run child
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-c", FROZEN_FOR_GOOD], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout == "ok\n", out.stderr


def test_the_trace_models_gc_paused_is_this_one():
    assert model.gc_paused is gc_pause.gc_paused


def test_no_other_module_switches_the_gc():
    # zygote.py freezes once before forking run children (copy-on-write of
    # what torch's import made: CPython's documented use of gc.freeze)
    allowed = {"engine/trace/gc_pause.py", "engine/worker/zygote.py"}
    found = []
    for folder in ("app", "engine"):
        for path in (ROOT / folder).rglob("*.py"):
            rel = path.relative_to(ROOT).as_posix()
            if rel in allowed:
                continue
            text = path.read_text(encoding="utf-8")
            if re.search(r"\bgc\.(disable|enable|freeze|unfreeze)\(", text):
                found.append(rel)
    assert not found, f"switch the GC through engine/trace/gc_pause.py: {found}"
