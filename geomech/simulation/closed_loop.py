r"""Controllers and the closed-loop vector field of :func:`~geomech.simulation.simulate`.

A *static* controller is a callable ``controller(t, q, v) -> tau``; a *dynamic* controller
has a state :math:`x` (attribute ``state0``) with ``state_rate(t, q, v, x) -> x_dot`` and
``torque(t, q, v, x) -> tau``. :func:`closed_loop` assembles the vector field on the state
:math:`(q, y)`, :math:`y = [v, x]`, in the form the integration core steps.

Examples
--------
>>> import numpy as np
>>> from geomech.simulation.closed_loop import Control
>>> Control(lambda t, q, v: -v, 2).torque(0.0, np.zeros(2), np.ones(2), None)
array([-1., -1.])
"""

from __future__ import annotations

import numpy as np

from geomech._validation import as_array
from geomech.errors import DimensionError, DTypeError, GeomechError, SimulationError

__all__ = ["Control", "closed_loop", "callback_error"]


class Control:
    """A static controller ``tau(t, q, v)`` or a dynamic one (``state0``, ``state_rate``,
    ``torque``).

    Parameters
    ----------
    controller : callable, dynamic controller or None
        See :func:`~geomech.simulation.simulate`.
    nv : int
        Number of velocity coordinates (the torque's trailing dimension).
    lead : tuple of int, optional
        Batch shape of the simulated states: the controller's outputs must broadcast to it.

    Attributes
    ----------
    dynamic : bool
        Whether the controller has a state.
    m : int
        Dimension of its state (0 for a static controller).
    x0 : ndarray, shape (m,)
        Initial state of a dynamic controller.

    Raises
    ------
    DTypeError
        If ``controller`` is not callable, a dynamic controller lacks ``torque`` or
        ``state_rate``, or its ``state0`` is complex.
    DimensionError
        If ``state0`` is not 1-D.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.simulation.closed_loop import Control
    >>> Control(lambda t, q, v: -2.0 * v, 1).torque(0.0, np.zeros(1), np.ones(1), None)
    array([-2.])
    """

    def __init__(self, controller, nv: int, lead: tuple = ()):
        self.controller, self.nv, self.lead = controller, nv, tuple(lead)
        self.dynamic = (
            hasattr(controller, "state_rate") and getattr(controller, "state0", None) is not None
        )
        self.m = 0
        if self.dynamic:
            for attr in ("torque", "state_rate"):
                if not callable(getattr(controller, attr, None)):
                    raise DTypeError(
                        f"Expected a dynamic controller (it has `state0` and `state_rate`) "
                        f"to have a callable `{attr}`."
                    )
            x0 = as_array(controller.state0, "controller.state0")
            if x0.ndim != 1:
                raise DimensionError(
                    f"Expected `controller.state0` to be 1-D, got shape {x0.shape}."
                )
            self.x0 = x0
            self.m = x0.shape[0]
        elif controller is not None and not callable(controller):
            raise DTypeError(
                f"Expected `controller` to be callable or None, got {type(controller).__name__}."
            )

    def torque(self, t, q, v, x):
        """The validated torque ``(..., nv)`` at ``(t, q, v, x)`` (``None`` without a controller).

        Raises
        ------
        DTypeError, DimensionError, NonFiniteError
            If the controller returns complex, misshapen or non-finite torques (or ones whose
            batch dimensions do not broadcast to the states').
        SimulationError
            If the controller raises an exception that is not a ``GeomechError`` (it is the
            ``__cause__``).
        """
        if self.controller is None:
            return None
        if self.dynamic:
            name, fn, args = "controller.torque(t, q, v, x)", self.controller.torque, (q, v, x)
        else:
            name, fn, args = "controller(t, q, v)", self.controller, (q, v)
        return self._output(name, fn, t, args, self.nv)

    def state_rate(self, t, q, v, x):
        """The validated state rate ``(..., m)`` of a dynamic controller.

        Raises
        ------
        DTypeError, DimensionError, NonFiniteError
            If the controller returns a complex, misshapen or non-finite rate.
        SimulationError
            If the controller raises an exception that is not a ``GeomechError``.
        """
        name = "controller.state_rate(t, q, v, x)"
        return self._output(name, self.controller.state_rate, t, (q, v, x), self.m)

    def _output(self, name, fn, t, args, n):
        try:
            out = fn(t, *args)
        except GeomechError:
            raise
        except Exception as exc:  # the user's code failed: say where, keep it as the cause
            raise callback_error(name, t, exc) from exc
        out = as_array(out, name, (n,))
        lead = out.shape[:-1]
        if len(lead) > len(self.lead) or any(
            a != 1 and a != b for a, b in zip(lead[::-1], self.lead[::-1], strict=False)
        ):
            raise DimensionError(
                f"Expected `{name}` to have shape {self.lead + (n,)} (or one that broadcasts "
                f"to it), got {out.shape}."
            )
        return out.copy()  # the controller may reuse (and later change) the array it returned


def callback_error(name: str, t, exc: Exception) -> SimulationError:
    """The named error of a user callback ``name`` that raised ``exc`` at time ``t``.

    Examples
    --------
    >>> from geomech.simulation.closed_loop import callback_error
    >>> callback_error("controller(t, q, v)", 0.5, ZeroDivisionError("division by zero"))
    SimulationError('controller(t, q, v) raised ZeroDivisionError at t = 0.5: division by zero')
    """
    text = " ".join(str(exc).split())  # one line
    return SimulationError(
        f"{name} raised {type(exc).__name__} at t = {float(t):.6g}: {text}"
        + (" (its inputs are read-only: copy them to change them)" if "read-only" in text else "")
    )


def closed_loop(chart, control: Control, lead: tuple):
    """``field(t, q, y) -> (ξ, ẏ, τ)`` on the state ``y = [v, x]`` (velocity, controller state).

    Parameters
    ----------
    chart : SystemChart
        The system (its ``velocity`` and ``acceleration``).
    control : Control
    lead : tuple of int
        Batch shape of the state.

    Returns
    -------
    callable
        The vector field in the form the integration core steps (the torque as ``aux``).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry.examples import point_mass
    >>> from geomech.simulation.charts import system_chart
    >>> from geomech.simulation.closed_loop import Control, closed_loop
    >>> chart, _ = system_chart(point_mass(1.0, dim=1), [0.0])
    >>> field = closed_loop(chart, Control(lambda t, q, v: -q, 1), ())
    >>> field(0.0, np.array([2.0]), np.array([0.5]))  # (ξ = v, v̇ = τ = -q, τ)
    (array([0.5]), array([-2.]), array([-2.]))
    """
    nv, m = chart.nv, control.m

    def field(t, q, y):
        v, x = y[..., :nv], y[..., nv:]
        tau = control.torque(t, _read_only(q), _read_only(v), _read_only(x))
        v_dot = np.broadcast_to(chart.acceleration(t, q, v, tau), lead + (nv,))
        if m:
            x_dot = np.broadcast_to(
                control.state_rate(t, _read_only(q), _read_only(v), _read_only(x)), lead + (m,)
            )
            y_dot = np.concatenate([v_dot, x_dot], axis=-1)
        else:
            y_dot = v_dot
        return chart.velocity(t, q, v), y_dot, tau

    return field


def _read_only(x: np.ndarray) -> np.ndarray:
    """A read-only view: a callback that writes into its inputs cannot change the state."""
    view = x.view()
    view.flags.writeable = False
    return view
