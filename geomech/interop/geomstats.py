"""geomstats interop (in progress)."""

__all__ = []
