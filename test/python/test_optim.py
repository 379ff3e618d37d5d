"""ember.optim checked against torch.optim.

Every comparison runs the same code on ``(ember, ember.optim)`` and on
``(torch, torch.optim)``: identical float64 parameters, gradients from the
same loss computed by each library's autograd (or set directly via ``.grad``),
then parameters, optimizer state, state dicts, reprs, error messages and
learning-rate sequences are compared. Ember never imports torch; only this
test does, as an oracle.
"""

import copy
import math
import pickle
import re
import warnings

import numpy as np
import pytest

import ember
import ember.optim

torch = pytest.importorskip("torch")

LIBS = {"ember": (ember, ember.optim), "torch": (torch, torch.optim)}
RTOL = 1e-10
ATOL = 1e-12

SHAPES = [(3, 4), (5,), (2, 2)]


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------


def npy(t):
    return np.array(t.detach().numpy(), copy=True)


def dtype_name(dtype):
    return str(dtype).rsplit(".", 1)[-1]


def make_arrays(seed=0, shapes=SHAPES):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in shapes]


def make_params(M, arrays):
    return [M.tensor(a.copy(), requires_grad=True) for a in arrays]


class Quadratic:
    """loss = sum_i 0.5 * |A_i vec(p_i) - b_i|^2 + 0.05 * sum(p_i^4), fixed per seed."""

    def __init__(self, shapes=SHAPES, seed=1):
        rng = np.random.default_rng(seed)
        self.mats = []
        for s in shapes:
            n = int(np.prod(s))
            self.mats.append((rng.standard_normal((n, n)) / math.sqrt(n), rng.standard_normal(n)))

    def __call__(self, M, params):
        loss = None
        for p, (A, b) in zip(params, self.mats):
            r = M.tensor(A).matmul(p.reshape(-1)) - M.tensor(b)
            term = (r * r).sum() * 0.5 + (p**4).sum() * 0.05
            loss = term if loss is None else loss + term
        return loss


def build_groups(params, spec):
    """spec: None (all params, no options) or a list of (indices, options) per group."""
    if spec is None:
        return params
    return [dict(params=[params[i] for i in idx], **opts) for idx, opts in spec]


def run_optimizer(lib, opt_name, kwargs, spec=None, steps=10, grads="autograd", seed=0, opt_hook=None):
    """Run ``steps`` steps; return (params, optimizer) of library ``lib``."""
    M, O = LIBS[lib]
    params = make_params(M, make_arrays(seed))
    opt = getattr(O, opt_name)(build_groups(params, spec), **kwargs)
    loss_fn = Quadratic()
    rng = np.random.default_rng(seed + 100)
    for step in range(steps):
        opt.zero_grad()
        if grads == "autograd":
            loss_fn(M, params).backward()
        else:  # set gradients directly; parameter 1 gets no gradient on odd steps
            for i, p in enumerate(params):
                g = rng.standard_normal(p.shape)
                if i == 1 and step % 2 == 1:
                    continue
                p.grad = M.tensor(g)
        opt.step()
        if opt_hook is not None:
            opt_hook(step, opt)
    return params, opt


def assert_states_match(e_opt, t_opt, e_params, t_params):
    for ep, tp in zip(e_params, t_params):
        np.testing.assert_allclose(npy(ep), npy(tp), rtol=RTOL, atol=ATOL)
        t_state = t_opt.state.get(tp, {})
        e_state = e_opt.state.get(ep, {})
        assert sorted(e_state) == sorted(t_state)
        for key, tv in t_state.items():
            ev = e_state[key]
            if isinstance(tv, torch.Tensor):
                assert isinstance(ev, ember.Tensor), key
                assert dtype_name(ev.dtype) == dtype_name(tv.dtype), key
                assert tuple(ev.shape) == tuple(tv.shape), key
                np.testing.assert_allclose(npy(ev), npy(tv), rtol=RTOL, atol=ATOL, err_msg=key)
            else:
                assert ev == tv, key


def compare_run(opt_name, kwargs, spec=None, steps=10, grads="autograd"):
    e_params, e_opt = run_optimizer("ember", opt_name, kwargs, spec, steps, grads)
    t_params, t_opt = run_optimizer("torch", opt_name, kwargs, spec, steps, grads)
    assert_states_match(e_opt, t_opt, e_params, t_params)
    return e_opt, t_opt


def msg_of(exc_info):
    return str(exc_info.value).replace("torch.", "ember.")


def assert_same_error(fn, error=(ValueError, TypeError, RuntimeError, KeyError)):
    """fn(lib) raises the same exception type and message under ember and torch."""
    with pytest.raises(error) as t_exc:
        fn("torch")
    with pytest.raises(type(t_exc.value)) as e_exc:
        fn("ember")
    assert msg_of(e_exc) == msg_of(t_exc)


# --------------------------------------------------------------------------
# numerical agreement with torch
# --------------------------------------------------------------------------

TWO_GROUPS = [([0], {}), ([1, 2], {})]

SGD_CASES = [
    ({}, None),
    ({"lr": 0.05}, None),
    ({"lr": 0.05, "momentum": 0.9}, None),
    ({"lr": 0.05, "momentum": 0.9, "dampening": 0.5}, None),
    ({"lr": 0.05, "momentum": 0.9, "nesterov": True}, None),
    ({"lr": 0.05, "weight_decay": 0.1}, None),
    ({"lr": 0.01, "maximize": True}, None),
    ({"lr": 0.02, "momentum": 0.8, "nesterov": True, "weight_decay": 0.05, "maximize": True}, None),
    (
        {"lr": 0.05},
        [([0], {"lr": 0.1, "momentum": 0.9}), ([1, 2], {"momentum": 0.5, "nesterov": True, "weight_decay": 0.1})],
    ),
]

