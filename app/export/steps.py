"""A whole backward run leaves the app: one picture per step, or a PDF handout.

Slides: a folder with one PNG or SVG per step (`step-001.png`, ...), each the
scene at that step (render.py / scene_svg.py: the screen's drawing), with its
caption under the picture when asked. Handout: a multi-page PDF, one step per
page - the picture, the caption ("Step 4 of 6: y (MulBackward0) ran"), the
rule with its numbers and the script's code with the step's line marked -
in the UI language (captions.py). The scene's own step is restored after.
"""

from __future__ import annotations

import os
from typing import Callable, Optional

from PySide6.QtCore import QMarginsF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPageLayout, QPageSize, QPainter, QPdfWriter

from autogradviz.app.export import render as ex
from autogradviz.app.export.legend_export import legend_shown
from autogradviz.app.export.captions import caption_lines, code_lines, session_for, step_node, tr
from autogradviz.app.export.files import ExportCancelled, ExportError, atomic_path
from autogradviz.engine.trace import replay

PAGE = QPageSize.PageSizeId.A4
PAGE_MARGIN = 36.0  # pt
TEXT_PT = 10.0
CODE_PT = 9.0


def _steps_of(trace, run: int) -> list[int]:
    if not (0 <= run < len(trace.backward_runs)):
        raise ExportError(tr("no backward run {0} to export (the trace has {1})").format(
            run, len(trace.backward_runs)))
    n = replay.step_count(trace, run)
    return list(range(1, n + 1)) or [0]


def write_step_folder(scene, trace, run: int, folder: str, fmt: str = "png", scale: float = 2.0,
                      captions: bool = True, progress: Optional[Callable[[int, int], None]] = None,
                      cancelled: Optional[Callable[[], bool]] = None, legend=None) -> ex.ExportInfo:
    """One `fmt` file (png or svg) per step of run `run` in `folder` (made if missing);
    `legend`: the legend widget when the pictures show it."""
    if fmt not in ("png", "svg"):
        raise ExportError(tr("a folder of slides is PNG or SVG, not {0}").format(fmt))
    ks = _steps_of(trace, run)
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as exc:
        raise ExportError(tr("cannot write {0}: {1}").format(folder, exc.strerror or exc)) from None
    session = session_for(trace, run) if captions else None
    old = scene.state
    width = len(str(ks[-1]))
    try:
        with legend_shown(scene, legend):
            _write_steps(scene, trace, run, ks, folder, fmt, scale, session, width, progress, cancelled)
    finally:
        scene.apply_step(old)
    return ex.ExportInfo(folder, fmt, frames=len(ks), scale=scale)


def _write_steps(scene, trace, run, ks, folder, fmt, scale, session, width, progress, cancelled) -> None:
    if True:  # noqa: SIM108 - (the loop as it was)
        for i, k in enumerate(ks):
            if cancelled is not None and cancelled():
                raise ExportCancelled(tr("export cancelled"))
            scene.apply_step(replay.state_at(trace, run, k))
            lines = caption_lines(session, k) if session is not None else []
            path = os.path.join(folder, f"step-{k:0{max(3, width)}d}.{fmt}")
            if fmt == "png":
                ex.write_png(scene, path, scale=scale, caption=lines)
            else:
                ex.write_svg(scene, path, caption=lines)
            if progress is not None:
                progress(i + 1, len(ks))


def _font(pt: float, bold: bool = False, mono: bool = False) -> QFont:
    f = QFont("DejaVu Sans Mono" if mono else "DejaVu Sans")
    if mono:
        f.setStyleHint(QFont.StyleHint.Monospace)
    f.setPointSizeF(pt)
    f.setBold(bold)
    return f


def _text_block(p: QPainter, x: float, y: float, w: float, lines, font: QFont, colour: QColor,
                bold_first: bool = False) -> float:
    """Draw wrapped `lines` from (x, y); returns the y below them."""
    for i, line in enumerate(lines):
        f = QFont(font)
        if bold_first and i == 0:
            f.setBold(True)
        p.setFont(f)
        p.setPen(colour)
        r = p.boundingRect(QRectF(x, y, w, 10_000), int(Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap), line)
        p.drawText(QRectF(x, y, w, r.height()), int(Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap), line)
        y += r.height()
    return y


def write_handout(scene, trace, run: int, path: str, title: str = "",
                  progress: Optional[Callable[[int, int], None]] = None,
                  cancelled: Optional[Callable[[], bool]] = None, legend=None) -> ex.ExportInfo:
    """A PDF with one page per step: the picture, its caption and rule, the code
    (`legend`: the legend widget when the pictures show it)."""
    ks = _steps_of(trace, run)
    session = session_for(trace, run)
    old = scene.state
    bg = QColor("white")
    ink = QColor("#1d2330")
    mark = QColor("#fff3b0")
    with atomic_path(path) as tmp, legend_shown(scene, legend):
        writer = QPdfWriter(tmp)
        writer.setTitle(title or tr("Autograd handout"))
        writer.setCreator("Autograd Visualizer")
        writer.setResolution(72)
        writer.setPageLayout(QPageLayout(QPageSize(PAGE), QPageLayout.Orientation.Portrait,
                                         QMarginsF(0, 0, 0, 0)))
        p = QPainter()
        if not p.begin(writer):
            raise ExportError(tr("cannot write {0}: the PDF writer failed to start").format(path))
        try:
            W, H = float(writer.width()), float(writer.height())
            x0, w = PAGE_MARGIN, W - 2 * PAGE_MARGIN
            for i, k in enumerate(ks):
                if cancelled is not None and cancelled():
                    raise ExportCancelled(tr("export cancelled"))
                if i:
                    writer.newPage()
                scene.apply_step(replay.state_at(trace, run, k))
                lines = caption_lines(session, k)
                node = step_node(session) if k > 0 else None
                code = code_lines(trace, node.line if node is not None else None)
                p.fillRect(QRectF(0, 0, W, H), bg)
                # text first (bottom up), then the picture gets the rest of the page
                cm = QFontMetricsF(_font(CODE_PT, mono=True))
                code_h = cm.lineSpacing() * len(code) + (8 if code else 0)
                text_h = QFontMetricsF(_font(TEXT_PT)).lineSpacing() * (len(lines) + 2) + 8
                pic_h = max(120.0, H - 2 * PAGE_MARGIN - code_h - text_h)
                src = ex.content_rect(scene)
                s = min(w / max(src.width(), 1.0), pic_h / max(src.height(), 1.0), 1.5)
                tw, th = src.width() * s, src.height() * s
                target = QRectF(x0 + (w - tw) / 2, PAGE_MARGIN, tw, th)
                p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
                p.fillRect(target, ex._background(scene))
                scene.render(p, target, src, Qt.AspectRatioMode.IgnoreAspectRatio)
                y = _text_block(p, x0, PAGE_MARGIN + th + 12, w, lines, _font(TEXT_PT), ink, bold_first=True)
                y += 8
                p.setFont(_font(CODE_PT, mono=True))
                lh = cm.lineSpacing()
                for num, text, here in code:
                    if here:
                        p.fillRect(QRectF(x0, y, w, lh), mark)
                    p.setPen(ink)
                    arrow = "\u25b6" if here else " "
                    p.drawText(QRectF(x0, y, w, lh), int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                               f"{arrow} {num:>4}  {text.expandtabs(4)}")
                    y += lh
                if progress is not None:
                    progress(i + 1, len(ks))
        finally:
            p.end()
            scene.apply_step(old)
        del writer
    return ex.ExportInfo(path, "pdf", frames=len(ks))
