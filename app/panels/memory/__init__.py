"""The Memory panel (its trace fields come from engine/probes/memory.py)."""

from autogradviz.app.panels.memory.panel import MemoryPanel, has_backward_memory

__all__ = ["MemoryPanel", "has_backward_memory"]
