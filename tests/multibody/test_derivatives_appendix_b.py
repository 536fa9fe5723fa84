"""Seed 002's App. B block formulas, written with the tensor operators of ``geomech.spatial``,
against the IDSVA SO tensors (digest T3): an independent route (numpy, ground-frame
quantities rebuilt here from ``forward_kinematics``) that exercises the tensor extension on
real dynamics, and the check of the B17 misprint (digest §4.3).

App. B uses the halved Coriolis factor (eq. 6) and writes the cross terms in the order
[τ, q̇, q]; ``d2tau_dqdv`` is [τ, q, q̇], so App. B's block is its ``tensor_rotate``.
"""

import numpy as np
import pytest

from geomech.multibody import robots
from geomech.multibody.algorithms.derivatives import rnea_second_derivatives
from geomech.multibody.algorithms.kinematics import forward_kinematics
from geomech.spatial import (
    coriolis_tensor,
    crbar,
    crbar_tensor,
    crf,
    crf_tensor,
    crm,
    crm_tensor,
    matmul_tensor,
    skew,
    tensor_matmul,
    tensor_rotate,
    tensor_transpose,
)

R_, T_ = tensor_rotate, tensor_transpose


def ground_quantities(model, q, v, a):
    """Seed 002 Alg. 1 l.1-11 in numpy, composites summed over subtrees (halved B^C)."""
    T = forward_kinematics(model, q)
    N = model.n_bodies
    S, Psid, Psidd, Sd, I, B, f = [], [], [], [], [], [], []
    vel, acc = [None] * N, [None] * N
    a0 = np.concatenate([np.zeros(3), -model.gravity])
    for i, joint in enumerate(model.joints):
        Rm, p = T[i, :3, :3], T[i, :3, 3]
        Ad = np.block([[Rm, np.zeros((3, 3))], [skew(p) @ Rm, Rm]])
        Si = Ad @ joint.motion_subspace(q[model.q_slices[i]])
        Adinv = np.linalg.inv(Ad)
        Ii = Adinv.T @ model.inertias[i] @ Adinv
        par = model.parent[i]
        v_p, a_p = (np.zeros(6), a0) if par < 0 else (vel[par], acc[par])
        vJ = Si @ v[model.v_slices[i]]
        vel[i] = v_p + vJ
        acc[i] = a_p + Si @ a[model.v_slices[i]] + crm(vel[i]) @ vJ
        S.append(Si)
        Sd.append(crm(vel[i]) @ Si)
        Psid.append(crm(v_p) @ Si)
        Psidd.append(crm(a_p) @ Si + crm(v_p) @ Psid[-1])
        I.append(Ii)
        B.append(0.5 * (crf(vel[i]) @ Ii - Ii @ crm(vel[i]) + crbar(Ii @ vel[i])))
        f.append(Ii @ acc[i] + crf(vel[i]) @ Ii @ vel[i])
    IC = [sum(I[k] for k in model.subtree(i)) for i in range(N)]
    BC = [sum(B[k] for k in model.subtree(i)) for i in range(N)]
    fC = [sum(f[k] for k in model.subtree(i)) for i in range(N)]
    return S, Psid, Psidd, Sd, IC, BC, fC


