"""Export the graph picture: PNG, SVG, PDF, DOT and an animated GIF of a run.

The exporter renders the same `GraphScene` the app shows (same items, same
style), offscreen, so an exported file looks like the app. PNG goes through a
QImage, PDF through QPdfWriter; SVG is written from the layout as a semantic
document (engine/layout/svg_export.py: titles, CSS classes, real text); DOT is written from
the layout and the trace (no Qt needed); the GIF is one frame per backward
step (`replay.state_at`), assembled with Pillow.

Every file is written atomically: to a temporary file in the destination
folder, then `os.replace`d over the target, so an error or Ctrl+C never
leaves a half-written file (the temporary is removed). An unwritable
destination raises `ExportError` with a message that names the path.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

from PySide6.QtCore import QCoreApplication, QMarginsF, QRectF, QSizeF, Qt
from PySide6.QtGui import QColor, QImage, QPageLayout, QPageSize, QPainter, QPdfWriter

from autogradviz.engine.layout.model import LayoutResult
from autogradviz.engine.trace.model import Graph, Trace

from autogradviz.app.graph.recompute_frames import run_frames
from autogradviz.app.export.files import ExportCancelled, ExportError, atomic_path, check_writable

__all__ = ["ExportError", "ExportCancelled", "ExportInfo", "atomic_path", "check_writable",
           "export_scene", "write_png", "write_svg", "write_pdf", "write_dot", "write_gif",
           "content_rect", "format_of", "FORMATS"]

FORMATS = ("png", "svg", "pdf", "dot", "gif", "html")
MARGIN = 16.0  # points of background around the picture
MAX_IMAGE_SIDE = 32000  # px; QImage/PNG readers choke beyond this
MAX_IMAGE_PIXELS = 120_000_000  # ~480 MB of RGBA
MAX_PDF_SIDE = 14400.0  # pt (200 in): the PDF page size limit most readers keep
MAX_GIF_SIDE = 1600  # px: GIFs are for slides; bigger graphs are scaled down
GIF_FRAME_MS = 700
MAX_GIF_FRAMES = 300  # longer runs are sampled evenly (first and last step kept)
GIF_LAST_FRAME_MS = 2500


def tr(text: str) -> str:
    return QCoreApplication.translate("Export", text)


@dataclass
class ExportInfo:
    path: str
    format: str
    width: int = 0  # pixels (PNG/GIF) or points (SVG/PDF)
    height: int = 0
    frames: int = 0
    scale: float = 1.0
    notes: list[str] = field(default_factory=list)


def format_of(path: str, fmt: Optional[str] = None) -> str:
    f = (fmt or os.path.splitext(path)[1].lstrip(".")).lower()
    if f not in FORMATS:
        raise ExportError(tr("unsupported format {0!r}: use one of {1}").format(
            f or os.path.basename(path), ", ".join(FORMATS)))
    return f


# -- what to render ---------------------------------------------------------------------------
def content_rect(scene, layout: Optional[LayoutResult] = None) -> QRectF:
    """The picture's extent: the laid-out graph plus anything drawn beyond it
    (gradient labels, callouts), with a small margin. The scene's own rect is
    padded hugely for panning, so it is not used."""
    lay = layout if layout is not None else getattr(scene, "layout", None)
    rect = QRectF()
    if lay is not None:
        rect = QRectF(0, 0, max(lay.width, 1.0), max(lay.height, 1.0))
    # every item drawn, children included: callouts and gradient labels are
    # children of the layer, whose own rect is empty (they were cut off)
    for item in scene.items():
        if item.isVisible() and not item.boundingRect().isEmpty():
            rect = rect.united(item.sceneBoundingRect())
    if rect.isEmpty():
        rect = QRectF(0, 0, 10, 10)
    return rect.adjusted(-MARGIN, -MARGIN, MARGIN, MARGIN)


def _fit_scale(w: float, h: float, scale: float, max_side: float, max_pixels: float) -> float:
    s = scale
    if w * s > max_side:
        s = max_side / w
    if h * s > max_side:
        s = max_side / h
    if w * h * s * s > max_pixels:
        s = (max_pixels / (w * h)) ** 0.5
    return s


def _background(scene) -> QColor:
    st = getattr(scene, "style", None)
    return QColor(st.background) if st is not None else QColor("white")


def render_image(scene, rect: QRectF, scale: float, max_side: int = MAX_IMAGE_SIDE,
                 max_pixels: int = MAX_IMAGE_PIXELS) -> tuple[QImage, float]:
    s = _fit_scale(rect.width(), rect.height(), scale, max_side, max_pixels)
    w = max(1, int(round(rect.width() * s)))
    h = max(1, int(round(rect.height() * s)))
    img = QImage(w, h, QImage.Format.Format_ARGB32_Premultiplied)
    if img.isNull():
        raise ExportError(tr("the picture is too large to render ({0} x {1} px)").format(w, h))
    img.fill(_background(scene))
    p = QPainter(img)
    try:
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        p.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, True)
        scene.render(p, QRectF(0, 0, w, h), rect, Qt.AspectRatioMode.IgnoreAspectRatio)
    finally:
        p.end()
    return img, s


def write_png(scene, path: str, rect: Optional[QRectF] = None, scale: float = 2.0,
              caption: Sequence[str] = ()) -> ExportInfo:
    """`caption`: lines drawn under the picture (captions.py: the step and its rule)."""
    rect = rect if rect is not None else content_rect(scene)
    img, s = render_image(scene, rect, scale)
    if caption:
        img = _captioned(scene, img, list(caption), s)
    info = ExportInfo(path, "png", img.width(), img.height(), scale=s)
    if s < scale - 1e-9:
        info.notes.append(tr("scaled down to {0:.3g} so the image stays under {1} px a side").format(
            s, MAX_IMAGE_SIDE))
    with atomic_path(path) as tmp:
        if not img.save(tmp, "PNG"):  # type: ignore[call-overload]  # (PySide6 wants str here: b"PNG", as its stub says, raises ValueError)
            raise ExportError(tr("cannot write {0}: saving the PNG failed").format(path))
    return info


def write_svg(scene, path: str, rect: Optional[QRectF] = None, title: str = "",
              caption: Sequence[str] = ()) -> ExportInfo:
    """A semantic SVG of what the scene shows at its step, written by walking
    its items (scene_svg.py: a g.node with a title per box, a g.edge per edge,
    g.label per gradient label and callout, CSS classes, real text), so it is
    the same drawing as the screen, PNG and PDF. `rect`: the part of the
    scene to show (default: all of it)."""
    from autogradviz.app.export.scene_svg import scene_svg

    if scene.graph is None or scene.layout is None:
        raise ExportError(tr("nothing to export: no graph is shown"))
    rect = rect if rect is not None else content_rect(scene)
    text = scene_svg(scene, rect, title=title or tr("Autograd graph"), words=svg_words(), caption=caption)
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    return ExportInfo(path, "svg", int(round(rect.width())), int(round(rect.height())))


def svg_words() -> dict:
    """The SVG's hover titles in the UI language (svg_export.TITLE_WORDS)."""
    return {
        "op": tr("op: {0}"),
        "label": tr("label: {0}"),
        "shape": tr("shape: {0}"),
        "module": tr("module: {0}"),
        "line": tr("line {0}: {1}"),
        "start": tr("backward starts here"),
        "rolled": tr("{0}: {1} calls, the first one drawn; the loop-back edge feeds each call the last"),
    }


