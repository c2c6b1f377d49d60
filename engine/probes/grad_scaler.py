"""GradScaler probe: one `scaler_events` entry per GradScaler call the script made.

AMP's GradScaler keeps a per-optimizer stage (READY -> UNSCALED -> STEPPED, back
to READY at update()) and a scale that backs off after an overflow and grows after
`growth_interval` clean iterations. None of it is visible to a learner: the stage
lives in the private `_per_optimizer_states`, and a skipped `optimizer.step()`
leaves no trace at all. This probe wraps the four public methods on the class
(`scale`, `unscale_`, `step`, `update`; subclasses such as torch.cuda.amp's inherit
them) and records, around each call the *script* made, what torch did:

- the stage before and after, read with `.get(id(optimizer))` because
  `_per_optimizer_states` is a defaultdict and `[]` would insert an entry;
- the scale and growth tracker before and after (`get_scale()`,
  `_get_growth_tracker()`: reads, no side effects);
- found_inf per device after unscale_/step, and whether `optimizer.step()` really
  ran (a step pre-hook registered for the length of the call, removed after);
- the scaled and unscaled gradient norm of the optimizer's parameters around the
  unscale (step()'s own unscale_ included);
- the exception, exactly as torch raised it, re-raised unchanged.

Calls torch makes inside another call (step()'s own unscale_) belong to the outer
event (`implicit_unscale`). The script's results are unchanged: the probe reads
state and gradients but never writes them.
"""

from __future__ import annotations

import sys
import threading
from types import FrameType
from typing import Optional

from autogradviz.engine.probes.base import Probe
from autogradviz.engine.trace.grad_scaler import ScalerError, ScalerEvent

_METHODS = ("scale", "unscale_", "step", "update")