ADAM_CASES = [
    ({}, None),
    ({"lr": 0.05}, None),
    ({"lr": 0.05, "amsgrad": True}, None),
    ({"lr": 0.05, "weight_decay": 0.1}, None),
    ({"lr": 0.05, "maximize": True}, None),
    ({"lr": 0.05, "betas": (0.5, 0.9), "eps": 1e-3}, None),
    ({"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}, None),
    ({"lr": 0.03, "amsgrad": True, "weight_decay": 0.2, "maximize": True}, None),
    (
        {"lr": 0.05},
        [([0, 2], {"lr": 0.1, "amsgrad": True}), ([1], {"betas": (0.8, 0.99), "weight_decay": 0.1})],
    ),
]

ADAMW_CASES = [
    ({}, None),
    ({"lr": 0.05}, None),
    ({"lr": 0.05, "weight_decay": 0.3}, None),
    ({"lr": 0.05, "amsgrad": True}, None),
    ({"lr": 0.05, "maximize": True, "amsgrad": True, "weight_decay": 0.1}, None),
    ({"lr": 0.05}, [([0], {"weight_decay": 0.0}), ([1, 2], {"lr": 0.01, "amsgrad": True})]),
]

RMSPROP_CASES = [
    ({}, None),
    ({"lr": 0.01, "alpha": 0.9}, None),
    ({"lr": 0.01, "momentum": 0.9}, None),
    ({"lr": 0.01, "centered": True}, None),
    ({"lr": 0.01, "centered": True, "momentum": 0.5, "weight_decay": 0.1, "maximize": True}, None),
    ({"lr": 0.01}, [([0], {"eps": 1e-3}), ([1, 2], {"centered": True})]),
]

ADAGRAD_CASES = [
    ({}, None),
    ({"lr": 0.1, "lr_decay": 0.01}, None),
    ({"lr": 0.1, "initial_accumulator_value": 0.5, "weight_decay": 0.1}, None),
    ({"lr": 0.05, "maximize": True, "eps": 1e-4}, None),
    ({"lr": 0.1}, [([0], {"lr_decay": 0.1}), ([1, 2], {"weight_decay": 0.2})]),
]

OTHER_CASES = [
    ("Adafactor", {}, None),
    ("Adafactor", {"lr": 0.05, "beta2_decay": -0.5, "eps": (1e-20, 1e-2), "d": 2.0, "weight_decay": 0.1}, None),
    ("Adafactor", {"lr": 0.03, "maximize": True}, TWO_GROUPS),
    ("Adadelta", {}, None),
    ("Adadelta", {"lr": 0.5, "rho": 0.8, "eps": 1e-4, "weight_decay": 0.1}, None),
    ("Adadelta", {"maximize": True}, TWO_GROUPS),
    ("Adamax", {}, None),
    ("Adamax", {"lr": 0.05, "betas": (0.8, 0.9), "weight_decay": 0.1}, None),
    ("Adamax", {"lr": 0.01, "maximize": True}, TWO_GROUPS),
    ("NAdam", {}, None),
    ("NAdam", {"lr": 0.05, "momentum_decay": 0.01, "weight_decay": 0.1}, None),
    ("NAdam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True}, None),
    ("RAdam", {}, None),
    ("RAdam", {"lr": 0.05, "betas": (0.5, 0.9)}, None),  # rectified from step 6 on
    ("RAdam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}, TWO_GROUPS),
    ("RAdam", {"lr": 0.05, "weight_decay": 0.1, "maximize": True}, None),
    ("ASGD", {}, None),
    ("ASGD", {"lr": 0.05, "lambd": 0.01, "alpha": 0.5, "t0": 3, "weight_decay": 0.1}, None),  # averages from step 4
    ("ASGD", {"lr": 0.05, "t0": 2, "maximize": True}, TWO_GROUPS),
    ("Rprop", {}, None),
    ("Rprop", {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.2)}, None),
    ("Rprop", {"lr": 0.05, "maximize": True}, TWO_GROUPS),
]

ALL_CASES = (
    [("SGD", k, s) for k, s in SGD_CASES]
    + [("Adam", k, s) for k, s in ADAM_CASES]
    + [("AdamW", k, s) for k, s in ADAMW_CASES]
    + [("RMSprop", k, s) for k, s in RMSPROP_CASES]
    + [("Adagrad", k, s) for k, s in ADAGRAD_CASES]
    + OTHER_CASES
)


def _case_id(case):
    name, kwargs, spec = case
    opts = ",".join(f"{k}={v}" for k, v in kwargs.items())
    return f"{name}({opts}){'-groups' if spec else ''}"


@pytest.mark.parametrize("case", ALL_CASES, ids=[_case_id(c) for c in ALL_CASES])
@pytest.mark.parametrize("grads", ["autograd", "direct"])
def test_matches_torch(case, grads):
    name, kwargs, spec = case
    compare_run(name, kwargs, spec, steps=10, grads=grads)


def test_param_groups_defaults_and_structure():
    for name, kwargs, spec in [
        ("SGD", {"lr": 0.1, "momentum": 0.9}, [([0], {"lr": 0.5}), ([1, 2], {"nesterov": True})]),
        ("Adam", {"lr": 0.1}, [([0], {"amsgrad": True}), ([1, 2], {})]),
        ("AdamW", {}, None),
    ]:
        e_opt = getattr(ember.optim, name)(build_groups(make_params(ember, make_arrays()), spec), **kwargs)
        t_opt = getattr(torch.optim, name)(build_groups(make_params(torch, make_arrays()), spec), **kwargs)
        assert len(e_opt.param_groups) == len(t_opt.param_groups)
        for eg, tg in zip(e_opt.param_groups, t_opt.param_groups):
            assert sorted(eg) == sorted(tg)
            for k in tg:
                if k != "params":
                    assert eg[k] == tg[k], k
            assert len(eg["params"]) == len(tg["params"])
        assert e_opt.defaults == t_opt.defaults


def test_adamw_default_weight_decay():
    p = ember.randn(3, requires_grad=True)
    assert ember.optim.AdamW([p]).defaults["weight_decay"] == 1e-2
    assert ember.optim.AdamW([p]).param_groups[0]["decoupled_weight_decay"] is True
    assert ember.optim.Adam([p]).defaults["weight_decay"] == 0


def test_adam_step_state_is_float32_scalar_tensor():
    p = ember.randn(3, requires_grad=True, dtype=ember.float64)
    opt = ember.optim.Adam([p])
    p.grad = ember.ones_like(p)
    opt.step()
    step = opt.state[p]["step"]
    assert isinstance(step, ember.Tensor) and step.dim() == 0
    assert step.dtype == ember.float32 and step.item() == 1.0
    assert opt.state[p]["exp_avg"].dtype == ember.float64
    assert not opt.state[p]["exp_avg"].requires_grad


def test_params_without_grad_are_skipped():
    a, b = make_params(ember, make_arrays()[:2])
    opt = ember.optim.Adam([a, b], lr=0.1)
    before = npy(b)
    a.grad = ember.ones_like(a)
    opt.step()
    assert b not in opt.state or len(opt.state[b]) == 0
    np.testing.assert_array_equal(npy(b), before)
    assert len(opt.state[a]) == 3


def test_update_is_in_place_and_not_recorded():
    p = ember.randn(4, requires_grad=True, dtype=ember.float64)
    version, ident = p._version, id(p)
    opt = ember.optim.SGD([p], lr=0.1, momentum=0.9)
    (p * p).sum().backward()
    opt.step()
    assert id(opt.param_groups[0]["params"][0]) == ident
    assert p._version > version
    assert p.is_leaf and p.requires_grad and p.grad_fn is None
    assert not opt.state[p]["momentum_buffer"].requires_grad
    assert ember.is_grad_enabled()


def test_zero_grad():
    for lib in LIBS:
        M, O = LIBS[lib]
        params = make_params(M, make_arrays())
        opt = O.SGD(params, lr=0.1)
        Quadratic()(M, params).backward()
        opt.zero_grad(set_to_none=False)
        for p in params:
            assert p.grad is not None
            np.testing.assert_array_equal(npy(p.grad), np.zeros(p.shape))
            assert not p.grad.requires_grad
        opt.zero_grad()
        assert all(p.grad is None for p in params)


def test_closure_step_returns_loss_and_runs_with_grad():
    results = {}
    for lib in LIBS:
        M, O = LIBS[lib]
        params = make_params(M, make_arrays())
        opt = O.Adam(params, lr=0.05)
        loss_fn = Quadratic()
        calls = []

        def closure():
            calls.append(M.is_grad_enabled())
            opt.zero_grad()
            loss = loss_fn(M, params)
            loss.backward()
            return loss

        losses = []
        for i in range(8):
            if i % 2:
                with M.no_grad():
                    loss = opt.step(closure)
            else:
                loss = opt.step(closure)
            losses.append(loss.item())
        assert calls == [True] * 8
        assert opt.step() is None
        results[lib] = (losses, [npy(p) for p in params])
    np.testing.assert_allclose(results["ember"][0], results["torch"][0], rtol=RTOL)
    for e, t in zip(results["ember"][1], results["torch"][1]):
        np.testing.assert_allclose(e, t, rtol=RTOL, atol=ATOL)


def test_add_param_group_midway():
    results = {}
    for lib in LIBS:
        M, O = LIBS[lib]
        params = make_params(M, make_arrays())
        opt = O.SGD(params[:1], lr=0.1, momentum=0.9)
        loss_fn = Quadratic()
        for i in range(6):
            if i == 3:
                opt.add_param_group({"params": params[1:], "lr": 0.01})
            opt.zero_grad()
            loss_fn(M, params).backward()
            opt.step()
        results[lib] = (params, opt)
        assert [g["lr"] for g in opt.param_groups] == [0.1, 0.01]
        assert opt.param_groups[1]["momentum"] == 0.9
    assert_states_match(results["ember"][1], results["torch"][1], results["ember"][0], results["torch"][0])


def test_tensor_passed_as_single_group_params():
    p = ember.randn(3, requires_grad=True)
    opt = ember.optim.SGD([{"params": p, "lr": 0.5}])
    assert opt.param_groups[0]["params"] == [p] or opt.param_groups[0]["params"][0] is p


def test_named_parameters():
    for lib in LIBS:
        M, O = LIBS[lib]
        params = make_params(M, make_arrays())
        opt = O.SGD([("w", params[0]), ("b", params[1])], lr=0.1)
        assert opt.param_groups[0]["param_names"] == ["w", "b"]
        assert opt.state_dict()["param_groups"][0]["param_names"] == ["w", "b"]


def test_step_hooks():
    p = ember.randn(3, requires_grad=True)
    opt = ember.optim.SGD([p], lr=0.1)
    seen = []
    h1 = opt.register_step_pre_hook(lambda o, args, kwargs: seen.append(("pre", o is opt)))
    h2 = opt.register_step_post_hook(lambda o, args, kwargs: seen.append(("post", o is opt)))
    p.grad = ember.ones_like(p)
    opt.step()
    assert seen == [("pre", True), ("post", True)]
    h1.remove()
    h2.remove()
    opt.step()
    assert len(seen) == 2
    handle = ember.optim.optimizer.register_optimizer_step_pre_hook(lambda o, a, k: seen.append("global"))
    try:
        opt.step()
    finally:
        handle.remove()
    assert seen[-1] == "global"


# --------------------------------------------------------------------------
# repr
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name,kwargs",
    [("SGD", {"lr": 0.1, "momentum": 0.9}), ("Adam", {"amsgrad": True}), ("AdamW", {"betas": (0.8, 0.9)}),
     ("RMSprop", {"centered": True}), ("Adagrad", {"lr_decay": 0.1}), ("Adadelta", {}), ("Adamax", {}),
     ("NAdam", {"decoupled_weight_decay": True}), ("RAdam", {}), ("ASGD", {"t0": 5}), ("Rprop", {})],
)
def test_repr_matches_torch(name, kwargs):
    reprs = {}
    for lib in LIBS:
        M, O = LIBS[lib]
        params = make_params(M, make_arrays())
        reprs[lib] = repr(getattr(O, name)(build_groups(params, [([0], {"lr": 0.5}), ([1, 2], {})]), **kwargs))
    assert reprs["ember"] == reprs["torch"]


# --------------------------------------------------------------------------
# state_dict / load_state_dict
# --------------------------------------------------------------------------

SD_CASES = [
    ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True}, TWO_GROUPS),
    ("Adam", {"lr": 0.05, "amsgrad": True}, [([0], {"lr": 0.1}), ([1, 2], {"weight_decay": 0.1})]),
    ("AdamW", {"lr": 0.05}, None),
    ("RMSprop", {"lr": 0.05, "momentum": 0.9, "centered": True}, TWO_GROUPS),
    ("Adagrad", {"lr": 0.05, "initial_accumulator_value": 0.1}, None),
    ("Adadelta", {}, TWO_GROUPS),
    ("Adamax", {"lr": 0.05}, None),
    ("NAdam", {"lr": 0.05}, None),
    ("RAdam", {"lr": 0.05}, None),
    ("Rprop", {"lr": 0.05}, None),
]
# Not round-tripped against an unbroken run: loading casts ASGD's float32 eta and mu to the parameters' dtype
# (torch's rule for every state tensor but step), so the continued run is more precise than the unbroken one.
SD_STRUCTURE_CASES = SD_CASES + [("ASGD", {"lr": 0.05, "t0": 2}, TWO_GROUPS)]


