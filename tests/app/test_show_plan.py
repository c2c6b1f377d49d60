"""fit.show_plan: where a flashed node or region is brought into sight
(pure geometry; GraphView.show_rect applies it)."""

from __future__ import annotations

from PySide6.QtCore import QRectF

from autogradviz.app.graph.fit import SHOW_MAX_ZOOM, show_plan

VIEW = QRectF(0, 0, 800, 600)
LEGEND = QRectF(8, 8, 300, 260)  # one column, top left


def _fits(plan, rect, scale_now):
    scale = plan.scale if plan.scale is not None else scale_now
    return rect.width() * scale <= plan.free.width() and rect.height() * scale <= plan.free.height()


def test_a_big_region_is_zoomed_out_to_fit_beside_the_legend():
    rect = QRectF(0, 0, 2000, 900)
    plan = show_plan(rect, VIEW, LEGEND, 1.0)
    assert plan.scale is not None and plan.scale < 1.0
    assert _fits(plan, rect, 1.0)
    assert not plan.free.intersects(LEGEND)
    # wide and low: the strip below the legend, not the narrow one beside it
    assert plan.free.top() >= LEGEND.bottom()


def test_a_tall_region_goes_beside_the_legend():
    rect = QRectF(0, 0, 200, 1500)
    plan = show_plan(rect, VIEW, LEGEND, 1.0)
    assert plan.free.left() >= LEGEND.right() and _fits(plan, rect, 1.0)


def test_a_small_node_in_a_far_zoomed_out_view_is_zoomed_in_to_at_most_100_percent():
    plan = show_plan(QRectF(0, 0, 120, 40), VIEW, LEGEND, 0.2)
    assert plan.scale == SHOW_MAX_ZOOM


def test_a_readable_zoom_is_kept_when_the_rect_fits():
    plan = show_plan(QRectF(0, 0, 120, 40), VIEW, None, 0.9)
    assert plan.scale is None and plan.free == VIEW
