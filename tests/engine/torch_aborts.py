"""torch's own gloo teardown abort, told apart from our failures.

Now and then a rank of a two-process gloo script is killed by SIGABRT as it
ends ("terminate called without an active exception"; torch reports "process
0 terminated with signal SIGABRT"). It happens under plain `python`, without
the app: once in a CI run, and once twice in a row in another. A run that
torch aborted this way is made again, up to TRIES times in all; any other
failure, or an abort every time, still fails the test.
"""

from __future__ import annotations

from typing import Callable, TypeVar

T = TypeVar("T")
TRIES = 4


def aborted(text: str) -> bool:
    """torch.multiprocessing.spawn's report of a rank killed by a signal."""
    return "terminated with signal" in text


def until_torch_keeps_its_ranks(run: Callable[[], T], output: Callable[[T], str], tries: int = TRIES) -> T:
    """`run()`'s result, made again while torch aborted a rank in it (`output`
    gives the text to look in: stderr, or the recorded error)."""
    result = run()
    for _ in range(tries - 1):
        if not aborted(output(result)):
            break
        result = run()
    return result
