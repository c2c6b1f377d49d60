"""The Checkpoint panel (its trace fields come from engine/probes/checkpoint.py)."""

from autogradviz.app.panels.checkpoint.panel import CheckpointPanel

__all__ = ["CheckpointPanel"]