@pytest.mark.parametrize("name,kwargs,spec", SD_STRUCTURE_CASES, ids=[c[0] for c in SD_STRUCTURE_CASES])
def test_state_dict_structure_matches_torch(name, kwargs, spec):
    _, e_opt = run_optimizer("ember", name, kwargs, spec, steps=3)
    _, t_opt = run_optimizer("torch", name, kwargs, spec, steps=3)
    e_sd, t_sd = e_opt.state_dict(), t_opt.state_dict()
    assert sorted(e_sd) == sorted(t_sd) == ["param_groups", "state"]
    assert e_sd["param_groups"] == t_sd["param_groups"]
    assert sorted(e_sd["state"]) == sorted(t_sd["state"]) == [0, 1, 2]
    for k, t_state in t_sd["state"].items():
        e_state = e_sd["state"][k]
        assert sorted(e_state) == sorted(t_state)
        for key, tv in t_state.items():
            np.testing.assert_allclose(npy(e_state[key]), npy(tv), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("name,kwargs,spec", SD_CASES, ids=[c[0] for c in SD_CASES])
def test_state_dict_round_trip(name, kwargs, spec):
    """Save after 5 steps, load into a fresh optimizer over copies of the
    parameters, continue both 5 steps: both match torch's 10-step run."""
    opt, params, opt2, params2, sd = _round_trip("ember", name, kwargs, spec)
    assert [g["lr"] for g in opt2.param_groups] == [g["lr"] for g in opt.param_groups]
    assert all(g2["params"][0] is p for g2, p in zip(opt2.param_groups, [g["params"][0] for g in opt2.param_groups]))
    # loaded tensors are copies: the state dict stays untouched by later steps
    saved = {k: {kk: npy(vv) for kk, vv in v.items()} for k, v in sd["state"].items()}

    _steps("ember", opt, params, 5)
    _steps("ember", opt2, params2, 5)

    for k, v in sd["state"].items():
        for kk, vv in v.items():
            np.testing.assert_array_equal(npy(vv), saved[k][kk])

    t_params, t_opt = run_optimizer("torch", name, kwargs, spec, steps=10)
    assert_states_match(opt, t_opt, params, t_params)
    if name == "NAdam":
        # Loading casts the float32 mu_product to the parameters' float64 (torch's
        # load_state_dict does too), so the reloaded run is not the uninterrupted
        # one to the last bit: compare it with torch reloaded the same way.
        _, _, t_opt2, t_params2, _ = _round_trip("torch", name, kwargs, spec)
        _steps("torch", t_opt2, t_params2, 5)
        assert_states_match(opt2, t_opt2, params2, t_params2)
        return
    assert_states_match(opt2, t_opt, params2, t_params)


def _steps(lib, opt, params, count):
    M, _ = LIBS[lib]
    loss_fn = Quadratic()
    for _ in range(count):
        opt.zero_grad()
        loss_fn(M, params).backward()
        opt.step()


def _round_trip(lib, name, kwargs, spec):
    """5 steps, then the state dict (through pickle) loaded into a fresh
    optimizer, made with another lr, over copies of the parameters."""
    M, O = LIBS[lib]
    params = make_params(M, make_arrays())
    opt = getattr(O, name)(build_groups(params, spec), **kwargs)
    _steps(lib, opt, params, 5)
    sd = pickle.loads(pickle.dumps(opt.state_dict()))  # survives serialization
    params2 = [p.detach().clone().requires_grad_(True) for p in params]
    opt2 = getattr(O, name)(build_groups(params2, spec), **{**kwargs, "lr": 123.0})
    opt2.load_state_dict(sd)
    return opt, params, opt2, params2, sd


def test_state_dict_round_trip_torch_semantics_of_ids():
    """State is keyed by position across groups; parameters with no state are absent."""
    params = make_params(ember, make_arrays())
    opt = ember.optim.SGD([{"params": params[:1]}, {"params": params[1:]}], lr=0.1, momentum=0.9)
    params[2].grad = ember.ones_like(params[2])
    opt.step()
    sd = opt.state_dict()
    assert list(sd["state"]) == [2]
    assert [g["params"] for g in sd["param_groups"]] == [[0], [1, 2]]


def test_load_state_dict_casts_to_param_dtype():
    p32 = ember.randn(3, requires_grad=True, dtype=ember.float32)
    opt32 = ember.optim.Adam([p32])
    p32.grad = ember.ones_like(p32)
    opt32.step()
    p64 = ember.randn(3, requires_grad=True, dtype=ember.float64)
    opt64 = ember.optim.Adam([p64])
    opt64.load_state_dict(opt32.state_dict())
    assert opt64.state[p64]["exp_avg"].dtype == ember.float64
    assert opt64.state[p64]["step"].dtype == ember.float32


def test_load_state_dict_errors():
    def groups_mismatch(lib):
        M, O = LIBS[lib]
        params = make_params(M, make_arrays())
        sd = O.SGD(params, lr=0.1).state_dict()
        O.SGD([{"params": params[:1]}, {"params": params[1:]}], lr=0.1).load_state_dict(sd)

    def size_mismatch(lib):
        M, O = LIBS[lib]
        params = make_params(M, make_arrays())
        sd = O.SGD(params, lr=0.1).state_dict()
        O.SGD(params[:2], lr=0.1).load_state_dict(sd)

    assert_same_error(groups_mismatch, ValueError)
    assert_same_error(size_mismatch, ValueError)


def test_deepcopy_optimizer_state_dict():
    params, opt = run_optimizer("ember", "Adam", {"lr": 0.1}, steps=2)
    sd = copy.deepcopy(opt.state_dict())
    assert sd["state"][0]["exp_avg"] is not opt.state[params[0]]["exp_avg"]
    np.testing.assert_array_equal(npy(sd["state"][0]["exp_avg"]), npy(opt.state[params[0]]["exp_avg"]))


# --------------------------------------------------------------------------
# errors and warnings
# --------------------------------------------------------------------------


def _p(M):
    return M.tensor(np.ones(3), requires_grad=True)


CTOR_ERRORS = [
    ("SGD", {"lr": -1.0}),
    ("SGD", {"momentum": -0.5}),
    ("SGD", {"weight_decay": -0.1}),
    ("SGD", {"nesterov": True}),
    ("SGD", {"nesterov": True, "momentum": 0.9, "dampening": 0.1}),
    ("Adam", {"lr": -1e-3}),
    ("Adam", {"eps": -1.0}),
    ("Adam", {"betas": (1.0, 0.9)}),
    ("Adam", {"betas": (0.9, -0.1)}),
    ("Adam", {"weight_decay": -1.0}),
    ("Adam", {"betas": (0, 0.9)}),
    ("AdamW", {"lr": -1.0}),
    ("AdamW", {"betas": (0.9, 1.5)}),
    ("ASGD", {"lr": -1.0}),
    ("ASGD", {"weight_decay": -1.0}),
    ("Rprop", {"etas": (1.5, 1.2)}),
    ("Rprop", {"lr": -0.1}),
    ("LBFGS", {"lr": -1.0}),
]


@pytest.mark.parametrize("name,kwargs", CTOR_ERRORS, ids=[f"{n}-{k}" for n, k in CTOR_ERRORS])
def test_constructor_errors_match_torch(name, kwargs):
    assert_same_error(lambda lib: getattr(LIBS[lib][1], name)([_p(LIBS[lib][0])], **kwargs), ValueError)


def test_param_errors_match_torch():
    assert_same_error(lambda lib: LIBS[lib][1].SGD([], lr=0.1), ValueError)
    assert_same_error(lambda lib: LIBS[lib][1].SGD(_p(LIBS[lib][0]), lr=0.1), TypeError)
    assert_same_error(lambda lib: LIBS[lib][1].SGD([_p(LIBS[lib][0]), 3], lr=0.1), TypeError)
    assert_same_error(lambda lib: LIBS[lib][1].SGD([_p(LIBS[lib][0]) * 2], lr=0.1), ValueError)
    assert_same_error(lambda lib: LIBS[lib][1].SGD([{"params": {_p(LIBS[lib][0])}}], lr=0.1), TypeError)

    def duplicate_across_groups(lib):
        M, O = LIBS[lib]
        p = _p(M)
        O.SGD([{"params": [p]}, {"params": [p]}], lr=0.1)

    def add_existing(lib):
        M, O = LIBS[lib]
        p = _p(M)
        O.Adam([p]).add_param_group({"params": p, "lr": 0.5})

    def not_a_dict(lib):
        M, O = LIBS[lib]
        O.Adam([_p(M)]).add_param_group([_p(M)])

    def named_and_unnamed(lib):
        M, O = LIBS[lib]
        O.Adam([("a", _p(M)), _p(M)])

    assert_same_error(duplicate_across_groups, ValueError)
    assert_same_error(add_existing, ValueError)
    assert_same_error(not_a_dict, TypeError)
    assert_same_error(named_and_unnamed, ValueError)


def test_duplicate_within_group_warns():
    msgs = {}
    for lib in LIBS:
        M, O = LIBS[lib]
        p = _p(M)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            O.SGD([p, p], lr=0.1)
        msgs[lib] = [str(x.message) for x in w if "duplicate" in str(x.message)]
    assert msgs["ember"] == msgs["torch"] and len(msgs["ember"]) == 1


def test_base_optimizer_step_not_implemented():
    opt = ember.optim.Optimizer([_p(ember)], {"lr": 0.1})
    with pytest.raises(NotImplementedError):
        opt.step()


# --------------------------------------------------------------------------
# learning-rate schedulers
# --------------------------------------------------------------------------


def _sched_factory(spec):
    """spec(lib, O, opt) -> scheduler"""
    return spec


SCHEDULERS = {
    "StepLR": lambda O, opt: O.lr_scheduler.StepLR(opt, step_size=5, gamma=0.5),
    "MultiStepLR": lambda O, opt: O.lr_scheduler.MultiStepLR(opt, milestones=[3, 7, 7, 15], gamma=0.3),
    "ExponentialLR": lambda O, opt: O.lr_scheduler.ExponentialLR(opt, gamma=0.9),
    "CosineAnnealingLR": lambda O, opt: O.lr_scheduler.CosineAnnealingLR(opt, T_max=10, eta_min=0.001),
    "CosineAnnealingLR-eta0": lambda O, opt: O.lr_scheduler.CosineAnnealingLR(opt, T_max=7),
    "LambdaLR": lambda O, opt: O.lr_scheduler.LambdaLR(opt, lambda e: 0.95**e),
    "LambdaLR-list": lambda O, opt: O.lr_scheduler.LambdaLR(opt, [lambda e: 1.0 / (e + 1), lambda e: 0.9**e]),
    "MultiplicativeLR": lambda O, opt: O.lr_scheduler.MultiplicativeLR(opt, lambda e: 0.97),
    "LinearLR": lambda O, opt: O.lr_scheduler.LinearLR(opt, start_factor=0.25, total_iters=8),
    "LinearLR-decay": lambda O, opt: O.lr_scheduler.LinearLR(opt, start_factor=1.0, end_factor=0.1, total_iters=12),
    "ConstantLR": lambda O, opt: O.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=4),
    "PolynomialLR": lambda O, opt: O.lr_scheduler.PolynomialLR(opt, total_iters=20, power=2.0),
    "OneCycleLR-cos": lambda O, opt: O.lr_scheduler.OneCycleLR(opt, max_lr=[0.5, 1.0], total_steps=31),
    "OneCycleLR-linear": lambda O, opt: O.lr_scheduler.OneCycleLR(
        opt, max_lr=0.8, epochs=5, steps_per_epoch=7, anneal_strategy="linear", pct_start=0.25
    ),
    "OneCycleLR-three-phase": lambda O, opt: O.lr_scheduler.OneCycleLR(
        opt, max_lr=0.5, total_steps=40, three_phase=True, div_factor=10.0
    ),
    "CyclicLR-triangular2": lambda O, opt: O.lr_scheduler.CyclicLR(
        opt, base_lr=0.01, max_lr=0.1, step_size_up=4, mode="triangular2"
    ),
    "CyclicLR-exp_range": lambda O, opt: O.lr_scheduler.CyclicLR(
        opt, base_lr=[0.01, 0.02], max_lr=0.2, step_size_up=3, step_size_down=5, mode="exp_range", gamma=0.95
    ),
    "CosineAnnealingWarmRestarts": lambda O, opt: O.lr_scheduler.CosineAnnealingWarmRestarts(
        opt, T_0=5, T_mult=2, eta_min=0.01
    ),
    "CosineAnnealingWarmRestarts-mult1": lambda O, opt: O.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=4),
    "SequentialLR": lambda O, opt: O.lr_scheduler.SequentialLR(
        opt,
        schedulers=[
            O.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=5),
            O.lr_scheduler.ExponentialLR(opt, gamma=0.9),
        ],
        milestones=[5],
    ),
    "SequentialLR-3": lambda O, opt: O.lr_scheduler.SequentialLR(
        opt,
        schedulers=[
            O.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=3),
            O.lr_scheduler.CosineAnnealingLR(opt, T_max=8),
            O.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5),
        ],
        milestones=[4, 12],
    ),
    "ChainedScheduler": lambda O, opt: O.lr_scheduler.ChainedScheduler(
        [O.lr_scheduler.ExponentialLR(opt, gamma=0.95), O.lr_scheduler.StepLR(opt, step_size=4, gamma=0.5)]
    ),
}