def write_pdf(scene, path: str, rect: Optional[QRectF] = None, title: str = "") -> ExportInfo:
    rect = rect if rect is not None else content_rect(scene)
    w, h = rect.width(), rect.height()
    s = min(1.0, MAX_PDF_SIDE / max(w, h))
    pw, ph = max(w * s, 1.0), max(h * s, 1.0)
    info = ExportInfo(path, "pdf", int(round(pw)), int(round(ph)), scale=s)
    if s < 1.0:
        info.notes.append(tr("scaled to {0:.3g} to fit the largest PDF page").format(s))
    with atomic_path(path) as tmp:
        writer = QPdfWriter(tmp)
        writer.setTitle(title or tr("Autograd graph"))
        writer.setCreator("Autograd Visualizer")
        writer.setResolution(72)
        writer.setPageLayout(QPageLayout(QPageSize(QSizeF(pw, ph), QPageSize.Unit.Point, "graph",
                                                   QPageSize.SizeMatchPolicy.ExactMatch),
                                         QPageLayout.Orientation.Portrait, QMarginsF(0, 0, 0, 0)))
        p = QPainter()
        if not p.begin(writer):
            raise ExportError(tr("cannot write {0}: the PDF writer failed to start").format(path))
        try:
            p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            target = QRectF(0, 0, writer.width(), writer.height())
            p.fillRect(target, _background(scene))
            scene.render(p, target, rect, Qt.AspectRatioMode.IgnoreAspectRatio)
        finally:
            p.end()
        del writer
    return info


def write_dot(graph: Graph, layout: Optional[LayoutResult], path: str,
              theme: str = "light") -> ExportInfo:
    from autogradviz.engine.layout.dot_export import dot_source

    text = dot_source(graph, layout, theme=theme)
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    return ExportInfo(path, "dot")


def _qimage_to_pil(img: QImage):
    from PIL import Image

    img = img.convertToFormat(QImage.Format.Format_RGBA8888)
    w, h = img.width(), img.height()
    data = bytes(img.constBits())[: img.bytesPerLine() * h]
    return Image.frombuffer("RGBA", (w, h), data, "raw", "RGBA", img.bytesPerLine(), 1).convert("RGB")


