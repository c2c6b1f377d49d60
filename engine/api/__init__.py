"""The Python API's torch side: `record()` in the learner's own process,
`make_dot` (torchviz's call, our picture) and the `%%autogradviz` cell magic.

Public names are re-exported lazily from the top-level `autogradviz` package
(app/launcher/__init__.py), so `import autogradviz` loads neither torch nor Qt;
nothing here imports Qt (the notebook page is app/notebook's, handed in).
"""