def _sched_opt(O, M, adam=False):
    params = make_params(M, make_arrays()[:2])
    groups = [{"params": params[:1], "lr": 0.1}, {"params": params[1:], "lr": 0.05}]
    return O.Adam(groups) if adam else O.SGD(groups, momentum=0.9)


def _lr_sequence(lib, name, steps=30, adam=False):
    M, O = LIBS[lib]
    opt = _sched_opt(O, M, adam)
    sched = SCHEDULERS[name](O, opt)
    seq = [(list(sched.get_last_lr()), [g["lr"] for g in opt.param_groups], _momenta(opt))]
    for _ in range(steps):
        opt.step()
        sched.step()
        seq.append((list(sched.get_last_lr()), [g["lr"] for g in opt.param_groups], _momenta(opt)))
    return seq


def _momenta(opt):
    return [g.get("momentum", g.get("betas")) for g in opt.param_groups]


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_scheduler_lr_sequence_matches_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e_seq = _lr_sequence("ember", name)
        t_seq = _lr_sequence("torch", name)
    assert e_seq == t_seq


@pytest.mark.parametrize("name", ["OneCycleLR-cos", "CyclicLR-triangular2"])
def test_scheduler_cycles_adam_betas(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _lr_sequence("ember", name, adam=True) == _lr_sequence("torch", name, adam=True)


@pytest.mark.parametrize(
    "name", ["StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "LinearLR", "PolynomialLR", "ConstantLR"]
)
def test_scheduler_closed_form_with_epoch(name):
    seqs = {}
    for lib in LIBS:
        M, O = LIBS[lib]
        opt = _sched_opt(O, M)
        sched = SCHEDULERS[name](O, opt)
        out = []
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            for epoch in [3, 1, 7, 12, 12, 20, 0]:
                opt.step()
                sched.step(epoch)
                out.append(sched.get_last_lr())
        assert any("epoch parameter" in str(x.message) for x in w)
        seqs[lib] = out
    assert seqs["ember"] == seqs["torch"]


def test_cosine_warm_restarts_fractional_epochs():
    seqs = {}
    for lib in LIBS:
        M, O = LIBS[lib]
        opt = _sched_opt(O, M)
        sched = O.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.001)
        out = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for i in range(25):
                opt.step()
                sched.step(i * 0.7)
                out.append(sched.get_last_lr())
        seqs[lib] = out
    assert seqs["ember"] == seqs["torch"]


METRICS = [1.0, 0.9, 0.95, 0.96, 0.97, 0.98, 0.85, 0.86, 0.86, 0.86, 0.86, 0.5, 0.6, 0.7, 0.8, 0.9] * 2

PLATEAU = {
    "min": dict(mode="min", factor=0.5, patience=2),
    "max": dict(mode="max", factor=0.3, patience=1, cooldown=2),
    "abs-minlr": dict(mode="min", factor=0.1, patience=1, threshold=0.05, threshold_mode="abs", min_lr=[0.001, 0.004]),
    "cooldown": dict(mode="min", factor=0.5, patience=0, cooldown=1, min_lr=0.01),
}


@pytest.mark.parametrize("name", list(PLATEAU))
def test_reduce_lr_on_plateau_matches_torch(name):
    seqs = {}
    for lib in LIBS:
        M, O = LIBS[lib]
        opt = _sched_opt(O, M)
        sched = O.lr_scheduler.ReduceLROnPlateau(opt, **PLATEAU[name])
        out = []
        for i, m in enumerate(METRICS):
            opt.step()
            sched.step(M.tensor(m) if i % 3 == 0 else m)
            out.append((list(sched.get_last_lr()), sched.num_bad_epochs, sched.cooldown_counter, sched.best))
        seqs[lib] = out
    assert seqs["ember"] == seqs["torch"]


def test_reduce_lr_on_plateau_state_dict():
    opt = _sched_opt(ember.optim, ember)
    sched = ember.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1)
    for m in METRICS[:6]:
        sched.step(m)
    sd = sched.state_dict()
    opt2 = _sched_opt(ember.optim, ember)
    sched2 = ember.optim.lr_scheduler.ReduceLROnPlateau(opt2, patience=5)
    sched2.load_state_dict(sd)
    assert sched2.patience == 1 and sched2.best == sched.best and sched2.num_bad_epochs == sched.num_bad_epochs


