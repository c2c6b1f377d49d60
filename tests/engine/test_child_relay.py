"""The relay children report to (engine/worker/children.py), and the way a
recorded child ends (engine/worker/child_exit.py), with real sockets, real
processes and real signals."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

from autogradviz.engine.worker.children import ChildRelay

posix_only = pytest.mark.skipif(os.name != "posix", reason="AF_UNIX relay and POSIX signals")


@posix_only
def test_close_returns_when_the_acceptor_has_already_given_up():
    """A child killed in the middle of its handshake, seen while the relay
    closes, makes the acceptor return; close() must not then wait forever
    for an answer to its own wake-up handshake."""
    relay = ChildRelay(lambda stream, text: None)
    relay._closing = True
    dead = socket.socket(socket.AF_UNIX)
    dead.connect(relay.address)
    dead.close()  # (the handshake fails: the acceptor returns)
    relay._acceptor.join(5.0)
    assert not relay._acceptor.is_alive()
    done = threading.Event()
    threading.Thread(target=lambda: (relay.close(), done.set()), daemon=True).start()
    assert done.wait(10.0), "close() hung"


CHILD = r'''
import os, signal, sys, threading, time
from autogradviz.engine.worker.child_exit import Once, send_on_sigterm
out = sys.argv[1]
mode = sys.argv[2]
def send():
    if mode == "slow":  # the child was already sending at its end when the signal came
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.3)
    with open(out, "a") as f:
        f.write("sent\n")
send = Once(send)
send_on_sigterm(send)
print("ready", flush=True)
if mode == "slow":
    send()  # (its normal end)
    with open(out, "a") as f:
        f.write("lived on\n")
else:
    time.sleep(30)
'''


@posix_only
@pytest.mark.parametrize("mode", ["idle", "slow"])
def test_a_terminated_child_sends_once_then_dies_by_sigterm(tmp_path, mode):
    out = tmp_path / "sent.txt"
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    proc = subprocess.Popen([sys.executable, str(script), str(out), mode], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    if mode == "idle":
        proc.send_signal(signal.SIGTERM)
    assert proc.wait(20) == -signal.SIGTERM  # the exit status python gives a terminated process
    assert out.read_text() == "sent\n"  # sent once, and nothing ran after the signal


@posix_only
def test_a_child_dying_mid_handshake_does_not_stop_the_relay():
    """A child killed while it connects (SIGTERM from Pool.terminate() can
    come that early) must not leave the relay deaf to the others."""
    import struct

    from multiprocessing.connection import Client

    relay = ChildRelay(lambda stream, text: None)
    try:
        for _ in range(3):
            dead = socket.socket(socket.AF_UNIX)
            dead.connect(relay.address)
            dead.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            dead.close()  # (reset: the acceptor's handshake fails with an OSError)
        time.sleep(0.2)
        assert relay._acceptor.is_alive()
        link = Client(relay.address, authkey=relay.key)
        link.send_bytes(b'H{"pid": 1, "index": 0}')
        link.send_bytes(b"T{}")
        link.close()
    finally:
        relay.close()
    assert relay.traces() == [({"pid": 1, "index": 0}, b"{}")]
