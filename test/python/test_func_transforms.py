"""ember.func's transforms and ember.autograd.functional, next to torch's
for the same functions and inputs (values, structures, errors)."""

import numpy as np
import pytest

import ember
from ember.utils import _pytree
from ember_testing import to_numpy, torch

pytestmark = pytest.mark.skipif(torch is None, reason="needs torch as the oracle")


def x_of(lib):
    return lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64)


def w_of(lib):
    return lib.tensor([[1.0, 2, 3], [0, 1, -1]], dtype=lib.float64)


CASES = {
    "grad": lambda lib, F: F.grad(lambda x: (x.sin() * x).sum())(x_of(lib)),
    "grad_of_grad": lambda lib, F: F.grad(lambda x: F.grad(lambda y: (y ** 3).sum())(x).sum())(x_of(lib)),
    "grad_closure_is_constant": lambda lib, F: F.grad(lambda x: F.grad(lambda y: (y * x).sum())(x).sum())(x_of(lib)),
    "grad_argnums_tuple": lambda lib, F: F.grad(lambda a, b: (a * b.exp()).sum(), argnums=(0, 1))(
        x_of(lib), x_of(lib) + 1),
    "grad_dict_input": lambda lib, F: F.grad(lambda p: (p["w"] @ p["b"]).sum())(
        {"w": w_of(lib), "b": x_of(lib)}),
    "grad_has_aux": lambda lib, F: F.grad(lambda x: ((x ** 2).sum(), x.mean()), has_aux=True)(x_of(lib)),
    "grad_and_value": lambda lib, F: F.grad_and_value(lambda x: (x.exp()).sum())(x_of(lib)),
    "grad_unused_input": lambda lib, F: F.grad(lambda a, b: a.sum(), argnums=1)(x_of(lib), x_of(lib)),
    "jacrev": lambda lib, F: F.jacrev(lambda x: w_of(lib) @ x.exp())(x_of(lib)),
    "jacrev_two_outputs": lambda lib, F: F.jacrev(lambda x: (x * 2, x.sum()))(x_of(lib)),
    "jacfwd_argnums": lambda lib, F: F.jacfwd(lambda a, b: a * b, argnums=(0, 1))(x_of(lib), x_of(lib) + 1),
    "hessian": lambda lib, F: F.hessian(lambda x: (x ** 2 * x.roll(1)).sum())(x_of(lib)),
    "vjp": lambda lib, F: (lambda r: (r[0], r[1](lib.ones(3, dtype=lib.float64))))(
        F.vjp(lambda x: x.tanh() * 2, x_of(lib))),
    "jvp": lambda lib, F: F.jvp(lambda x: x.exp() * x, (x_of(lib),), (lib.ones(3, dtype=lib.float64),)),
    "jvp_two_inputs": lambda lib, F: F.jvp(lambda a, b: a * b.sin(), (x_of(lib), x_of(lib)),
                                           (lib.ones(3, dtype=lib.float64), x_of(lib))),
    "vmap_matmul": lambda lib, F: F.vmap(lambda a, b: a @ b)(lib.arange(24.0).reshape(4, 2, 3),
                                                             lib.arange(12.0).reshape(4, 3)),
    "vmap_in_dims_none": lambda lib, F: F.vmap(lib.dot, in_dims=(0, None))(lib.arange(15.0).reshape(5, 3),
                                                                           lib.ones(3)),
    "vmap_in_dim_1": lambda lib, F: F.vmap(lambda a: a.cumsum(0), in_dims=1)(lib.arange(6.0).reshape(2, 3)),
    "vmap_out_dims": lambda lib, F: F.vmap(lambda a: (a, a.sum()), out_dims=(1, 0))(lib.arange(6.0).reshape(2, 3)),
    "vmap_nested": lambda lib, F: F.vmap(F.vmap(lambda a: a * a.sum()))(lib.arange(6.0).reshape(2, 3)),
    "vmap_of_grad": lambda lib, F: F.vmap(F.grad(lambda x: (x ** 3).sum()))(lib.arange(6.0).reshape(2, 3)),
    "vmap_kwargs_unmapped": lambda lib, F: F.vmap(lambda a, scale=1.0: a * scale)(lib.ones(2, 2), scale=3.0),
    "vmap_empty_batch": lambda lib, F: F.vmap(lambda a: a.sum(0))(lib.ones(0, 2, 3)),
    "vmap_same_randomness": lambda lib, F: F.vmap(lambda a: a * 0 + 1, randomness="same")(lib.ones(3)),
}


def flat_numpy(result):
    leaves, spec = _pytree.tree_flatten(result)
    return [to_numpy(x) if isinstance(x, ember.Tensor) else x.detach().numpy() if hasattr(x, "detach") else x
            for x in leaves], str(spec)