@pytest.mark.parametrize("name", ["StepLR", "CosineAnnealingLR", "LambdaLR", "OneCycleLR-cos", "SequentialLR"])
def test_scheduler_state_dict_round_trip(name):
    """Save scheduler + optimizer after 10 steps, restore both into fresh objects, continue."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        opt = _sched_opt(ember.optim, ember)
        sched = SCHEDULERS[name](ember.optim, opt)
        for _ in range(10):
            opt.step()
            sched.step()
        s_sd, o_sd = copy.deepcopy(sched.state_dict()), opt.state_dict()
        assert "optimizer" not in s_sd
        assert s_sd["last_epoch"] == 10

        opt2 = _sched_opt(ember.optim, ember)
        sched2 = SCHEDULERS[name](ember.optim, opt2)
        sched2.load_state_dict(s_sd)
        opt2.load_state_dict(o_sd)
        assert sched2.get_last_lr() == sched.get_last_lr()
        for _ in range(10):
            for o, s in ((opt, sched), (opt2, sched2)):
                o.step()
                s.step()
            assert sched2.get_last_lr() == sched.get_last_lr()
        assert _lr_sequence("torch", name, steps=20)[-1][0] == sched.get_last_lr()


def test_scheduler_resume_requires_initial_lr():
    def f(lib):
        M, O = LIBS[lib]
        O.lr_scheduler.StepLR(O.SGD([_p(M)], lr=0.1), step_size=2, last_epoch=3)

    assert_same_error(f, KeyError)


def test_scheduler_resume_with_last_epoch():
    seqs = {}
    for lib in LIBS:
        M, O = LIBS[lib]
        opt = _sched_opt(O, M)
        for g in opt.param_groups:
            g["initial_lr"] = g["lr"]
        sched = O.lr_scheduler.ExponentialLR(opt, gamma=0.5, last_epoch=4)
        out = [sched.get_last_lr()]
        for _ in range(3):
            opt.step()
            sched.step()
            out.append(sched.get_last_lr())
        seqs[lib] = (out, sched.last_epoch)
    assert seqs["ember"] == seqs["torch"]


SCHED_ERRORS = {
    "not-optimizer": lambda O, opt: O.lr_scheduler.StepLR(3, step_size=2),
    "linear-start": lambda O, opt: O.lr_scheduler.LinearLR(opt, start_factor=0.0),
    "linear-end": lambda O, opt: O.lr_scheduler.LinearLR(opt, end_factor=1.5),
    "constant-factor": lambda O, opt: O.lr_scheduler.ConstantLR(opt, factor=2.0),
    "lambda-count": lambda O, opt: O.lr_scheduler.LambdaLR(opt, [lambda e: 1.0]),
    "plateau-factor": lambda O, opt: O.lr_scheduler.ReduceLROnPlateau(opt, factor=1.0),
    "plateau-mode": lambda O, opt: O.lr_scheduler.ReduceLROnPlateau(opt, mode="avg"),
    "plateau-threshold-mode": lambda O, opt: O.lr_scheduler.ReduceLROnPlateau(opt, threshold_mode="pct"),
    "plateau-min-lrs": lambda O, opt: O.lr_scheduler.ReduceLROnPlateau(opt, min_lr=[0.1, 0.2, 0.3]),
    "onecycle-steps": lambda O, opt: O.lr_scheduler.OneCycleLR(opt, max_lr=0.1),
    "onecycle-total": lambda O, opt: O.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=0),
    "onecycle-pct": lambda O, opt: O.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=10, pct_start=1.5),
    "onecycle-anneal": lambda O, opt: O.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=10, anneal_strategy="x"),
    "onecycle-max-lr-len": lambda O, opt: O.lr_scheduler.OneCycleLR(opt, max_lr=[0.1], total_steps=10),
    "warm-restarts-T0": lambda O, opt: O.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=0),
    "warm-restarts-Tmult": lambda O, opt: O.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=0),
    "sequential-empty": lambda O, opt: O.lr_scheduler.SequentialLR(opt, [], milestones=[]),
    "sequential-milestones": lambda O, opt: O.lr_scheduler.SequentialLR(
        opt, [O.lr_scheduler.ExponentialLR(opt, 0.9)], milestones=[3]
    ),
    "sequential-plateau": lambda O, opt: O.lr_scheduler.SequentialLR(
        opt, [O.lr_scheduler.ExponentialLR(opt, 0.9), O.lr_scheduler.ReduceLROnPlateau(opt)], milestones=[3]
    ),
    "cyclic-mode": lambda O, opt: O.lr_scheduler.CyclicLR(opt, 0.01, 0.1, mode="zigzag"),
}


@pytest.mark.parametrize("name", list(SCHED_ERRORS))
def test_scheduler_errors_match_torch(name):
    def f(lib):
        M, O = LIBS[lib]
        SCHED_ERRORS[name](O, _sched_opt(O, M))

    assert_same_error(f)


def test_onecycle_overstep_error_matches_torch():
    def f(lib):
        M, O = LIBS[lib]
        opt = _sched_opt(O, M)
        sched = O.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=3)
        for _ in range(5):
            opt.step()
            sched.step()

    assert_same_error(f, ValueError)


def test_scheduler_warnings_match_torch():
    msgs = {}
    for lib in LIBS:
        M, O = LIBS[lib]
        opt = _sched_opt(O, M)
        sched = O.lr_scheduler.StepLR(opt, step_size=2)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            sched.step()  # before optimizer.step()
            sched.get_lr()  # outside step
        msgs[lib] = [str(x.message) for x in w]
    assert msgs["ember"] == msgs["torch"] and len(msgs["ember"]) == 2

    opt = _sched_opt(ember.optim, ember)
    sched = ember.optim.lr_scheduler.StepLR(opt, step_size=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
        sched.step()  # the right order: no warning


# --------------------------------------------------------------------------
# end to end
# --------------------------------------------------------------------------


def rosenbrock(xy):
    x, y = xy[0], xy[1]
    return (1 - x) ** 2 + 100 * (y - x * x) ** 2


@pytest.mark.parametrize(
    "name,kwargs,steps",
    [
        ("Adam", {"lr": 0.02}, 2500),
        ("AdamW", {"lr": 0.02, "weight_decay": 0.0}, 2500),
        ("SGD", {"lr": 1e-3, "momentum": 0.9, "nesterov": True}, 2500),
    ],
)
def test_rosenbrock_converges(name, kwargs, steps):
    xy = ember.tensor([-1.5, 2.0], dtype=ember.float64, requires_grad=True)
    opt = getattr(ember.optim, name)([xy], **kwargs)
    for _ in range(steps):
        opt.zero_grad()
        loss = rosenbrock(xy)
        loss.backward()
        opt.step()
    np.testing.assert_allclose(npy(xy), [1.0, 1.0], atol=2e-2)
    assert rosenbrock(xy).item() < 1e-3


def test_training_loop_with_scheduler_matches_torch():
    """Adam + OneCycleLR + weight decay for 40 steps: parameters equal torch's."""
    out = {}
    for lib in LIBS:
        M, O = LIBS[lib]
        params = make_params(M, make_arrays(3))
        opt = O.AdamW(params, lr=0.01, weight_decay=0.05, amsgrad=True)
        sched = O.lr_scheduler.OneCycleLR(opt, max_lr=0.05, total_steps=40)
        loss_fn = Quadratic(seed=4)
        losses = []
        for _ in range(40):
            opt.zero_grad()
            loss = loss_fn(M, params)
            loss.backward()
            opt.step()
            sched.step()
            losses.append(loss.item())
        out[lib] = (losses, [npy(p) for p in params])
    np.testing.assert_allclose(out["ember"][0], out["torch"][0], rtol=1e-9)
    for e, t in zip(out["ember"][1], out["torch"][1]):
        np.testing.assert_allclose(e, t, rtol=1e-9, atol=1e-12)


