"""Passivity-based control (seed 000 Sec. IV-A)."""

from .experiments import torsion_experiment
from .passivity import AdaptiveSlotineLi, SlotineLi
from .reference import GroupTrackingError, group_tracking_error

__all__ = [
    "SlotineLi",
    "AdaptiveSlotineLi",
    "torsion_experiment",
    "group_tracking_error",
    "GroupTrackingError",
]