class GradScalerProbe(Probe):
    """Wraps torch.amp.GradScaler's public methods while installed."""

    name = "grad_scaler"

    def __init__(self, filename: Optional[str] = None) -> None:
        super().__init__()
        self.filename = filename
        self.events: list[ScalerEvent] = []
        # (backward call index, scale event index): runs started from a scaled tensor
        self.scaled_runs: list[tuple[int, int]] = []
        self._local = threading.local()
        self._scalers: dict[int, str] = {}
        self._optimizers: dict[int, str] = {}
        self._keep: list = []  # scalers/optimizers named, kept so their ids stay unique
        self._updates: dict[int, int] = {}
        # id(scaled tensor) -> (weakref to it, event index): links scale() to the
        # backward run of the tensor it returned.
        self._scaled: dict[int, tuple] = {}

    # -- probe interface -------------------------------------------------------
    def install(self, ctx=None) -> None:
        super().install(ctx)
        try:
            from torch.amp.grad_scaler import GradScaler
        except ImportError:  # older torch: nothing to record
            return
        import torch

        if ctx is not None and ctx.filename:
            self.filename = ctx.filename
        for name in _METHODS:
            self.patches.wrap(GradScaler, name, lambda original, name=name: self._wrap(name, original))
        if ctx is not None:
            # Around the recorder's own wrappers (this probe installs after the
            # core): which backward call starts from a tensor scale() returned.
            self.patches.wrap(torch.Tensor, "backward", self._wrap_backward)
            self.patches.wrap(torch.autograd, "backward", self._wrap_backward)

    def fork_marks(self) -> dict[str, int]:
        return {"scaler_events": len(self.events)}

    def contribute(self, trace) -> None:
        trace.scaler_events = list(self.events)
        by_call = dict(self.scaled_runs)
        for run in trace.backward_runs:
            if run.index in by_call:
                run.scaled_by = by_call[run.index]

    def _wrap_backward(self, original):
        probe = self

        def backward(*args, **kwargs):
            if not probe._scaled:  # (no scale() call yet: nothing to look for)
                return original(*args, **kwargs)
            roots = args[0] if args else kwargs.get("tensors", kwargs.get("self"))
            roots = roots if isinstance(roots, (list, tuple)) else [roots]
            index = probe.scaled_by(roots)
            if index is not None:
                # the run this call will record gets the next index in backward_runs
                probe.scaled_runs.append((len(probe.ctx.trace.backward_runs), index))
            return original(*args, **kwargs)

        backward.__wrapped__ = original
        backward.__name__ = getattr(original, "__name__", "backward")
        backward.__qualname__ = getattr(original, "__qualname__", "backward")
        backward.__doc__ = getattr(original, "__doc__", None)
        return backward

    def scaled_by(self, roots) -> Optional[int]:
        """Index of the scale() event whose returned tensor is one of `roots`
        (the tensors a backward call starts from), else None."""
        for t in roots:
            entry = self._scaled.get(id(t))
            if entry is not None and entry[0]() is t:
                return entry[1]
        return None

    # -- recording ---------------------------------------------------------------
    def _wrap(self, name: str, original):
        probe = self

        def wrapper(scaler, *args, **kwargs):
            depth = getattr(probe._local, "depth", 0)
            if depth:  # a call torch makes inside another call: part of that event
                outer = probe._local.event
                if name == "unscale_" and outer is not None and outer.call == "step":
                    outer.implicit_unscale = True
                    probe._norm_before(outer, args[0] if args else kwargs.get("optimizer"))
                return original(scaler, *args, **kwargs)
            event = probe._begin(name, scaler, args, kwargs)
            probe._local.depth = 1
            probe._local.event = event
            handle = None
            ran = []
            optimizer = event_optimizer = args[0] if args and name in ("unscale_", "step") else kwargs.get("optimizer")
            try:
                if name == "step" and event_optimizer is not None and hasattr(optimizer, "register_step_pre_hook"):
                    handle = optimizer.register_step_pre_hook(lambda *a, **k: ran.append(True))
                if name == "unscale_":
                    probe._norm_before(event, optimizer)
                if name == "scale":
                    event.value = _one_number(args[0] if args else kwargs.get("outputs"))
                result = original(scaler, *args, **kwargs)
            except BaseException as exc:
                event.error = ScalerError(type=type(exc).__name__, message=str(exc))
                raise
            else:
                if name == "scale":
                    probe._remember_scaled(result, len(probe.events))
                return result
            finally:
                if handle is not None:
                    handle.remove()
                probe._local.depth = 0
                probe._local.event = None
                probe._end(event, scaler, optimizer, ran if name == "step" else None)
                probe.events.append(event)

        wrapper.__wrapped__ = original  # type: ignore[attr-defined]  # (functools.wraps' attribute, set by hand)
        wrapper.__name__ = getattr(original, "__name__", name)
        wrapper.__qualname__ = getattr(original, "__qualname__", name)
        wrapper.__doc__ = getattr(original, "__doc__", None)
        return wrapper

    def _begin(self, name, scaler, args, kwargs) -> ScalerEvent:
        sid = self._name(self._scalers, scaler, "s")
        opt = None
        stage = None
        if name in ("unscale_", "step"):
            optimizer = args[0] if args else kwargs.get("optimizer")
            if optimizer is not None:
                opt = self._name(self._optimizers, optimizer, "o")
                stage = _stage(scaler, optimizer)
        return ScalerEvent(
            scaler=sid, call=name, line=self._line(), iteration=self._updates.get(id(scaler), 0),
            optimizer=opt, stage_before=stage, scale_before=_scale(scaler),
            growth_tracker_before=_growth(scaler))

    def _end(self, event: ScalerEvent, scaler, optimizer, ran: Optional[list]) -> None:
        event.scale_after = _scale(scaler)
        event.growth_tracker = _growth(scaler)
        if event.call in ("unscale_", "step") and optimizer is not None:
            event.stage_after = _stage(scaler, optimizer)
            state = _state(scaler, optimizer)
            if state is not None and event.call in ("unscale_", "step"):
                event.found_inf = {str(dev): float(t.item())
                                   for dev, t in state.get("found_inf_per_device", {}).items()}
            if event.grad_norm_scaled is not None or event.call == "unscale_":
                event.grad_norm_unscaled = _grad_norm(optimizer)
        if event.call == "step" and event.error is None and ran is not None:
            event.skipped = not ran
        if event.call == "update" and event.error is None:
            self._updates[id(scaler)] = self._updates.get(id(scaler), 0) + 1

    def _norm_before(self, event: ScalerEvent, optimizer) -> None:
        if optimizer is not None and event.grad_norm_scaled is None:
            event.grad_norm_scaled = _grad_norm(optimizer)

    def _remember_scaled(self, result, index: int) -> None:
        import weakref

        import torch

        outs = [result] if isinstance(result, torch.Tensor) else (
            [t for t in result if isinstance(t, torch.Tensor)] if isinstance(result, (list, tuple)) else [])
        for t in outs:
            try:
                self._scaled[id(t)] = (weakref.ref(t), index)
            except TypeError:
                pass

    def _name(self, table: dict, obj, prefix: str) -> str:
        key = id(obj)
        if key not in table:
            table[key] = f"{prefix}{len(table) + 1}"
            self._keep.append(obj)
        return table[key]

    def _line(self) -> Optional[int]:
        """The innermost line of the script's own file that led to this call."""
        f: Optional[FrameType] = sys._getframe(2)
        while f is not None:
            if self.filename is not None and f.f_code.co_filename == self.filename:
                return f.f_lineno
            f = f.f_back
        return None


def _state(scaler, optimizer) -> Optional[dict]:
    """The optimizer's entry, read without inserting one (the dict is a defaultdict)."""
    states = getattr(scaler, "_per_optimizer_states", None)
    if states is None:
        return None
    return states.get(id(optimizer))


def _stage(scaler, optimizer) -> str:
    state = _state(scaler, optimizer)
    if state is None:  # no entry yet: torch's default is READY
        return "READY"
    stage = state.get("stage")
    return getattr(stage, "name", str(stage))


def _scale(scaler) -> float:
    return float(scaler.get_scale())


def _growth(scaler) -> int:
    return int(scaler._get_growth_tracker())


def _one_number(t) -> Optional[float]:
    import torch

    if isinstance(t, torch.Tensor) and t.numel() == 1:
        with torch.no_grad():
            return float(t.detach().float().item())
    return None


def _grad_norm(optimizer) -> Optional[float]:
    """The 2-norm over every parameter gradient of the optimizer (None without any)."""
    import torch

    grads = [p.grad for group in optimizer.param_groups for p in group["params"] if p.grad is not None]
    if not grads:
        return None
    with torch.no_grad():
        norms = [torch.linalg.vector_norm(g.detach().double()) for g in grads]
        return float(torch.linalg.vector_norm(torch.stack([n.cpu() for n in norms])).item())