@pytest.mark.parametrize("case", list(CASES))
def test_transform_matches_torch(case):
    mine, my_spec = flat_numpy(CASES[case](ember, ember.func))
    theirs, their_spec = flat_numpy(CASES[case](torch, torch.func))
    assert my_spec == their_spec
    for a, b in zip(mine, theirs):
        assert np.shape(a) == np.shape(b)
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_results_do_not_require_grad_unless_nested():
    x = ember.ones(3)
    assert not ember.func.grad(lambda x: (x * x).sum())(x).requires_grad
    assert not ember.func.vmap(lambda a: a * 2)(x).requires_grad
    leaf = ember.ones(3, requires_grad=True)
    g = ember.func.grad(lambda x: (x ** 3).sum())(leaf)
    assert g.requires_grad  # an outer level (here autograd itself) still tracks leaf
    (gg,) = ember.autograd.grad([g.sum()], [leaf])
    np.testing.assert_array_equal(to_numpy(gg), [6.0, 6.0, 6.0])


ERRORS = {
    "non_scalar": (lambda lib: lib.func.grad(lambda x: x * 2)(lib.ones(2)), RuntimeError,
                   "Expected f\\(\\*args\\) to return a scalar Tensor"),
    "argnum_range": (lambda lib: lib.func.grad(lambda x: x.sum(), argnums=2)(lib.ones(2)), RuntimeError,
                     "Got argnum=2, but only 1 positional inputs"),
    "argnums_empty": (lambda lib: lib.func.grad(lambda x: x.sum(), argnums=())(lib.ones(2)), RuntimeError,
                      "argnums must be non-empty"),
    "aux_not_pair": (lambda lib: lib.func.grad(lambda x: x.sum(), has_aux=True)(lib.ones(2)), RuntimeError,
                     "should be a tuple: \\(output, aux\\)"),
    "not_tensor": (lambda lib: lib.func.grad(lambda x: x.sum())(3.0), ValueError,
                   "Thing passed to transform API must be Tensor"),
    "batch_sizes": (lambda lib: lib.func.vmap(lambda a, b: a + b)(lib.ones(2, 3), lib.ones(3, 3)), ValueError,
                    "same size in the mapped dimension, got sizes \\[2, 3\\]"),
    "in_dim_range": (lambda lib: lib.func.vmap(lambda x: x, in_dims=2)(lib.ones(2)), ValueError,
                     "Got in_dim=2 for some input"),
    "non_tensor_mapped": (lambda lib: lib.func.vmap(lambda x: x)(3.0), ValueError,
                          "We cannot vmap over non-Tensor arguments"),
    "returns_float": (lambda lib: lib.func.vmap(lambda x: 3.0)(lib.ones(2)), ValueError,
                      "must only return Tensors"),
    "randomness": (lambda lib: lib.func.vmap(lambda x: x + lib.rand(1))(lib.ones(2)), RuntimeError,
                   "called random operation while in randomness error mode"),
    "cotangent_shape": (lambda lib: lib.func.vjp(lambda x: x * 2, lib.ones(2))[1](lib.ones(3)), RuntimeError,
                        "Mismatch in shape"),
    "jvp_primals": (lambda lib: lib.func.jvp(lambda x: x, lib.ones(2), lib.ones(2)), RuntimeError,
                    "Expected primals to be a tuple"),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_match_torch(case):
    call, kind, message = ERRORS[case]
    for lib in (torch, ember):
        with pytest.raises(kind, match=message):
            call(lib)


FUNCTIONAL = {
    "jacobian": lambda lib: lib.autograd.functional.jacobian(lambda x: x.exp() * 2, x_of(lib)),
    "jacobian_tuples": lambda lib: lib.autograd.functional.jacobian(lambda a, b: (a.sum() * b, a * 2),
                                                                    (x_of(lib), x_of(lib)[:2])),
    "hessian": lambda lib: lib.autograd.functional.hessian(lambda a: (a ** 3).sum(), x_of(lib)),
    "hessian_tuples": lambda lib: lib.autograd.functional.hessian(lambda a, b: (a.sum() * b).sum(),
                                                                  (x_of(lib), x_of(lib)[:2])),
    "vjp": lambda lib: lib.autograd.functional.vjp(lambda x: x.exp(), x_of(lib), lib.ones(3, dtype=lib.float64)),
    "jvp": lambda lib: lib.autograd.functional.jvp(lambda x: x.exp(), x_of(lib), lib.ones(3, dtype=lib.float64)),
    "hvp": lambda lib: lib.autograd.functional.hvp(lambda a: (a ** 3).sum(), x_of(lib), x_of(lib)),
    "vhp": lambda lib: lib.autograd.functional.vhp(lambda a: (a ** 3).sum(), x_of(lib), x_of(lib)),
}


@pytest.mark.parametrize("case", list(FUNCTIONAL))
def test_autograd_functional_matches_torch(case):
    mine, my_spec = flat_numpy(FUNCTIONAL[case](ember))
    theirs, their_spec = flat_numpy(FUNCTIONAL[case](torch))
    assert my_spec == their_spec
    for a, b in zip(mine, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_pytree_round_trip_and_map():
    from collections import OrderedDict, namedtuple
    Pair = namedtuple("Pair", "a b")
    tree = {"x": [1, (2, 3)], "y": Pair(4, OrderedDict(z=5))}
    leaves, spec = _pytree.tree_flatten(tree)
    assert leaves == [1, 2, 3, 4, 5]
    assert _pytree.tree_unflatten(leaves, spec) == tree
    assert _pytree.tree_map(lambda v: v * 10, tree)["y"].b["z"] == 50
    with pytest.raises(ValueError, match="has length 2"):
        _pytree.tree_unflatten([1, 2], spec)