# ---- fused Adam step ----------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("decoupled,maximize,weight_decay", [(False, False, 0.0), (False, True, 0.1), (True, False, 0.1)])
def test_adam_step_matches_the_operator_by_operator_update(dtype, decoupled, maximize, weight_decay):
    rng = np.random.default_rng(4)
    p, g, m, v = (rng.standard_normal((33, 7)).astype(dtype) for _ in range(4))
    v = np.abs(v)
    lr, b1, b2, eps, step = 1e-2, 0.9, 0.99, 1e-8, 3.0
    pe, me, ve = ember.tensor(p), ember.tensor(m), ember.tensor(v)
    ember._adam_step_(pe, ember.tensor(g), me, ve, step, lr, b1, b2, weight_decay, eps, maximize, decoupled)
    gg = -g if maximize else g
    if decoupled:
        p = p * (1 - lr * weight_decay)
    else:
        gg = gg + weight_decay * p
    m = m + (1 - b1) * (gg - m)
    v = v * b2 + (1 - b2) * gg * gg
    p = p - lr / (1 - b1**step) * m / (np.sqrt(v) / np.sqrt(1 - b2**step) + eps)
    tol = 1e-5 if dtype == "float32" else 1e-12
    for got, want in ((pe, p), (me, m), (ve, v)):
        np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol)
    assert pe._version == me._version == ve._version == 1


