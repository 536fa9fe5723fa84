"""The result of :func:`~geomech.simulation.simulate` and its ``.npz`` file format.

Examples
--------
>>> import numpy as np
>>> from geomech.lie import SO3
>>> from geomech.rigidbody import RigidBody
>>> from geomech.simulation import SimulationResult, simulate
>>> res = simulate(RigidBody(SO3, np.eye(3)), np.eye(3), [0.0, 0.0, 1.0], 1.0, dt=0.5)
>>> isinstance(res, SimulationResult), res.q.shape
(True, (3, 3, 3))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from geomech.errors import SimulationError

__all__ = ["SimulationResult"]


@dataclass(frozen=True, eq=False)
class SimulationResult:
    """Trajectory returned by :func:`simulate` (time is the first axis of every array).

    Attributes
    ----------
    t : ndarray, shape (N + 1,)
        Output times.
    q : ndarray, shape (N + 1, ..., *point_shape)
        Configurations: group elements (e.g. rotation matrices for a body on SO(3)) or the
        ``q`` vectors of a multibody model (``(N + 1, ..., nq)``).
    v : ndarray, shape (N + 1, ..., nv)
        Velocities (body velocities on a group, joint speeds for a multibody model).
    tau : ndarray, shape (N + 1, ..., nv)
        Generalized forces applied at the recorded states (zeros without a controller).
    method : str
        Name of the integrator.
    signals : dict of str to ndarray
        Logged signals, ``signals[name]`` of shape ``(N + 1, ...)`` (see ``log`` in
        :func:`simulate`).
    controller_state : ndarray, shape (N + 1, ..., m), or None
        State of a dynamic controller (``None`` for a static controller).
    error_estimate : float or None
        Fixed-step runs: the global error estimated by step doubling, in units of the
        tolerance (``> 1``: the step is too large for it); ``None`` for adaptive runs and
        with ``on_inaccuracy="ignore"``.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SE2
    >>> from geomech.rigidbody import RigidBody
    >>> from geomech.simulation import simulate
    >>> res = simulate(RigidBody(SE2, np.eye(3)), np.eye(3), [0.0, 1.0, 0.0], t_final=2.0, dt=0.5)
    >>> res.t, res.q[-1][:2, 2]
    (array([0. , 0.5, 1. , 1.5, 2. ]), array([2., 0.]))
    """

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    tau: np.ndarray
    method: str
    signals: dict = field(default_factory=dict)
    controller_state: np.ndarray | None = None
    error_estimate: float | None = None

    def save(self, path) -> Path:
        """Write the result to an uncompressed ``.npz`` file (no pickling).

        Parameters
        ----------
        path : str or os.PathLike
            Target file; ``.npz`` is appended if missing.

        Returns
        -------
        pathlib.Path
            The file written.

        Raises
        ------
        SimulationError
            If a signal name is not a non-empty string.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> import numpy as np
        >>> from geomech.geometry.examples import point_mass
        >>> from geomech.simulation import SimulationResult, simulate
        >>> res = simulate(point_mass(), np.zeros(3), np.ones(3), 1.0, dt=0.5,
        ...                log={"x": lambda t, q, v, tau: q[0]})
        >>> with tempfile.TemporaryDirectory() as d:
        ...     back = SimulationResult.load(res.save(pathlib.Path(d) / "run"))
        >>> back.signals["x"], back.method
        (array([0. , 0.5, 1. ]), 'rkmk4')
        """
        path = Path(path)
        if path.suffix != ".npz":
            path = path.with_name(path.name + ".npz")
        arrays = {
            "t": self.t,
            "q": self.q,
            "v": self.v,
            "tau": self.tau,
            "method": np.array(self.method),
        }
        if self.controller_state is not None:
            arrays["controller_state"] = self.controller_state
        if self.error_estimate is not None:
            arrays["error_estimate"] = np.array(self.error_estimate)
        for name, value in self.signals.items():
            if not isinstance(name, str) or not name:
                raise SimulationError(
                    f"Expected signal names to be non-empty strings, got {name!r}."
                )
            arrays["signal." + name] = value
        np.savez(path, **arrays)
        return path

    @classmethod
    def load(cls, path) -> SimulationResult:
        """Read a result written by :meth:`save`.

        Parameters
        ----------
        path : str or os.PathLike
            An ``.npz`` file written by :meth:`save`.

        Returns
        -------
        SimulationResult

        Raises
        ------
        SimulationError
            If the file lacks one of ``t``, ``q``, ``v``, ``tau``, ``method``.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> import numpy as np
        >>> from geomech.lie import SO3
        >>> from geomech.rigidbody import RigidBody
        >>> from geomech.simulation import SimulationResult, simulate
        >>> res = simulate(RigidBody(SO3, np.eye(3)), np.eye(3), [0.0, 0.0, 1.0], 1.0, dt=0.1)
        >>> with tempfile.TemporaryDirectory() as d:
        ...     back = SimulationResult.load(res.save(pathlib.Path(d) / "spin.npz"))
        >>> bool(np.array_equal(back.q, res.q)), back.controller_state is None
        (True, True)
        """
        with np.load(path, allow_pickle=False) as data:
            missing = [k for k in ("t", "q", "v", "tau", "method") if k not in data.files]
            if missing:
                raise SimulationError(
                    f"Expected a SimulationResult .npz file; {path} lacks {missing}."
                )
            signals = {k[len("signal.") :]: data[k] for k in data.files if k.startswith("signal.")}
            state = data["controller_state"] if "controller_state" in data.files else None
            error = float(data["error_estimate"]) if "error_estimate" in data.files else None
            return cls(
                t=data["t"],
                q=data["q"],
                v=data["v"],
                tau=data["tau"],
                method=str(data["method"]),
                signals=signals,
                controller_state=state,
                error_estimate=error,
            )