def blocks(i, j, k, S, Psid, Psidd, Sd, IC, BC, fC, b17_printed=False):
    """App. B rows B1, B3, B5, B7, B9, B13, B15–B20, B22, B24 for k ⪯ j ⪯ i (halved B)."""
    Si, Sj, Sk = S[i], S[j], S[k]
    BCS = coriolis_tensor(IC[i], Si)  # 𝓑^C_i[S_i]
    BCP = coriolis_tensor(IC[i], Psid[i])  # 𝓑^C_i[Ψ̇_i]
    A1 = tensor_matmul(crf_tensor(Si), BC[i]) - matmul_tensor(BC[i], crm_tensor(Si))
    A2 = tensor_matmul(crf_tensor(Si), IC[i]) - matmul_tensor(IC[i], crm_tensor(Si))
    ICS = crbar_tensor(IC[i] @ Si)  # (I^C_i S_i) ×̄~*
    out = {}
    # B1 (k ⪯ j ⪯ i): ∂²τ_i/∂q_j∂q_k
    out["B1"] = -T_(
        matmul_tensor(Psid[j].T, R_(tensor_matmul(2 * BCS, Psid[k])))
        + matmul_tensor(Sj.T, R_(tensor_matmul(crbar_tensor(2 * BC[i].T @ Si), Psid[k])))
        + matmul_tensor(Sj.T, R_(tensor_matmul(ICS, Psidd[k])))
    )
    if k != j:  # B3 (k ≺ j ⪯ i): ∂²τ_k/∂q_i∂q_j
        inner = R_(tensor_matmul(2 * (BCP + A1), Psid[j]) + tensor_matmul(A2, Psidd[j]))
        w = 2 * BC[i] @ Psid[i] + IC[i] @ Psidd[i] + crbar(fC[i]) @ Si
        out["B3"] = matmul_tensor(Sk.T, inner + tensor_matmul(crf_tensor(Sj), w))
    if j != i:  # B5 (k ⪯ j ≺ i): ∂²τ_j/∂q_k∂q_i
        out["B5"] = matmul_tensor(
            Sj.T, tensor_matmul(2 * (BCP + A1), Psid[k]) + tensor_matmul(A2, Psidd[k])
        )
    if k != j:  # B7 (k ≺ j ⪯ i): ∂²τ_i/∂q̇_j∂q̇_k
        out["B7"] = -T_(matmul_tensor(Sj.T, R_(tensor_matmul(2 * BCS, Sk))))
    else:  # B9 (k = j ⪯ i)
        out["B9"] = -T_(matmul_tensor(Sj.T, R_(tensor_matmul(A2, Sk))))
    if j != i:  # B13 (k ⪯ j ≺ i): ∂²τ_j/∂q̇_k∂q̇_i
        out["B13"] = matmul_tensor(Sj.T, tensor_matmul(2 * BCS, Sk))
    # cross terms, App. B order [τ, q̇, q]
    out["B15"] = -T_(matmul_tensor(Sj.T, R_(tensor_matmul(2 * BCS, Psid[k]))))  # τ_i, q̇_j, q_k
    if j != i:  # B16: τ_j, q̇_i, q_k
        out["B16"] = matmul_tensor(Sj.T, R_(tensor_matmul(2 * BCS, Psid[k])))
    if k != j:  # B17: τ_i, q̇_k, q_j
        last = Psid[j] if b17_printed else Sj
        out["B17"] = T_(
            matmul_tensor(
                Sk.T,
                R_(
                    -tensor_matmul(2 * BCS, Psid[j])
                    + tensor_matmul(crbar_tensor(2 * BC[i].T @ Si), Sj)
                    + tensor_matmul(2 * ICS, Psid[j])
                ),
            )
            + matmul_tensor((Psid[k] + Sd[k]).T, R_(tensor_matmul(ICS, last)))
        )
        # B18: τ_k, q̇_i, q_j
        F = 2 * BC[i] @ Si + IC[i] @ (Psid[i] + Sd[i])
        out["B18"] = matmul_tensor(
            Sk.T, R_(tensor_matmul(crbar_tensor(F), Sj) + tensor_matmul(2 * BCS, Psid[j]))
        )
        out["B22"] = matmul_tensor(Sk.T, R_(tensor_matmul(ICS, Sj)))  # ∂M_ki/∂q_j
    if j != i:  # B19: τ_j, q̇_k, q_i;  B24: ∂M_kj/∂q_i
        out["B19"] = matmul_tensor(
            Sj.T, tensor_matmul(2 * (BCP + A1), Sk) + tensor_matmul(A2, Psid[k] + Sd[k])
        )
        out["B24"] = matmul_tensor(Sk.T, tensor_matmul(A2, Sj))
    if k != j and j != i:  # B20: τ_k, q̇_j, q_i
        out["B20"] = matmul_tensor(
            Sk.T, tensor_matmul(2 * (BCP + A1), Sj) + tensor_matmul(A2, Psid[j] + Sd[j])
        )
    return out


