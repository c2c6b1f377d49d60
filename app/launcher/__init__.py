"""Autograd Visualizer: see the grad_fn graph torch builds and step through backward.

This file is the root of the installed `autogradviz` package. It lives in
app/launcher/ only because the repository's top level is fixed; it must stay free
of imports so that `autogradviz.engine` loads without Qt and the worker starts fast.
"""

__version__ = "0.1.0"
