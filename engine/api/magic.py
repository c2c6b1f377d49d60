"""`%load_ext autogradviz`, then `%%autogradviz` on a cell: the cell recorded,
its backward stepper shown below it.

The cell runs as IPython runs it - transformed (so `%` magics and `!` lines
inside it work), compiled under the file name IPython gives the cell (its
lines in linecache: the trace's lines point into the cell), in the user's
namespace - inside a `record()` block. Its exception is shown as IPython
shows any cell's, and the page is shown when there is a backward run to
step (without Qt installed, a note says so and the recording stays). `%%autogradviz --no-show` records only; the last recording is the
notebook's `_autogradviz_run` (its `.trace`, `.save()`, `.open()`).
"""

from __future__ import annotations

import sys
from typing import Callable

SHOW_OFF = "--no-show"


def register(ipython, record: Callable) -> None:
    """Add the cell magic to `ipython`; `record()` makes a RecordedRun."""

    def autogradviz(line: str, cell: str):
        return run_cell(ipython, cell, record, show=SHOW_OFF not in line.split())

    ipython.register_magic_function(autogradviz, magic_kind="cell", magic_name="autogradviz")


def run_cell(ipython, cell: str, record: Callable, show: bool = True):
    from IPython.display import display

    source = ipython.transform_cell(cell)
    number = getattr(ipython, "execution_count", 0)
    filename = ipython.compile.cache(source, number)
    code = compile(source, filename, "exec", dont_inherit=True)
    run = record(filename=filename)
    try:
        with run:
            exec(code, ipython.user_ns)
    except Exception:
        ipython.showtraceback()
    ipython.user_ns["_autogradviz_run"] = run
    if show and run.trace is not None and run.trace.backward_runs:
        try:
            page = run.show()
        except ImportError as exc:  # (no Qt here: the recording stands, the page cannot be drawn)
            print(f"autogradviz: the stepper page is drawn with Qt, which is missing here ({exc}); "
                  "the recording is _autogradviz_run (.trace, .save(path))", file=sys.stderr)
        else:
            display(page)
    return None