CAPTION_PX = 20  # a strip under each GIF frame saying which step it shows


def _captioned(scene, img: QImage, text, scale: float = 1.0) -> QImage:
    """`img` with a caption strip below it (`text`: a line, or a list of
    lines), at the picture's scale. The caption also keeps two steps
    that look alike (inside one collapsed group) from being merged into one
    frame by the GIF writer, so frames == steps."""
    from PySide6.QtGui import QFontMetricsF

    lines = [text] if isinstance(text, str) else list(text)
    row = CAPTION_PX * max(scale, 0.25)
    st = getattr(scene, "style", None)
    font = None
    width = img.width()
    if st is not None:
        font = st.small_font()
        font.setPixelSize(max(1, round(st.small_font_size * 1.2 * max(scale, 0.25))))
        if len(lines) > 1:  # a caption is never cut off: the picture widens for it
            fm = QFontMetricsF(font)
            width = max(width, int(max(fm.horizontalAdvance(t) for t in lines) + 14 * scale))
    out = QImage(min(width, MAX_IMAGE_SIDE), int(round(img.height() + row * len(lines) + 4 * scale)),
                 QImage.Format.Format_ARGB32_Premultiplied)
    out.fill(_background(scene))
    p = QPainter(out)
    try:
        p.drawImage(0, 0, img)
        if st is not None and font is not None:  # (font is made with st)
            p.setPen(QColor(st.text))
            p.setFont(font)
        p.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        for i, line in enumerate(lines):
            p.drawText(QRectF(6 * scale, img.height() + i * row, max(1, out.width() - 12 * scale), row),
                       int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), line)
    finally:
        p.end()
    return out


def write_gif(scene, trace: Trace, run_index: int, path: str, rect: Optional[QRectF] = None,
              scale: float = 1.0, progress: Optional[Callable[[int, int], None]] = None,
              cancelled: Optional[Callable[[], bool]] = None,
              max_side: int = MAX_GIF_SIDE, max_frames: int = MAX_GIF_FRAMES, legend=None) -> ExportInfo:
    """One frame per step of backward run `run_index`: frame k shows the
    state after step k (the step just run highlighted, its gradients), so
    frames == steps (runs longer than `max_frames` are sampled evenly, first
    and last step kept, with a note), plus, before the step during which
    torch re-ran a checkpointed segment, that recomputation's frames (the
    scene draws them when it has the trace: `GraphScene.trace`). The scene's own step state is restored
    afterwards. `legend`: the legend widget to draw in every frame (None: none)."""
    from autogradviz.app.export.legend_export import legend_shown
    from autogradviz.engine.trace import replay

    if not (0 <= run_index < len(trace.backward_runs)):
        raise ExportError(tr("no backward run {0} to animate (the trace has {1})").format(
            run_index, len(trace.backward_runs)))
    n = replay.step_count(trace, run_index)
    ks = list(range(1, n + 1)) or [0]
    if len(ks) > max_frames:
        ks = sorted({1 + round(i * (n - 1) / (max_frames - 1)) for i in range(max_frames)})
    old_state = getattr(scene, "state", None)
    # a checkpoint's recompute frames come before the step during which torch
    # re-ran the segment (app/graph/recompute_frames.py)
    phases = run_frames(trace, run_index)
    seq = [(k - 1, f) for k in ks for f in phases.get(k - 1, ())] if phases else []
    seq = sorted(seq, key=lambda e: (e[0], e[1].number, e[1].sub)) if seq else []
    order: list[tuple[int, Any]] = []  # (step, its phase frame or None)
    for k in ks:
        order.extend(e for e in seq if e[0] == k - 1)
        order.append((k, None))
    overlay = getattr(scene, "checkpoint_overlay", None)
    old_frame = overlay.frame if overlay is not None else None
    try:
        # one rectangle for every frame, holding each frame's callouts: the
        # picture does not shift between frames, and nothing is cut off
        r = rect
        if r is None:
            for k, phase in order:
                scene.apply_step(replay.state_at(trace, run_index, k))
                if overlay is not None:
                    overlay.show_frame(phase)
                fr = content_rect(scene)
                r = fr if r is None else r.united(fr)
        with legend_shown(scene, legend, r, inside=rect is not None) as shown:
            if shown is not None and rect is None and r is not None:
                r = r.united(shown.sceneBoundingRect().adjusted(-MARGIN, -MARGIN, MARGIN, MARGIN))
            frames, s_used = _gif_frames(scene, trace, run_index, order, n, r, scale, max_side,
                                         progress, cancelled)
    finally:
        scene.apply_step(old_state)
        if overlay is not None:
            overlay.show_frame(old_frame)
    return _write_gif_file(scene, frames, path, s_used, scale, max_side, len(ks) < n, n, len(ks))