def reference(d2, name, i, j, k, vs):
    """The same block read from the IDSVA SO tensors (App. B cross order = R~ of ours)."""
    q2, v2, qv, dM = d2
    vq = np.swapaxes(qv, -1, -2)  # [τ, q̇, q]
    I_, J_, K_ = vs[i], vs[j], vs[k]
    idx = {
        "B1": (q2, I_, J_, K_),
        "B3": (q2, K_, I_, J_),
        "B5": (q2, J_, K_, I_),
        "B7": (v2, I_, J_, K_),
        "B9": (v2, I_, J_, K_),
        "B13": (v2, J_, K_, I_),
        "B15": (vq, I_, J_, K_),
        "B16": (vq, J_, I_, K_),
        "B17": (vq, I_, K_, J_),
        "B18": (vq, K_, I_, J_),
        "B19": (vq, J_, K_, I_),
        "B20": (vq, K_, J_, I_),
        "B22": (dM, K_, I_, J_),
        "B24": (dM, K_, J_, I_),
    }[name]
    T, a, b, c = idx
    return T[np.ix_(a, b, c)]


@pytest.fixture
def case(mixed_tree):
    rng = np.random.default_rng(7)
    model = mixed_tree(
        9,
        rng,
        kinds=["revolute", "prismatic", "spherical", "free_flyer", "helical"],
        floating_base=True,
    )
    q = model.random_configuration(rng)
    v, a = rng.normal(size=model.nv), rng.normal(size=model.nv)
    return model, q, v, a


def triples(model):
    for i in range(model.n_bodies):
        path = model.supports(i)  # root .. i
        for jj, j in enumerate(path):
            for k in path[: jj + 1]:
                if model.joints[i].nv and model.joints[j].nv and model.joints[k].nv:
                    yield i, j, k


def test_appendix_b_blocks_equal_idsva_so(case):
    model, q, v, a = case
    d2 = rnea_second_derivatives(model, q, v, a)
    G = ground_quantities(model, q, v, a)
    vs = [np.arange(s.start, s.stop) for s in model.v_slices]
    seen = set()
    scale = max(float(np.max(np.abs(x))) for x in d2)
    for i, j, k in triples(model):
        for name, block in blocks(i, j, k, *G).items():
            np.testing.assert_allclose(
                block,
                reference(d2, name, i, j, k, vs),
                atol=1e-10 * scale,
                err_msg=f"{name} at {(i, j, k)}",
            )
            seen.add(name)
    assert len(seen) == 14, seen


def test_b17_as_printed_is_wrong(case):
    """Digest §4.3: the last factor of B17 must be S_j, not Ψ̇_j as printed."""
    model, q, v, a = case
    d2 = rnea_second_derivatives(model, q, v, a)
    G = ground_quantities(model, q, v, a)
    vs = [np.arange(s.start, s.stop) for s in model.v_slices]
    worst = 0.0
    for i, j, k in triples(model):
        if k != j:
            printed = blocks(i, j, k, *G, b17_printed=True)["B17"]
            worst = max(worst, float(np.max(np.abs(printed - reference(d2, "B17", i, j, k, vs)))))
    assert worst > 1e-2


def test_b3_needs_the_composite_force(rng):
    """Digest §5.2.1 (Alg. 1 l.22 prints f_i): with the body force instead of f^C_i in B3's
    last term, the q–q tensor is wrong."""
    model = robots.serial_chain(5, rng=rng)
    q = model.random_configuration(rng)
    v, a = rng.normal(size=model.nv), rng.normal(size=model.nv)
    d2 = rnea_second_derivatives(model, q, v, a)
    S, Psid, Psidd, Sd, IC, BC, fC = ground_quantities(model, q, v, a)
    inner = [i for i in range(model.n_bodies) if model.children(i)]
    fC_body = list(fC)
    for i in inner:  # body force = f^C_i − Σ_children f^C_c
        fC_body[i] = fC[i] - sum(fC[c] for c in model.children(i))
    vs = [np.arange(s.start, s.stop) for s in model.v_slices]
    worst = 0.0
    for i, j, k in triples(model):
        if k != j and i in inner:
            B3 = blocks(i, j, k, S, Psid, Psidd, Sd, IC, BC, fC_body)["B3"]
            worst = max(worst, float(np.max(np.abs(B3 - reference(d2, "B3", i, j, k, vs)))))
    assert worst > 1e-2
