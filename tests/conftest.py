"""Shared test setup: Qt runs offscreen unless the caller chose a platform."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import signal
import warnings

import pytest


# A test process started in the background by a non-interactive shell
# (`make test &` in a script) inherits SIGINT ignored, python leaves it so,
# and every process a test starts would inherit it too: the CLI's Ctrl+C tests
# would then see a CLI that ignores Ctrl+C. Python's own handler here (a
# background job gets no Ctrl+C from a terminal anyway).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def _sigint_kept(request):
    """SIGINT's handler is python's default (KeyboardInterrupt) around every
    test. One left changed in this process (a library run in-process may
    set its own) would reach the next tests, and one left ignored every
    later child process (SIG_IGN survives exec). Put back here, and the test (or the fixture set up before it)
    named in a warning."""
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
