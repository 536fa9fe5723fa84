"""Passivity-based control (seed 000 Sec. IV-A) and joint-space tracking laws."""

from .experiments import torsion_experiment
from .joint_space import PD, ComputedTorque
from .passivity import AdaptiveSlotineLi, SlotineLi
from .reference import GroupTrackingError, group_tracking_error

__all__ = [
    "SlotineLi",
    "AdaptiveSlotineLi",
    "PD",
    "ComputedTorque",
    "torsion_experiment",
    "group_tracking_error",
    "GroupTrackingError",
]
