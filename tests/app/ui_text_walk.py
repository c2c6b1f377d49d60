"""Every text a window shows, walked generically, and the rules that find words
left in the wrong language (used by the live language-switch tests).

What is walked: every visible widget's own words - labels, buttons, group and
dock titles, tab names, list items, table and tree headers and cells, combo
box items - and every pyqtgraph plot's axis titles, tick labels, text items
and legend entries. The script's own text (the editor, the Output pane) is not
the UI's and is left out.

The rule for English (by rule, not by a list of exceptions per string): a run
of three or more plain words in a row; a chart's tick label is a word or two,
so there any lowercase word of three letters or more without a Chinese
character counts (`backward()` as a phase name; units like `KiB` do not). A plain word is letters only
(`Shape`, `mismatch,`), so code and identifiers (`nn.Linear(4,`,
`requires_grad=True`, `unscale_()`, `GradScaler`, `READY`), numbers and units
never count; nor does text in quotes or backticks, which quotes someone else
(torch's own message, a module's name).
"""

from __future__ import annotations

import html
import re

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QAbstractButton, QAbstractItemView, QComboBox, QDockWidget, QGroupBox,
                               QLabel, QListWidget, QPlainTextEdit, QTabBar, QTableView, QTextEdit,
                               QTreeView, QWidget)

_QUOTED = re.compile(r"“[^”]*”|‘[^’]*’|「[^」]*」|『[^』]*』|\"[^\"]*\"|`[^`]*`|<code>.*?</code>", re.S)
_TAG = re.compile(r"<[^>]+>")
# a plain word: letters only (an initial capital at most, or all capitals of 2+ letters are identifiers)
_WORD = re.compile(r"^\(?[A-Z]?[a-z]+'?[a-z]*[,;:.!?)]*$")
_TICK_WORD = re.compile(r"(?<![A-Za-z_])[a-z]{3,}(?![A-Za-z_])")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]")


def plain(text: str) -> str:
    """Rich text as the reader sees it (tags gone, entities read)."""
    return html.unescape(_TAG.sub(" ", text.replace("<br>", "\n"))).replace("\u2060", "")


def english_runs(text: str, least: int = 3) -> list[str]:
    """Runs of at least `least` plain English words in `text`."""
    text = _QUOTED.sub(" ", plain(text))
    runs, current = [], []
    for token in text.split():
        if _WORD.match(token):
            current.append(token)
            continue
        if len(current) >= least:
            runs.append(" ".join(current))
        current = []
    if len(current) >= least:
        runs.append(" ".join(current))
    return runs


def cjk(text: str) -> list[str]:
    """The CJK characters in `text`."""
    return _CJK.findall(text)


def _visible(w: QWidget) -> bool:
    return w.isVisible() and w.window().isVisible()


TICK = "tick:"  # the prefix window_texts gives a chart's tick labels


def _plot_texts(plot) -> list[str]:
    import pyqtgraph as pg

    out = []
    item = plot.getPlotItem()
    for name in ("left", "bottom", "top", "right"):
        ax = item.getAxis(name)
        if not ax.isVisible():
            continue
        if ax.label is not None and ax.label.isVisible():
            out.append(ax.label.toPlainText())
        lo, hi = ax.range
        for _spacing, values in ax.tickValues(lo, hi, 400):
            out += [TICK + s for s in ax.tickStrings(values, 1.0, 1.0) if s]
    for it in item.vb.addedItems:
        if isinstance(it, pg.TextItem):
            out.append(it.textItem.toPlainText())
    if item.legend is not None:
        for _sample, label in item.legend.items:
            out.append(label.text)
    return out


def window_texts(window: QWidget) -> list[tuple[str, str]]:
    """(where, text) for every text the window's visible widgets show."""
    import pyqtgraph as pg

    out: list[tuple[str, str]] = []

    def add(w, text):
        if text and text.strip():
            out.append((f"{type(w).__name__}#{w.objectName()}", text))

    for w in [window] + window.findChildren(QWidget):
        if not _visible(w) or isinstance(w, (QPlainTextEdit, QTextEdit)):
            continue
        if isinstance(w, QLabel):
            add(w, w.text())
        elif isinstance(w, QAbstractButton):
            add(w, w.text())
        elif isinstance(w, QGroupBox):
            add(w, w.title())
        elif isinstance(w, QDockWidget):
            add(w, w.windowTitle())
        elif isinstance(w, QTabBar):
            for i in range(w.count()):
                add(w, w.tabText(i))
        elif isinstance(w, QComboBox):
            add(w, w.currentText())
        elif isinstance(w, pg.PlotWidget):
            for t in _plot_texts(w):
                if t.startswith(TICK):
                    out.append((f"{type(w).__name__} tick", t[len(TICK):]))
                else:
                    add(w, t)
        if isinstance(w, QListWidget):
            for i in range(w.count()):
                add(w, w.item(i).text())
        elif isinstance(w, (QTableView, QTreeView)) and w.model() is not None:
            m = w.model()
            for c in range(m.columnCount()):
                add(w, str(m.headerData(c, Qt.Horizontal) or ""))
            if isinstance(w, QTableView):
                for r in range(min(m.rowCount(), 50)):
                    for c in range(m.columnCount()):
                        add(w, str(m.data(m.index(r, c)) or ""))
        elif isinstance(w, QAbstractItemView) and w.model() is not None and not isinstance(w, QListWidget):
            m = w.model()
            for r in range(min(m.rowCount(), 50)):
                add(w, str(m.data(m.index(r, 0)) or ""))
    return out


def english_left(window: QWidget) -> list[tuple[str, str, list[str]]]:
    """(where, text, English runs) for every text with an English sentence."""
    out = []
    for where, text in window_texts(window):
        runs = english_runs(text)
        if where.endswith(" tick") and not cjk(text):
            runs = runs or _TICK_WORD.findall(text)
        if runs:
            out.append((where, text, runs))
    return out


def chinese_left(window: QWidget) -> list[tuple[str, str]]:
    """(where, text) for every text with a CJK character."""
    return [(where, text) for where, text in window_texts(window) if cjk(text)]
