"""Passivity-based control (seed 000 Sec. IV-A)."""

from .experiments import torsion_experiment
from .passivity import SlotineLi

__all__ = ["SlotineLi", "torsion_experiment"]
