"""GUI features that plug in: one `FeatureSpec` declares everything a feature
adds to the window, and the core (panel docks, graph scene, graph view,
stepper, session, Output pane) iterates over the declared features instead
of naming checkpoint, memory, GradScaler or DDP.

A feature declares (every part optional):

- `panel`: its dock (a `PanelSpec`: title, factory, when it is shown);
- `overlay`: `overlay(scene) -> GraphOverlay`, items it adds over the graph
  (the scene builds, clears and steps every declared overlay), and
  `connect_overlay(overlay, session)`, called by the graph view to wire it;
- `step_phase`: `step_phase(session) -> object` with `forward()` / `back()`
  that return True when the feature took the stepper's move (positions
  between two backward steps: the checkpoint's recompute phase); the session
  makes it on first use (`TraceSession.part(id)`);
- `stepper_marks`: `stepper_marks(trace, run_index) -> [StepMark]`, drawn on
  the stepper's timeline with their tooltips; `stepper_attach(stepper)`,
  called once by each stepper panel (e.g. to show its own step text);
- `event_texts`: {event kind: `text(step, event)`}, the stepper's event list;
  `event_titles`: {event kind: (title, short title)}, English source text in
  the "GraphScene" context (mark it with QT_TRANSLATE_NOOP), the event's name
  on the graph's callouts and in the stepper;
- `step_caption`: `step_caption(session, node_step) -> str`, added to the
  stepper's line about what the current node received (GradScaler: the real
  gradient);
- `note_texts`: {note code: `text(params) -> str | None`}, the Output pane's
  line for a trace note in the UI language (None: the worker's English).

The built-in features are modules of this package, each with a `FEATURE`
(`BUILTIN`); they are loaded by name on first use, like entry points, so that
this module imports nothing of the app and every layer can read the registry.
A test or a plugin adds one with `register_feature(spec)`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping, Optional

# Declared in this order (the feature panels' tab order behind the lesson text).
BUILTIN = ("grad_scaler", "checkpoint", "modules", "memory", "ddp")


@dataclass(frozen=True)
class PanelContext:
    """What a panel factory may use: the shared session, the theme the window
    starts in, and the window (the panel's parent)."""

    session: Any  # TraceSession
    theme: str
    parent: Any  # QWidget


@dataclass(frozen=True)
class PanelSpec:
    """One dock. `title` is English source text in the "Panels" context (write it
    as `str(QT_TRANSLATE_NOOP("Panels", "…"))` so that lupdate finds it); `on_theme`
    is called as `on_theme(widget, "light" | "dark")`; `shortcut` toggles the
    dock; `width` / `height` are its default size in pixels."""

    id: str
    title: str
    factory: Callable[[PanelContext], Any]
    area: Any  # Qt.DockWidgetArea
    on_theme: Optional[Callable[[Any, str], None]] = None
    shortcut: Optional[str] = None
    width: Optional[int] = None
    height: Optional[int] = None
    # For panels that only make sense for some traces: called with each new
    # trace (or None); the dock is shown when it returns True and hidden when
    # False. None: the dock's visibility is the user's alone.
    show_when: Optional[Callable[[object], bool]] = None
    # Share the place of this panel (a tab beside it) instead of splitting it.
    tab_with: Optional[str] = None
    # When show_when shows the dock, bring it in front of the panels it shares
    # a place with (False: it appears as a tab behind them).
    raise_when_shown: bool = True
    # Split the place of this panel and go under it (the lesson tabs under the code).
    below: Optional[str] = None
    # A thin strip (the stepper under the graph): no title bar, so the strip
    # costs the graph no title-row height.
    strip: bool = False


class GraphOverlay:
    """What the graph scene asks of a feature's overlay (subclassing is
    optional; these are the methods it calls). The scene calls `build(trace)`
    once its items are made (trace: the one the graph belongs to, or None),
    `clear()` before the next picture, `follow_step()` after each step and
    `avoid_rects()` for the places labels keep off."""

    def __init__(self, scene):
        self.scene = scene

    def build(self, trace) -> None:
        pass

    def clear(self) -> None:
        pass

    def follow_step(self) -> None:
        pass

    def avoid_rects(self) -> list:
        return []


@dataclass(frozen=True)
class StepMark:
    """A mark on the stepper's timeline. `position` is in steps (2.5: half-way
    between the ticks of steps 2 and 3); `kind` is how it is drawn: "above"
    (a triangle over the line), "below" (a diamond under it) or "tick" (a
    short stroke under the line); `tooltip` is plain text in the UI language
    ("" for none); `color` a colour name."""

    position: float
    kind: str
    tooltip: str = ""
    color: str = "#555555"


@dataclass(frozen=True)
class FeatureSpec:
    """One feature's contributions to the GUI (see the module docstring)."""

    id: str
    panel: Optional[PanelSpec] = None
    overlay: Optional[Callable[[Any], Any]] = None
    connect_overlay: Optional[Callable[[Any, Any], None]] = None
    step_phase: Optional[Callable[[Any], Any]] = None
    stepper_marks: Optional[Callable[[Any, int], list]] = None
    stepper_attach: Optional[Callable[[Any], None]] = None
    event_texts: Mapping[str, Callable[[int, Any], str]] = field(default_factory=dict)
    event_titles: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    step_caption: Optional[Callable[[Any, Any], str]] = None
    note_texts: Mapping[str, Callable[[Mapping[str, Any]], Optional[str]]] = field(default_factory=dict)


_registered: list[FeatureSpec] = []
_builtin_loaded = False


def _load_builtin() -> None:
    global _builtin_loaded
    if _builtin_loaded:
        return
    _builtin_loaded = True
    specs = [importlib.import_module(f"{__name__}.{name}").FEATURE for name in BUILTIN]
    _registered[:0] = [s for s in specs if all(s.id != r.id for r in _registered)]


def features() -> list[FeatureSpec]:
    """Every declared feature: the built-in ones, then those registered since."""
    _load_builtin()
    return list(_registered)


def feature(feature_id: str) -> Optional[FeatureSpec]:
    return next((f for f in features() if f.id == feature_id), None)


def register_feature(spec: FeatureSpec) -> None:
    """Declare a feature for every window, scene and stepper made from now on.
    Ids are unique, and so are panel ids across features."""
    current = features()
    if any(f.id == spec.id for f in current):
        raise ValueError(f"a feature with id {spec.id!r} is already registered")
    if spec.panel is not None and any(f.panel is not None and f.panel.id == spec.panel.id for f in current):
        raise ValueError(f"a panel with id {spec.panel.id!r} is already declared")
    _registered.append(spec)


def unregister_feature(feature_id: str) -> None:
    """Remove a declared feature (what was already built with it stays)."""
    _registered[:] = [f for f in _registered if f.id != feature_id]


def feature_panels() -> list[PanelSpec]:
    return [f.panel for f in features() if f.panel is not None]


def stepper_marks(trace, run_index: int) -> dict[str, list[StepMark]]:
    """{feature id: its marks} for backward run `run_index` of `trace`."""
    if trace is None or run_index < 0:
        return {}
    return {f.id: list(f.stepper_marks(trace, run_index)) for f in features() if f.stepper_marks is not None}


def event_text(kind: str) -> Optional[Callable[[int, Any], str]]:
    """The feature's text for a stepper event of this kind (None: the core's)."""
    return next((f.event_texts[kind] for f in features() if kind in f.event_texts), None)


def event_title(kind: str, short: bool = False) -> Optional[str]:
    """A feature's English name for an event kind ("GraphScene" context), or None."""
    titles = next((f.event_titles[kind] for f in features() if kind in f.event_titles), None)
    return None if titles is None else titles[1 if short else 0]


def step_captions(session, node_step) -> str:
    """What every feature adds to the stepper's line about the current node."""
    return "".join(f.step_caption(session, node_step) for f in features() if f.step_caption is not None)


def note_text(code: Optional[str], params: Mapping[str, Any]) -> Optional[str]:
    """A feature's text for a trace note (None: no feature knows the code, or
    its parameters do not fit; the caller then uses its own or the English)."""
    if not code:
        return None
    for spec in _with_note(code):
        text = spec.note_texts[code](params)
        if text:
            return text
    return None


def _with_note(code: Optional[str]) -> Iterator[FeatureSpec]:
    if code:
        yield from (f for f in features() if code in f.note_texts)
