"""MuJoCo's view of a geomech model, for the benchmarks (not a benchmark: ``run.py`` runs
``bench_*``). MuJoCo is an optional bench dependency (``pip install mujoco``).

- :func:`mjcf`: the model as MJCF (bodies at their joint placements, inertias, revolute,
  prismatic, spherical and free joints, no geoms, contacts and constraints off);
- :func:`to_mujoco_state`: geomech's ``(q, v, a)`` in MuJoCo's coordinates and the map of
  generalized forces back. MuJoCo's free joint has ``qpos = [p; quaternion (w, x, y, z)]`` and
  ``qvel = [ṗ in world axes; ω in body axes]``; geomech's ``q = [p; quaternion (x, y, z, w)]``
  and ``v = [ω; v]``, the body twist (angular first). With :math:`\\mathbf R` the base's
  rotation, :math:`\\dot{\\mathbf p} = \\mathbf R\\mathbf v`, :math:`\\ddot{\\mathbf p} =
  \\mathbf R(\\dot{\\mathbf v} + \boldsymbol\\omega\times\\mathbf v)`, and a force
  :math:`\\mathbf f_w` on MuJoCo's linear coordinates is :math:`\\mathbf R^\top\\mathbf f_w` on
  geomech's (the same power). A ball joint's quaternion is reordered the same way.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation

__all__ = ["mjcf", "to_mujoco_state", "from_mujoco_force", "from_mujoco_acceleration"]


def mjcf(model) -> str:
    """The model as MJCF: bodies at their joint placements, inertias, joints (no geoms)."""
    children = {i: [] for i in range(-1, model.n_bodies)}
    for i, p in enumerate(model.parent):
        children[int(p)].append(i)

    def body(i, depth):
        X, joint, I_ = model.placements[i], model.joints[i], model.inertias[i]  # noqa: N806
        m = I_[5, 5]
        c = np.array([I_[2, 4], I_[0, 5], I_[1, 3]]) / m
        Ic = I_[:3, :3] - m * (c @ c * np.eye(3) - np.outer(c, c))
        w, x, y, z = _wxyz(X[:3, :3])
        pad = "  " * depth
        out = [
            f'{pad}<body name="b{i}" pos="{_f(X[:3, 3])}" quat="{w} {x} {y} {z}">',
            f'{pad}  <inertial pos="{_f(c)}" mass="{m}" fullinertia="{Ic[0, 0]} {Ic[1, 1]} '
            f'{Ic[2, 2]} {Ic[0, 1]} {Ic[0, 2]} {Ic[1, 2]}"/>',
        ]
        kind = joint.kind
        if kind == "revolute":
            out.append(f'{pad}  <joint type="hinge" axis="{_f(joint.axis)}"/>')
        elif kind == "prismatic":
            out.append(f'{pad}  <joint type="slide" axis="{_f(joint.axis)}"/>')
        elif kind == "spherical":
            out.append(f'{pad}  <joint type="ball"/>')
        elif kind == "free_flyer":
            out.append(f"{pad}  <freejoint/>")
        for k in children[i]:
            out += body(k, depth + 1)
        return out + [f"{pad}</body>"]

    lines = [b for i in children[-1] for b in body(i, 2)]
    g = model.gravity
    return "\n".join(
        [
            '<mujoco model="geomech">',
            '  <compiler angle="radian" autolimits="true"/>',
            f'  <option timestep="0.001" integrator="RK4" gravity="{_f(g)}">',
            '    <flag contact="disable" constraint="disable"/>',
            "  </option>",
            "  <worldbody>",
            *lines,
            "  </worldbody>",
            "</mujoco>",
        ]
    )


def _f(x):
    return " ".join(f"{float(a):.17g}" for a in np.ravel(x))


def _wxyz(R):
    x, y, z, w = Rotation.from_matrix(R).as_quat()
    return w, x, y, z


def _blocks(model, m):
    """Per MuJoCo joint: (kind, geomech q slice, geomech v slice, MuJoCo qpos slice, MuJoCo
    qvel slice). MuJoCo numbers joints depth first; geomech's bodies ``b{i}`` keep their index
    in the MJCF names."""
    import mujoco

    out = []
    for jj in range(m.njnt):
        i = int(m.body(m.jnt_bodyid[jj]).name[1:])
        name, kind = model.joint_names[i], model.joints[i].kind
        sq, sv = model.q_slice(name), model.v_slice(name)
        pa, da = int(m.jnt_qposadr[jj]), int(m.jnt_dofadr[jj])
        width = {int(mujoco.mjtJoint.mjJNT_FREE): (7, 6), int(mujoco.mjtJoint.mjJNT_BALL): (4, 3)}
        nq, nv = width.get(int(m.jnt_type[jj]), (1, 1))
        out.append((kind, sq, sv, slice(pa, pa + nq), slice(da, da + nv)))
    return out


def to_mujoco_state(model, m, q, v, a=None):
    """``(qpos, qvel, qacc)`` of the MuJoCo model ``m`` for geomech's state (``qacc`` None
    without ``a``)."""
    qpos, qvel = np.empty(m.nq), np.empty(m.nv)
    qacc = None if a is None else np.empty(m.nv)
    for kind, sq, sv, mq, mv in _blocks(model, m):
        qq, vv = q[sq], v[sv]
        aa = None if a is None else a[sv]
        if kind == "free_flyer":
            R = Rotation.from_quat(qq[3:]).as_matrix()
            w, lin = vv[:3], vv[3:]
            qpos[mq] = np.r_[qq[:3], qq[6], qq[3:6]]
            qvel[mv] = np.r_[R @ lin, w]
            if a is not None:
                qacc[mv] = np.r_[R @ (aa[3:] + np.cross(w, lin)), aa[:3]]
            continue
        qpos[mq] = np.r_[qq[3], qq[:3]] if kind == "spherical" else qq
        qvel[mv] = vv
        if a is not None:
            qacc[mv] = aa
    return qpos, qvel, qacc


def from_mujoco_force(model, m, q, f):
    """A MuJoCo generalized force ``f`` as geomech's (the same power on every velocity)."""
    out = np.empty(model.nv)
    for kind, sq, sv, _, mv in _blocks(model, m):
        ff = f[mv]
        if kind == "free_flyer":
            R = Rotation.from_quat(q[sq][3:]).as_matrix()
            out[sv] = np.r_[ff[3:], R.T @ ff[:3]]
        else:
            out[sv] = ff
    return out


def from_mujoco_acceleration(model, m, q, v, qacc):
    """MuJoCo's ``qacc`` as geomech's ``a`` (the inverse of the map of
    :func:`to_mujoco_state`)."""
    out = np.empty(model.nv)
    for kind, sq, sv, _, mv in _blocks(model, m):
        aa = qacc[mv]
        if kind == "free_flyer":
            R = Rotation.from_quat(q[sq][3:]).as_matrix()
            w, lin = v[sv][:3], v[sv][3:]
            out[sv] = np.r_[aa[3:], R.T @ aa[:3] - np.cross(w, lin)]
        else:
            out[sv] = aa
    return out