def test_adam_step_rejects_mismatched_state():
    p = ember.zeros(4)
    with pytest.raises(RuntimeError, match=re.escape("exp_avg must be a contiguous Float tensor of size [4], got Float of size [5]")):
        ember._adam_step_(p, ember.zeros(4), ember.zeros(5), ember.zeros(4), 1.0, 0.1, 0.9, 0.99, 0.0, 1e-8, False,
                          False)


# --------------------------------------------------------------------------
# LBFGS: whole steps with closures, against torch
# --------------------------------------------------------------------------


def _rosenbrock_run(lib, kwargs, steps):
    M, O = LIBS[lib]
    x = M.tensor([-1.5, 2.0], dtype=M.float64, requires_grad=True)
    w = M.tensor([[0.5, -0.2], [0.1, 0.3]], dtype=M.float64, requires_grad=True)
    opt = O.LBFGS([x, w], **kwargs)
    losses = []

    def closure():
        opt.zero_grad()
        loss = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2 + ((w @ x) ** 2).sum()
        loss.backward()
        return loss

    for _ in range(steps):
        losses.append(float(opt.step(closure)))
    return losses, [npy(x), npy(w)], opt.state[x]


@pytest.mark.parametrize("kwargs", [{}, {"line_search_fn": "strong_wolfe"},
                                    {"lr": 0.5, "max_iter": 5, "history_size": 3},
                                    {"line_search_fn": "strong_wolfe", "history_size": 2, "max_iter": 7}])
