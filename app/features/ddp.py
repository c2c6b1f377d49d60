"""DistributedDataParallel, declared as one feature: its all-reduce events,
marked on the stepper's timeline and written in its event list
(app/panels/processes.py). The rank switch stays the stepper's: it also
tells threads and processes apart without DDP."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP

from autogradviz.app.features import FeatureSpec
from autogradviz.app.panels.processes import allreduce_marks, allreduce_text

FEATURE = FeatureSpec(
    id="ddp",
    stepper_marks=allreduce_marks,
    event_texts={"allreduce": allreduce_text},
    event_titles={"allreduce": (str(QT_TRANSLATE_NOOP("GraphScene", "DDP all-reduce")),
                                str(QT_TRANSLATE_NOOP("GraphScene", "DDP all-reduce")))},
)
