"""`python -m autogradviz.engine.worker`: the worker process (see service.py)."""

from autogradviz.engine.worker.std_fds import move_std_fds

_PROTO_FDS = move_std_fds()  # before torch (or anything heavy) is imported

from autogradviz.engine.worker.relay_folders import remove_stale_relay_folders  # noqa: E402
from autogradviz.engine.worker.service import main  # noqa: E402

remove_stale_relay_folders()  # of workers killed mid-run (engine/worker/relay_folders.py)
main(_PROTO_FDS)
