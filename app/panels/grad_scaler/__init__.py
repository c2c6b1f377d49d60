"""The GradScaler panel (its trace fields come from engine/probes/grad_scaler.py)."""

from autogradviz.app.panels.grad_scaler.panel import GradScalerPanel

__all__ = ["GradScalerPanel"]
