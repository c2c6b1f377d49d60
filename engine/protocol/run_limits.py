"""How long a worker may take to start and a run to end, import-free.

Apart from messages.py (which re-exports them) so that the worker's
configuration (worker_config.py) can be read without the protocol's message
types: `autogradviz trace` starts its worker before importing those, and
the two imports then overlap (app/cli/main.py).
"""

DEFAULT_RUN_TIMEOUT_S = 60.0
START_TIMEOUT_S = 180.0  # importing torch on a cold disk can take a while
