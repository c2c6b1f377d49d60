"""The Python API's drawing side: the stepper page a notebook shows
(`run.show()`, `%%autogradviz`) and PNG/PDF of `make_dot`, painted by the
app's GraphScene under Qt's offscreen platform. Imported only when asked for
(`autogradviz.record().show()`), never by `import autogradviz`."""