def test_lbfgs_matches_torch(kwargs):
    e_losses, e_params, e_state = _rosenbrock_run("ember", kwargs, steps=2)
    t_losses, t_params, t_state = _rosenbrock_run("torch", kwargs, steps=2)
    # Same path; dot products may sum in another order, which the iterations amplify a little.
    np.testing.assert_allclose(e_losses, t_losses, rtol=1e-7, atol=1e-12)
    for a, b in zip(e_params, t_params):
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-12)
    assert e_state["func_evals"] == t_state["func_evals"] and e_state["n_iter"] == t_state["n_iter"]


def test_lbfgs_minimizes_and_checks_its_arguments():
    losses, params, _ = _rosenbrock_run("ember", {"line_search_fn": "strong_wolfe", "max_iter": 50}, steps=3)
    assert losses[-1] < 1e-6
    M, O = LIBS["ember"]
    a, b = _p(M), _p(M)
    with pytest.raises(ValueError, match="doesn't support per-parameter options"):
        O.LBFGS([{"params": [a]}, {"params": [b]}])
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt = O.LBFGS([a], line_search_fn="armijo")
        opt.step(lambda: (a * a).sum().backward() or (a * a).sum())


# --------------------------------------------------------------------------
# SparseAdam: sparse gradients from Embedding(sparse=True)
# --------------------------------------------------------------------------


def _sparse_adam_run(M, O, kwargs, steps=4):
    weight = M.tensor(np.random.default_rng(3).standard_normal((7, 3)), requires_grad=True)
    opt = O.SparseAdam([weight], **kwargs)
    batches = [[0, 2, 2, 5], [6, 0], [1, 1, 1], [3, 6, 2]]  # repeated rows: the gradient sums them
    for ids in batches[:steps]:
        opt.zero_grad()
        rows = M.nn.functional.embedding(M.tensor(ids), weight, sparse=True)
        (rows.sin() * M.arange(3.0, dtype=M.float64)).sum().backward()
        assert weight.grad.is_sparse
        opt.step()
    return npy(weight), {k: npy(v) if hasattr(v, "numpy") else v for k, v in opt.state[weight].items()}


@pytest.mark.parametrize("kwargs", [{}, {"lr": 0.05, "betas": (0.8, 0.9), "eps": 1e-6}, {"maximize": True}])
def test_sparse_adam_matches_torch(kwargs):
    mine, my_state = _sparse_adam_run(ember, ember.optim, kwargs)
    theirs, their_state = _sparse_adam_run(torch, torch.optim, kwargs)
    np.testing.assert_allclose(mine, theirs, rtol=RTOL, atol=ATOL)
    assert my_state.keys() == their_state.keys() and my_state["step"] == their_state["step"] == 4
    for key in ("exp_avg", "exp_avg_sq"):
        np.testing.assert_allclose(my_state[key], their_state[key], rtol=RTOL, atol=ATOL)


def test_sparse_adam_leaves_untouched_rows_alone():
    weight = ember.ones(5, 2, requires_grad=True)
    opt = ember.optim.SparseAdam([weight], lr=0.1)
    ember.nn.functional.embedding(ember.tensor([1, 3]), weight, sparse=True).sum().backward()
    opt.step()
    changed = (weight.detach() != 1).any(dim=1).tolist()
    assert changed == [False, True, False, True, False]


@pytest.mark.parametrize("make, message", [
    (lambda M, O: O.SparseAdam([M.zeros(2, requires_grad=True)], lr=0.0), "Invalid learning rate"),
    (lambda M, O: O.SparseAdam([M.zeros(2, requires_grad=True)], eps=-1.0), "Invalid epsilon value"),
    (lambda M, O: O.SparseAdam([M.zeros(2, requires_grad=True)], betas=(1.0, 0.9)), "Invalid beta parameter at index 0"),
    (lambda M, O: O.SparseAdam([M.zeros(2, dtype=M.complex64, requires_grad=True)]), "does not support complex"),
    (lambda M, O: O.SparseAdam([M.zeros(2, 2).to_sparse()]), "requires dense parameter tensors"),
])
def test_sparse_adam_constructor_errors_match_torch(make, message):
    for M, O in LIBS.values():
        with pytest.raises(ValueError, match=message):
            make(M, O)


def test_sparse_adam_refuses_dense_gradients():
    for M, O in LIBS.values():
        w = M.zeros(3, requires_grad=True)
        opt = O.SparseAdam([w])
        (w * 2).sum().backward()
        with pytest.raises(RuntimeError, match="does not support dense gradients"):
            opt.step()


MUON_CASES = [({}, None), ({"lr": 0.02, "nesterov": False, "weight_decay": 0.0}, None),
              ({"lr": 0.02, "momentum": 0.8, "adjust_lr_fn": "match_rms_adamw", "ns_steps": 3}, None),
              ({"lr": 0.01}, [([0], {"adjust_lr_fn": "original"}), ([1], {"weight_decay": 0.3})])]


@pytest.mark.parametrize("kwargs,spec", MUON_CASES, ids=[str(i) for i in range(len(MUON_CASES))])
def test_muon_matches_torch(kwargs, spec):
    # Muon runs its Newton-Schulz iterations in bfloat16, as torch's: the two agree to bfloat16's precision.
    shapes = [(3, 5), (6, 2)]
    results = []
    for lib in ("ember", "torch"):
        M, O = LIBS[lib]
        params = make_params(M, make_arrays(0, shapes))
        opt = O.Muon(build_groups(params, spec), **kwargs)
        loss_fn = Quadratic(shapes)
        for _ in range(5):
            opt.zero_grad()
            loss_fn(M, params).backward()
            opt.step()
        results.append((params, opt))
    (e_params, e_opt), (t_params, t_opt) = results
    for ep, tp in zip(e_params, t_params):
        np.testing.assert_allclose(npy(ep), npy(tp), rtol=2e-2, atol=2e-3)
        assert sorted(e_opt.state[ep]) == sorted(t_opt.state[tp]) == ["momentum_buffer"]
        np.testing.assert_allclose(npy(e_opt.state[ep]["momentum_buffer"]), npy(t_opt.state[tp]["momentum_buffer"]),
                                   rtol=2e-2, atol=2e-3)


@pytest.mark.parametrize("make", [
    lambda lib: lib.optim.Muon([lib.zeros(3, requires_grad=True)]),
    lambda lib: lib.optim.Muon([lib.zeros(3, 3, requires_grad=True)], lr=-1.0),
    lambda lib: lib.optim.Muon([lib.zeros(3, 3, requires_grad=True)], adjust_lr_fn="fast"),
    lambda lib: lib.optim.Adafactor([lib.zeros(3, requires_grad=True)], beta2_decay=0.5),
    lambda lib: lib.optim.Adafactor([lib.zeros(3, requires_grad=True)], d=0.5),
    lambda lib: lib.optim.Adafactor([lib.zeros(3, requires_grad=True)], eps=(-1.0, 1e-3)),
])
def test_muon_and_adafactor_refuse_what_torch_refuses(make):
    assert_same_error(lambda lib: make(LIBS[lib][0]))
