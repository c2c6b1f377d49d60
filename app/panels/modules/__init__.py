"""The Modules panel: a layer table (output shapes, parameter counts) from the trace
(its trace field, `Trace.modules`, comes from engine/probes/modules.py)."""

from autogradviz.app.panels.modules.panel import ModulesPanel

__all__ = ["ModulesPanel"]
