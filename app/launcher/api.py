"""`autogradviz.record`, `autogradviz.make_dot`, `%load_ext autogradviz`: the Python API's glue.

The torch side (engine/api: recording, make_dot, the cell magic) never
imports Qt and the drawing side (app/notebook: the stepper page, PNG/PDF)
never imports torch; this module, outside both, hands the second to the
first. It is loaded by `autogradviz.__getattr__` on first use only, so
`import autogradviz` stays free of torch and Qt (docs/python-api.md).
"""


def record(record_steps: bool = True, record_values: bool = True, filename=None):
    """`with autogradviz.record() as run: ...`: the block recorded in this
    process as the app's worker records a script (see engine/api/recording.py).
    `record_steps=False`: graphs only; `record_values=False`: shapes only;
    `filename`: the code's file, when not the caller's."""
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