def recompute_caption(frame, n: int) -> str:
    """A checkpoint recompute frame's words (GIF frames, web page sub-steps)."""
    return tr("step {0} of {1} · recomputing checkpoint {2} ({3}/{4})").format(
        frame.step + 1, n, frame.number, frame.sub + 1, frame.subs)


def _gif_frames(scene, trace, run_index, order, n, r, scale, max_side, progress, cancelled):
    """The frames of `order` ((step, recompute frame or None), ...) drawn in rectangle `r`."""
    from autogradviz.engine.trace import replay

    overlay = getattr(scene, "checkpoint_overlay", None)
    frames = []
    s_used = scale
    if True:  # noqa: SIM108 - (the loop as it was)
        for i, (k, phase) in enumerate(order):
            if cancelled is not None and cancelled():
                raise ExportCancelled(tr("export cancelled"))
            scene.apply_step(replay.state_at(trace, run_index, k))
            if overlay is not None:
                overlay.show_frame(phase)
            img, s_used = render_image(scene, r, scale, max_side=max_side,
                                       max_pixels=max_side * max_side)
            caption = tr("step {0} of {1}").format(k, n) if phase is None else recompute_caption(phase, n)
            img = _captioned(scene, img, caption, s_used)
            frames.append(_qimage_to_pil(img))
            if progress is not None:
                progress(i + 1, len(order))
    return frames, s_used


def _write_gif_file(scene, frames, path, s_used, scale, max_side, sampled, n, n_frames) -> ExportInfo:
    from PIL import Image

    # same canvas for every frame (labels may change the extent a little)
    W = max(f.width for f in frames)
    H = max(f.height for f in frames)
    bg = _background(scene)
    out = []
    for f in frames:
        if f.size != (W, H):
            canvas = Image.new("RGB", (W, H), (bg.red(), bg.green(), bg.blue()))
            canvas.paste(f, (0, 0))
            f = canvas
        # a palette per frame: the highlight colours of later steps are not
        # in the first frame, and mapping them to its palette would lose them
        out.append(f.quantize(colors=255, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE))
    durations = [GIF_FRAME_MS] * len(out)
    durations[-1] = GIF_LAST_FRAME_MS
    with atomic_path(path) as tmp:
        out[0].save(tmp, format="GIF", save_all=True, append_images=out[1:], duration=durations,
                    loop=0, disposal=1)
    info = ExportInfo(path, "gif", W, H, frames=len(out), scale=s_used)
    if sampled:
        info.notes.append(tr("{0} steps: {1} frames, evenly sampled").format(n, n_frames))
    if s_used < scale - 1e-9:
        info.notes.append(tr("frames scaled down to {0:.3g} (at most {1} px a side)").format(
            s_used, max_side))
    return info


def export_scene(scene, path: str, fmt: Optional[str] = None, *, rect: Optional[QRectF] = None,
                 scale: float = 2.0, trace: Optional[Trace] = None, run_index: int = 0,
                 theme: str = "light", progress=None, cancelled=None,
                 caption: Sequence[str] = (), legend=None, legend_place=None) -> ExportInfo:
    """Write what `scene` shows (its current step state) to `path`.

    `rect` (scene coordinates) selects a part, e.g. the visible area; default:
    the whole graph. GIF needs `trace` and animates run `run_index`.
    `legend`: the legend widget (app/graph/legend.py) when the picture shows
    it (legend_export.py), None for none; `legend_place`: where the screen
    shows it (legend_export.screen_place), for a visible-area export."""
    f = format_of(path, fmt)
    check_writable(path)
    if f == "dot":
        if scene.graph is None:
            raise ExportError(tr("there is no graph to export"))
        return write_dot(scene.graph, scene.layout, path, theme=theme)
    if f == "gif":
        if trace is None:
            raise ExportError(tr("a GIF needs the trace of a backward run"))
        return write_gif(scene, trace, run_index, path, rect, scale=scale,
                         progress=progress, cancelled=cancelled, legend=legend)
    if f == "html":
        if trace is None:
            raise ExportError(tr("a web page needs the trace of a backward run"))
        from autogradviz.app.export.webpage import write_webpage
        return write_webpage(scene, trace, run_index, path, progress=progress, cancelled=cancelled,
                             legend=legend)
    from autogradviz.app.export.legend_export import legend_shown

    with legend_shown(scene, legend, rect, inside=rect is not None, place=legend_place):
        if f == "png":
            return write_png(scene, path, rect, scale, caption=caption)
        if f == "svg":
            return write_svg(scene, path, rect, caption=caption)
        if f == "pdf":
            return write_pdf(scene, path, rect)
    raise ExportError(tr("unsupported format {0!r}").format(f))  # pragma: no cover
