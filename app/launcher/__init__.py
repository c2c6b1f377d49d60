"""Autograd Visualizer: see the grad_fn graph torch builds and step through backward.

This file is the root of the installed `autogradviz` package. It lives in
app/launcher/ only because the repository's top level is fixed; it must stay free
of imports so that `autogradviz.engine` loads without Qt and the worker starts fast.

The Python API (docs/python-api.md, app/launcher/api.py) is loaded on first
use (module `__getattr__`): `autogradviz.record()` (engine/api/recording.py),
`autogradviz.make_dot` (engine/api/make_dot.py) and the notebook extension
(`%load_ext autogradviz`, engine/api/magic.py). What draws with Qt - the
stepper page, PNG/PDF - comes from app/notebook/page.py, handed to the
torch-side code by api.py, so that engine/ never imports the app and
`import autogradviz` imports neither torch nor Qt.
"""

__version__ = "0.1.0"


# (by name, resolved on first use: modules that import this package for
# __version__ - the app, the worker - must not depend on torch or Qt)
_API = ("record", "make_dot", "load_ipython_extension")


def __getattr__(name):
    if name in _API:
        import importlib

        return getattr(importlib.import_module("autogradviz.api"), name)
    raise AttributeError(f"module 'autogradviz' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_API))
