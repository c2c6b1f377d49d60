"""Shared test setup: Qt runs offscreen unless the caller chose a platform."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import signal
import warnings

import pytest


@pytest.fixture(autouse=True)
def _sigint_kept(request):
    """A test that leaves SIGINT ignored in this process (an in-process run
    of a script or library that ignores it) would make every later child
    process ignore Ctrl+C too (SIG_IGN survives exec), and the Ctrl+C tests
    of the CLI would fail far from the cause: restored here, and named."""
    before = signal.getsignal(signal.SIGINT)
    yield
    after = signal.getsignal(signal.SIGINT)
    if after is not before:
        signal.signal(signal.SIGINT, before)
        warnings.warn(f"{request.node.nodeid} left SIGINT's handler changed to {after!r}; restored")

