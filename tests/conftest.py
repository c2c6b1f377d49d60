"""Shared test setup: Qt runs offscreen unless the caller chose a platform."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import signal
import warnings

import pytest


@pytest.fixture(autouse=True)
def _sigint_kept(request):
    """SIGINT's handler is python's default (KeyboardInterrupt) around every
    test. One left ignored in this process (by a library run in-process)
    makes every later child process ignore Ctrl+C too (SIG_IGN survives
    exec), and the CLI's Ctrl+C tests would fail far from the cause. Put
    back here, and the test (or the fixture set up before it) named in a
    warning."""
    _default_sigint(f"before {request.node.nodeid} (its fixtures)")
    yield
    _default_sigint(f"during {request.node.nodeid}")


@pytest.fixture(autouse=True, scope="module")
def _sigint_kept_by_modules(request):
    """The same, around a test file: set up before its own module fixtures,
    so it is torn down after them and names a file whose fixtures changed it."""
    _default_sigint(f"before {request.node.nodeid}'s module fixtures")
    yield
    _default_sigint(f"when {request.node.nodeid}'s module fixtures ended")


def _default_sigint(when: str) -> None:
    handler = signal.getsignal(signal.SIGINT)
    if handler is not signal.default_int_handler:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        warnings.warn(f"SIGINT's handler was {handler!r} {when}; python's default put back")
