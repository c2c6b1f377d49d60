"""`python -m autogradviz.engine.worker`: the worker process (see service.py)."""

from autogradviz.engine.worker.std_fds import move_std_fds

_PROTO_FDS = move_std_fds()  # before torch (or anything heavy) is imported

from autogradviz.engine.worker.service import main  # noqa: E402

main(_PROTO_FDS)
