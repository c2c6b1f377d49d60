"""What a probe is, what it is given, and the one way it patches torch.

A probe records one aspect of what the learner's script does with torch
(backward calls, the user's hooks, module calls, and features to come such as
gradient checkpointing or the GradScaler). The runner installs every
registered probe before the script, removes them all afterwards - also when
the script raises or calls sys.exit - and only then asks each to contribute
its own fields to the trace. So a feature is one module with three methods,
and nothing else in the worker has to know about it.

Why a shared `Patches` helper instead of each probe assigning attributes:
removal must leave torch exactly as it was, down to the descriptor object in
a class's `__dict__` (a staticmethod must come back as that staticmethod, an
inherited attribute must vanish again rather than become a class attribute).
Getting that right once, and restoring in reverse order, is what lets several
probes wrap the same entry point and still be undone cleanly.

A probe must never change what the script sees: wrappers call the original
with the user's own arguments and pass results and exceptions through
untouched; a probe's own failure is reported through
`ProbeContext.internal_error` and never reaches the script.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Optional

if TYPE_CHECKING:  # (the worker imports torch; this module need not)
    from autogradviz.engine.trace.model import Trace

# The worker's objects a probe is handed (engine/worker/capture.py's
# CaptureState, recorder.py's Recorder, progress.py's Progress): named here
# by what they are, not imported - engine/worker imports engine/probes,
# never the reverse.
CaptureState = Any
Recorder = Any
Progress = Any

# Probe.order of the probes that record backward calls and the user's hooks;
# features default to FEATURE_ORDER, so they install after (and wrap around)
# the core and are removed before it.
CORE_ORDER = 0
FEATURE_ORDER = 100

_MISSING = object()

# Every wrapper `Patches.wrap` installed -> the attribute it replaced (what
# `make` was given), while installed. A torch function mode is handed the
# patched Tensor method itself and must call the original, or the wrapper
# would run twice (worker/source_lines.py).
ORIGINALS: dict = {}


class Patches:
    """Attributes of modules and classes replaced by one probe, restorable.

    `wrap(owner, "name", make)` replaces `owner.name` by `make(original)`,
    where `original` is what `getattr(owner, "name")` gives (for a
    staticmethod in a class: the plain function; the replacement is wrapped
    back in staticmethod/classmethod to match). `restore()` undoes every
    patch, last first: the attribute object that was in `owner.__dict__`
    goes back, or the attribute is deleted when `owner` only inherited it.
    """

    def __init__(self):
        self._done: list[tuple[Any, str, Any]] = []  # (owner, name, raw value or _MISSING)

    def __len__(self) -> int:
        return len(self._done)

    def wrap(self, owner, name: str, make: Callable[[Any], Any]):
        """Replace `owner.name` by `make(original)`; returns the original.
        Raises AttributeError when `owner` has no such attribute (the probe
        then decides whether that torch version is supported)."""
        orig = getattr(owner, name)
        new = make(orig)
        raw = vars(owner).get(name, _MISSING)
        if isinstance(raw, staticmethod):
            new = staticmethod(new)
        elif isinstance(raw, classmethod):
            new = classmethod(new)
        self.set(owner, name, new)
        try:
            ORIGINALS[getattr(owner, name)] = orig
        except TypeError:  # (unhashable)
            pass
        return orig

    def set(self, owner, name: str, value) -> None:
        """Set `owner.name = value`, remembering what to put back."""
        raw = vars(owner).get(name, _MISSING)
        setattr(owner, name, value)
        self._done.append((owner, name, raw))

    def restore(self) -> list[BaseException]:
        """Undo every patch, newest first; returns what could not be undone
        (the caller reports it) after trying all of them."""
        failed: list[BaseException] = []
        while self._done:
            owner, name, raw = self._done.pop()
            try:
                ORIGINALS.pop(getattr(owner, name, None), None)
            except Exception:  # (unhashable)
                pass
            try:
                if raw is _MISSING:
                    if name in vars(owner):
                        delattr(owner, name)
                else:
                    setattr(owner, name, raw)
            except BaseException as exc:  # (keep undoing the others)
                failed.append(exc)
        return failed


@dataclass
class BackwardPosition:
    """Where the script is with respect to backward calls, for tying a
    probe's events to the steps the stepper shows.

    `calls`: backward/grad calls the script has made so far (including one
    running now). `run`: index in `trace.backward_runs` of the call being
    recorded right now, else None (between calls, or a call past the
    recording limit). `step`: steps that call has recorded so far - an event
    now happens while the step with this index runs or just before it."""

    calls: int
    run: Optional[int] = None
    step: Optional[int] = None


@dataclass(frozen=True)
class ProbeServices:
    """What the worker lends every probe, so that no probe imports the
    worker (engine/worker/probe_context.py fills it in; the dependency runs
    from the worker to the probes only).

    `hook_events`: the user-hook bookkeeping (engine/worker/hook_events.py:
    hook_name, hook_target, node_id, tensors_in, first_tensor, before_user,
    after_user, user_failed). `beneath_modes(fn)`: `fn` run beneath the
    script's torch modes and subclasses. `no_progress`: a Progress that
    reports nothing. Capture, for a probe that captures a graph of its own
    (a reentrant checkpoint's re-run): `capture_pending(state, edges, names,
    origin=...)`, `root_edges(tensors)`, `current_node()` (the autograd Node
    running now), `remove_own(handles)`; `recorder_module`: the module whose
    `capture_pending` the recorder calls before each backward (the memory
    probe wraps it). `saved_attrs(node)` and `hook_reason(raw)`: a node's
    saved attributes and why one must not be read. `user_line(exc,
    filename)`: the script's line of an exception. `module_tracker`,
    `module_table`, `source_lines`: the classes of those recorders.
    `child_processes`: the child-process machinery (os_fork, ChildRelay,
    launch_recorded, CHILD_CONFIG_ATTR, end_leftover_children,
    RELAY_KEY_ENV), imported when first used."""

    hook_events: Any
    beneath_modes: Callable[[Callable], Callable]
    no_progress: Any
    capture_pending: Callable[..., Any]
    root_edges: Callable[..., Any]
    current_node: Callable[[], Any]
    remove_own: Callable[..., Any]
    recorder_module: Any
    saved_attrs: Callable[..., Any]
    hook_reason: Callable[..., Any]
    user_line: Callable[..., Any]
    module_tracker: Callable[..., Any]
    module_table: Callable[..., Any]
    source_lines: Callable[..., Any]
    child_processes: Any


@dataclass
class ProbeContext:
    """What the runner gives every probe at install time.

    `trace` is the run's Trace (fill your fields in `contribute`; reading it
    earlier is fine). `state` is the capture state shared with the recorder
    (graphs, summarizer, callbacks capture asks). `namespace` is the script's
    `__main__` dict, live. `filename` is the script's file name as compiled
    (frames with this co_filename are the user's lines). `recorder` records
    backward calls; `position()` says which run and step is current.
    `progress` reports long work to the app (rate-limited; see
    worker/progress.py). `internal_error(stage, exc)` records a failure of
    ours as a trace note (code "internal_error"); never raise into the
    script instead. `services`: what the worker lends probes (ProbeServices)."""

    trace: "Trace"
    state: "CaptureState"
    namespace: dict
    filename: Optional[str]
    recorder: "Recorder"
    progress: "Progress"
    record_steps: bool = True
    errors: list[tuple[str, str]] = field(default_factory=list)
    # output(stream, text): print into the run's output as the script's own
    # prints go (what child processes print: engine/worker/children.py).
    output: Optional[Callable[[str, str], None]] = None
    # The ProbeSet these probes belong to (set by it): a forked child ends
    # the copy it inherited itself (engine/worker/fork_child.py).
    probes: Optional[Any] = None
    services: Optional[ProbeServices] = None

    @property
    def summ(self):
        """The Summarizer: `request(t)` queues a tensor summary (filled at
        the next flush), `summarize(t)` fills one at once."""
        return self.state.summ

    def position(self) -> BackwardPosition:
        return self.recorder.position()

    def user_line(self, exc: BaseException) -> Optional[int]:
        """The script's line where `exc` was raised (last frame of the
        script's file in its traceback), or None."""
        return self.services.user_line(exc, self.filename) if self.services is not None else None

    def internal_error(self, stage: str, exc: BaseException) -> None:
        msg = str(exc)
        self.errors.append((stage, f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__))


class Probe:
    """Base class of a probe: install, remove, contribute.

    `name` identifies the probe in notes about its own failures. `order`:
    lower installs first and is removed last (CORE_ORDER for the recorder's
    own probes, FEATURE_ORDER by default); a probe that must wrap an entry
    point before another probe wraps it takes a lower order. The default
    `remove` undoes `self.patches`; override it to undo more (hook handles),
    calling `super().remove()`.
    """

    name: str = "probe"
    order: int = FEATURE_ORDER

    def __init__(self):
        self.patches = Patches()
        # typed as always present: every hook a probe sets runs after install();
        # the few paths that may run before it test `self.ctx is None` themselves
        self.ctx: ProbeContext = None  # type: ignore[assignment]

    def install(self, ctx: ProbeContext) -> None:
        """Patch torch (through self.patches) before the script runs."""
        self.ctx = ctx

    def remove(self) -> None:
        """Undo everything install did; called once, even after a failed
        install. Must not raise for what install never did."""
        failed = self.patches.restore()
        if failed:
            raise failed[0]

    def fork_marks(self) -> dict[str, int]:
        """How many records this probe holds now, per place of the trace its
        contribute() fills ("checkpoints"; "memory.segments" for a list in a
        feature's one record). A forked child (engine/worker/fork_child.py)
        asks just after the fork and sends only the records after these."""
        return {}

    def contribute(self, trace: "Trace") -> None:
        """Add this probe's fields to the trace, after the script and after
        the recorder finished its summaries."""
