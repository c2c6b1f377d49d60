"""Private copies of fds 0/1 for the worker protocol, made before anything heavy loads.

Native code (torch's C++ warnings, a C extension's printf, `os.write(1, ...)` in a
script) writes to file descriptor 1 directly, bypassing `sys.stdout`. If fd 1 were
the protocol pipe, such bytes would corrupt the message stream. So the worker keeps
a private duplicate of the real stdout for the protocol and points fd 1 at stderr;
likewise the protocol's stdin is moved aside and fd 0 reads /dev/null, so a script
calling `input()` gets EOF instead of eating requests. Standard library only: it
runs before torch is imported.
"""

from __future__ import annotations

import os


def move_std_fds():
    """Keep private copies of fds 0/1 for the protocol; neuter the originals."""
    proto_out = os.dup(1)
    proto_in = os.dup(0)
    os.dup2(2, 1)  # anything written to fd 1 now lands on stderr
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    try:
        os.set_inheritable(proto_out, False)
        os.set_inheritable(proto_in, False)
    except OSError:
        pass
    return proto_in, proto_out
