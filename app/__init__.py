"""The Qt GUI process (never imports torch).

Importing this package applies the start-up workaround of `startup` before any
Qt call can be made (see that module for why it must come first).
"""

from autogradviz.app.startup import keep_none_alive as _keep_none_alive

_keep_none_alive()
