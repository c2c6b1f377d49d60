"""The Memory panel (its feature declaration, and when it shows, are in app/features/memory.py)."""

from autogradviz.app.panels.memory.panel import MemoryPanel

__all__ = ["MemoryPanel"]
