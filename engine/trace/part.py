"""The base every part of a trace shares (model.py and the feature modules beside it)."""

from __future__ import annotations

import msgspec


class _Part(msgspec.Struct, omit_defaults=True, gc=False):
    """Base of every part of a trace.

    omit_defaults: a field at its default is not written (about half of a
    big trace's bytes were `"id":null`, `"truncated":false`, ...); loaders
    fill it back in (docs/trace-format.md). gc=False: the parts form a tree
    of plain data, never a cycle, so the cyclic GC need not track the
    millions of them a big trace holds."""
