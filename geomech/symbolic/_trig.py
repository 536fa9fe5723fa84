r"""Trigonometric polynomials in exponential form: the fast normal form of :mod:`geomech.symbolic`.

Every entry of the kinematics and dynamics of a tree of revolute, prismatic and helical joints
is a polynomial in :math:`\cos q_k`, :math:`\sin q_k`, the translations :math:`q_k` and the
speeds :math:`v_k`. With :math:`z_k = e^{iq_k}` and :math:`w_k = e^{-iq_k}`,

.. math:: \cos q_k = \tfrac12(z_k + w_k), \qquad \sin q_k = -\tfrac i2(z_k - w_k),

it is a polynomial in :math:`z_k, w_k, q_k, v_k` with Gaussian-rational coefficients, reduced
by :math:`z_k w_k = 1`. Reduced, each monomial :math:`c\,e^{i\mathbf k\cdot\mathbf q}\,
\mathbf q^{\boldsymbol\alpha}\mathbf v^{\boldsymbol\beta}` is one Fourier mode, so the form is
unique (an identity holds iff both sides reduce to the same polynomial), products are sparse
polynomial products (sympy's ``ring``, much faster than expanding expressions), and
:math:`\partial/\partial q_k` multiplies each monomial by :math:`i(a_k - b_k)`. Read back, a
pair of modes :math:`\pm\mathbf k` gives :math:`2\operatorname{Re}c\cos(\mathbf k\cdot\mathbf q)
- 2\operatorname{Im}c\sin(\mathbf k\cdot\mathbf q)`: the sums of angles of a chain, e.g.
``cos(q2 + q3)``, appear by themselves.
"""

from __future__ import annotations

from sympy import QQ, QQ_I, Add, Mul, cos, factor_terms, ring, sin
from sympy import I as _i
from sympy.polys.rings import PolyElement

from geomech.errors import ParameterError

__all__ = ["TrigRing"]


class TrigRing:
    r"""Polynomials in :math:`e^{\pm iq_k}`, :math:`q_k` and :math:`v_k` (:math:`k = 1..n`).

    Parameters
    ----------
    q, v : sequence of sympy.Symbol
        The coordinates and speeds (the names of the result of :meth:`to_expr`).
    """

    def __init__(self, q, v):
        self.q, self.v, n = list(q), list(v), len(q)
        self.n = n
        names = [f"{s}{k + 1}" for s in ("z", "w", "x", "u") for k in range(n)] or ["unit"]
        self.R, *gens = ring(names, QQ_I)
        self.z, self.w = gens[:n], gens[n : 2 * n]
        self.x, self.u = gens[2 * n : 3 * n], gens[3 * n : 4 * n]  # q_k and v_k themselves
        self.half = QQ_I(QQ(1, 2), 0)
        self._minus_half_i = QQ_I(0, QQ(-1, 2))
        self._table = None  # sympy leaves -> ring elements, built on first use

    # ---- elements
    def const(self, c):
        """A rational number (sympy or Python) as a constant polynomial."""
        return self.R(c)

    def cos(self, k: int):
        r""":math:`\cos q_k = (z_k + w_k)/2`."""
        return (self.z[k] + self.w[k]) * self.half

    def sin(self, k: int):
        r""":math:`\sin q_k = -i(z_k - w_k)/2`."""
        return (self.z[k] - self.w[k]) * self._minus_half_i

    # ---- the normal form
    def reduce(self, p):
        """Cancel :math:`z_k w_k = 1` in every monomial."""
        p = p if isinstance(p, PolyElement) else self.R(p)  # a number from an empty sum
        n, out = self.n, {}
        for monom, c in p.items():
            m = list(monom)
            for k in range(n):
                d = min(m[k], m[n + k])
                m[k] -= d
                m[n + k] -= d
            m = tuple(m)
            out[m] = out.get(m, 0) + c
        return self.R.from_dict({m: c for m, c in out.items() if c})

    def diff(self, p, k: int):
        r""":math:`\partial p/\partial q_k` of a reduced polynomial (modes and translations)."""
        n, out = self.n, {}
        for monom, c in p.items():
            freq = monom[k] - monom[n + k]  # d/dq e^{i f q} = i f e^{i f q}
            if freq:
                out[monom] = c * QQ_I(0, freq)
        return self.R.from_dict(out) + p.diff(self.x[k])

    # ---- back to sympy
    def to_expr(self, p):
        r"""A real sympy expression: Fourier modes (pairs ±k) with polynomial coefficients.

        :math:`\sum_{\mathbf k} a_{\mathbf k}(\mathbf q, \mathbf v)\cos(\mathbf k\cdot
        \mathbf q) + b_{\mathbf k}(\mathbf q, \mathbf v)\sin(\mathbf k\cdot\mathbf q)`,
        one term per mode, the first nonzero entry of :math:`\mathbf k` positive.
        """
        n, modes = self.n, {}
        for monom, c in self.reduce(p).items():
            freq = tuple(monom[k] - monom[n + k] for k in range(n))
            lead = next((f for f in freq if f), 0)
            if lead < 0:  # the conjugate of a mode written below (a real expression)
                continue
            rest = Mul(
                *[self.q[k] ** monom[2 * n + k] for k in range(n)],
                *[self.v[k] ** monom[3 * n + k] for k in range(n)],
            )
            re, im = QQ.to_sympy(c.x), QQ.to_sympy(c.y)
            scale = 1 if lead == 0 else 2  # c e^{ikq} + conj(c) e^{-ikq}
            modes.setdefault((freq, cos), []).append(scale * re * rest)
            if lead:
                modes.setdefault((freq, sin), []).append(-scale * im * rest)
        terms = []
        for (freq, trig), coeffs in sorted(modes.items(), key=lambda m: (m[0][0], str(m[0][1]))):
            a = factor_terms(Add(*coeffs))  # e.g. -(v1 + v2)
            if any(freq):
                a *= trig(Add(*[f * self.q[k] for k, f in enumerate(freq) if f]))
            terms.append(a)
        return Add(*terms)

    def from_expr(self, e):
        """A sympy polynomial in ``cos(q_k)``, ``sin(q_k)``, ``q_k``, ``v_k`` and ``I`` (no
        reduction).
        """
        if self._table is None:
            table = {_i: self.R(QQ_I(0, 1))}
            for k in range(self.n):
                table[cos(self.q[k])] = self.cos(k)
                table[sin(self.q[k])] = self.sin(k)
                table[self.q[k]] = self.x[k]
                table[self.v[k]] = self.u[k]
            self._table = table
        return self.reduce(_evaluate(e, self._table, self.R))


def _evaluate(e, table, R):
    """Evaluate a sympy expression tree with leaves replaced from ``table`` in the ring ``R``."""
    if e in table:
        return table[e]
    if e.is_Number:
        return R(e)
    if e.is_Add:
        out = R.zero
        for a in e.args:
            out += _evaluate(a, table, R)
        return out
    if e.is_Mul:
        out = R.one
        for a in e.args:
            out *= _evaluate(a, table, R)
        return out
    if e.is_Pow and e.exp.is_Integer and e.exp >= 0:
        return _evaluate(e.base, table, R) ** int(e.exp)
    raise ParameterError(
        f"Expected a polynomial in cos(q_k), sin(q_k), q_k and v_k, got the term {e}."
    )
