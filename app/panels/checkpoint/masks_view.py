"""Dropout masks of a checkpointed segment, forward and re-run side by side.

`preserve_rng_state` decides whether the re-run recomputes the forward's
activations: with True torch restores the RNG state and Dropout drops the
same elements; with False it draws again and the recomputed activations -
and so the gradients - belong to a different forward than the one that made
the loss. The probe records each mask (engine/probes/checkpoint_masks.py):
small ones in full, big ones as counts and a digest of the whole mask. This
module renders them as rich text for the Checkpoints panel: ■ kept, □
dropped, the re-run's elements that differ in the error colour.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QCoreApplication

from autogradviz.app.graph.recompute_frames import masks_equal

MAX_CELLS = 128  # drawn cells per mask; beyond, counts only
ROW = 16


def tr(text: str) -> str:
    return QCoreApplication.translate("CheckpointMasks", text)


def _grid(values: list[int], other: list[int], cols: int, bad: str) -> str:
    out, row = [], []
    for i, v in enumerate(values[:MAX_CELLS]):
        cell = "■" if v else "□"
        if i < len(other) and other[i] != v:
            cell = f"<span style='color:{bad}'>{cell}</span>"
        row.append(cell)
        if len(row) == cols:
            out.append("".join(row))
            row = []
    if row:
        out.append("".join(row))
    return "<br>".join(out)


def _cols(shape: list[int]) -> int:
    last = shape[-1] if shape else ROW
    return max(1, min(ROW, last))


def masks_html(checkpoint, r, pal: dict) -> str:
    """Side-by-side masks of `checkpoint`'s forward and re-run `r` (None:
    the forward's alone); "" when the segment drew none."""
    fwd = list(checkpoint.masks or [])
    again = list(r.masks or []) if r is not None else []
    if not fwd and not again:
        return ""
    bad = pal.get("error", "#c62828")
    forward_word = html.escape(tr("forward"))
    rerun_word = html.escape(tr("re-run"))
    differ_word = html.escape(tr("different mask"))
    rows = []
    for i in range(max(len(fwd), len(again))):
        a = fwd[i] if i < len(fwd) else None
        b = again[i] if i < len(again) else None
        m = a or b
        assert m is not None  # (i is below one of the two lengths)
        cols = _cols(m.shape)
        title = tr("Dropout mask {0} {1}: kept {2} of {3}").format(
            i + 1, "×".join(str(d) for d in m.shape) or "()", a.kept if a else "—", m.numel)
        def cell(x, other, cols=cols):
            if x is None:
                return tr("(not drawn)")
            body = _grid(x.values, other.values if other is not None else [], cols, bad) \
                if x.numel <= MAX_CELLS else tr("kept {0} of {1}").format(x.kept, x.numel)
            return f"<span style='font-family:monospace; font-size:15px; letter-spacing:1px'>{body}</span>"
        same = a is not None and b is not None and a.digest == b.digest
        verdict = "" if b is None else (tr("same mask") if same else
                                         f"<span style='color:{bad}'><b>{differ_word}</b></span>")
        rows.append(f"<tr><td colspan='2'><b>{html.escape(title)}</b> {verdict}</td></tr>"
                    f"<tr><td>{forward_word}<br>{cell(a, None)}</td>"
                    f"<td>{rerun_word}<br>{cell(b, a)}</td></tr>")
    text = "<table cellspacing='6'>" + "".join(rows) + "</table>"
    eq = masks_equal(checkpoint, r) if r is not None else None
    if eq is False:
        text += "<span style='color:{0}'>{1}</span>".format(bad, html.escape(tr(
            "The re-run drew a different Dropout mask (preserve_rng_state=False): the recomputed "
            "activations are not the forward's, so the gradient no longer matches the forward that "
            "produced the loss.")))
    elif eq is True:
        text += html.escape(tr("The re-run drew the same mask: torch restored the forward's RNG state "
                               "(preserve_rng_state=True), so the gradient matches the forward."))
    return text
