"""Autograd Visualizer: see the grad_fn graph torch builds and step through backward.

This file is the root of the installed `autogradviz` package. It lives in
app/launcher/ only because the repository's top level is fixed; it must stay free
of imports so that `autogradviz.engine` loads without Qt and the worker starts fast.

The Python API (docs/python-api.md) is loaded on first use (module
`__getattr__`): `autogradviz.record()` (engine/api/recording.py),
`autogradviz.make_dot` (engine/api/make_dot.py) and the notebook extension
(`%load_ext autogradviz`, engine/api/magic.py). What draws with Qt - the
stepper page, PNG/PDF - comes from app/notebook/page.py, handed to the
torch-side code here, so that engine/ never imports the app and
`import autogradviz` imports neither torch nor Qt.
"""

__version__ = "0.1.0"


def record(record_steps: bool = True, record_values: bool = True, filename=None):
    """`with autogradviz.record() as run: ...`: the block recorded in this
    process as the app's worker records a script (see engine/api/recording.py)."""
    from autogradviz.engine.api.recording import RecordedRun

    return RecordedRun(record_steps=record_steps, record_values=record_values, show=_stepper_page,
                       filename=filename)


def _stepper_page(trace, **options):
    from autogradviz.app.notebook.page import StepperPage

    return StepperPage(trace, **options)


def _paint(graph, layout, path, fmt, theme):
    from autogradviz.app.notebook.page import paint

    paint(graph, layout, path, fmt, theme)


def make_dot(var, params=None, show_attrs=False, show_saved=False, max_attr_chars=50):
    """torchviz's `make_dot`, drawing our picture (engine/api/make_dot.py)."""
    from autogradviz.engine.api.make_dot import make_dot as _make_dot

    return _make_dot(var, params, show_attrs, show_saved, max_attr_chars, painter=_paint)


def load_ipython_extension(ipython):
    """`%load_ext autogradviz`: the `%%autogradviz` cell magic (engine/api/magic.py)."""
    from autogradviz.engine.api.magic import register

    register(ipython, record)
