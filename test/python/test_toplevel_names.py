"""torch's other top-level spellings (ember/_toplevel.py) next to torch's own:
values, dtypes, gradients and errors."""

import numpy as np
import pytest

import ember
from ember_testing import to_numpy, torch

pytestmark = pytest.mark.skipif(torch is None, reason="needs torch as the oracle")


def _f64(lib, values):
    return lib.tensor(values, dtype=lib.float64)


CASES = {
    "constants": lambda lib: lib.tensor([lib.pi, lib.e, lib.inf]),
    "asarray_list": lambda lib: lib.asarray([1, 2, 3]),
    "asarray_dtype": lambda lib: lib.asarray(lib.ones(2), dtype=lib.float64),
    "asarray_numpy": lambda lib: lib.asarray(np.arange(3.0)),
    "combinations": lambda lib: lib.combinations(lib.tensor([1, 2, 3, 4])),
    "combinations_3": lambda lib: lib.combinations(lib.tensor([1.0, 2, 3]), 3),
    "combinations_replacement": lambda lib: lib.combinations(lib.tensor([1, 2]), with_replacement=True),
    "unravel_index": lambda lib: lib.stack(lib.unravel_index(lib.tensor([4, 1, 5, 0]), (2, 3))),
    "renorm": lambda lib: lib.renorm(_f64(lib, [[1.0, 2], [3, 4]]), 2, 0, 3),
    "renorm_method_dim1": lambda lib: _f64(lib, [[1.0, 2], [3, 4]]).renorm(1, 1, 4.5),
    "ldexp": lambda lib: lib.ldexp(lib.tensor([1.0, 2]), lib.tensor([3, -1])),
    "gradient": lambda lib: lib.gradient(_f64(lib, [1.0, 4, 9, 16]))[0],
    "gradient_2d": lambda lib: lib.stack(lib.gradient(_f64(lib, [[1.0, 2, 4], [2, 5, 9], [0, 1, 1]]))),
    "gradient_spacing_edge2": lambda lib: lib.gradient(_f64(lib, [[1.0, 2, 4], [2, 5, 9]]), spacing=2.0, dim=1,
                                                       edge_order=2)[0],
    "gradient_coordinates": lambda lib: lib.gradient(_f64(lib, [1.0, 4, 9, 16, 20]),
                                                     spacing=(_f64(lib, [0.0, 1, 3, 4, 7]),))[0],
    "gradient_coordinates_edge2": lambda lib: lib.gradient(_f64(lib, [1.0, 4, 9, 16, 20]),
                                                           spacing=(_f64(lib, [0.0, 1, 3, 4, 7]),), edge_order=2)[0],
    "masked_scatter": lambda lib: lib.masked_scatter(lib.zeros(2, 3), lib.tensor([[True, False, True],
                                                                                   [False, True, False]]),
                                                     lib.arange(6.0).reshape(2, 3)),
    "masked_scatter_broadcast_mask": lambda lib: lib.zeros(2, 3).masked_scatter(lib.tensor([True, False, True]),
                                                                                lib.arange(6.0)),
    "kl_div_int_reduction": lambda lib: lib.kl_div(lib.tensor([-1.0, -2]), lib.tensor([0.3, 0.7]), 2),
    "bce_logits_int_reduction": lambda lib: lib.binary_cross_entropy_with_logits(lib.tensor([0.5, -1]),
                                                                                 lib.tensor([1.0, 0]), None, None, 0),
    "margin_ranking": lambda lib: lib.margin_ranking_loss(lib.tensor([1.0, 2]), lib.tensor([2.0, 1]),
                                                          lib.tensor([1.0, -1]), 0.5, 1),
    "hinge_embedding": lambda lib: lib.hinge_embedding_loss(lib.tensor([0.3, 2]), lib.tensor([1.0, -1]), 1.0, 2),
    "triplet": lambda lib: lib.triplet_margin_loss(lib.ones(2, 3), lib.zeros(2, 3), lib.full((2, 3), 0.5)),
    "chain_matmul": lambda lib: lib.chain_matmul(lib.ones(2, 3), lib.ones(3, 4), lib.ones(4, 1)),
    "permute_copy": lambda lib: lib.permute_copy(lib.arange(6).reshape(2, 3), (1, 0)),
    "slice_copy": lambda lib: lib.slice_copy(lib.arange(10), 0, 2, 9, 3),
    "index_put": lambda lib: lib.index_put(lib.zeros(4), (lib.tensor([1, 3]),), lib.tensor([5.0, 6])),
    "fill": lambda lib: lib.fill(lib.zeros(2, 2), 3.0),
}


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("case", list(CASES))
def test_matches_torch(case):
    mine, theirs = CASES[case](ember), CASES[case](torch)
    assert str(mine.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
    tol = 1e-12 if mine.dtype in (ember.float64, ember.int64) else 1e-6  # float32: one rounding apart
    np.testing.assert_allclose(to_numpy(mine), theirs.numpy(), rtol=tol, atol=tol)


def test_copy_forms_do_not_alias():
    x = ember.arange(6.0).reshape(2, 3)
    y = ember.transpose_copy(x, 0, 1)
    assert y.is_contiguous() and not y._is_view_of(x)
    parts = ember.split_copy(x, 1)
    assert all(not p._is_view_of(x) for p in parts)


def test_gradient_and_masked_scatter_are_differentiable():
    f = ember.tensor([1.0, 4, 9, 16], dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda t: ember.gradient(t, edge_order=2)[0], (f,))
    src = ember.arange(6.0, dtype=ember.float64).requires_grad_()
    x = ember.zeros(2, 3, dtype=ember.float64, requires_grad=True)
    mask = ember.tensor([[True, False, True], [False, True, False]])
    assert ember.autograd.gradcheck(lambda a, s: ember.masked_scatter(a, mask, s), (x, src))


@pytest.mark.parametrize("call, message", [
    (lambda lib: lib.combinations(lib.ones(2, 2)), "Expect a 1D vector"),
    (lambda lib: lib.gradient(lib.ones(1)), "at least edge_order\\+1"),
    (lambda lib: lib.masked_scatter(lib.zeros(3), lib.tensor([True, True, True]), lib.ones(2)),
     "Number of elements of source < number of ones in mask"),
])
def test_errors_match_torch(call, message):
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match=message):
            call(lib)


def test_typename_and_flags():
    assert ember.typename(ember.ones(2)) == "ember.FloatTensor" and ember.typename(3) == "int"
    assert ember.typename(ember.nn.Linear(1, 1)) == "ember.nn.modules.linear.Linear"
    ember.set_num_interop_threads(2)
    assert ember.get_num_interop_threads() == 2
    assert ember.get_default_device() == ember.device("cpu")
    with pytest.raises(NotImplementedError, match="set_default_device"):
        ember.set_default_device("cuda")


HISTOGRAMDD_CASES = [
    ("bins_per_dim", lambda lib, x: lib.histogramdd(x, bins=[3, 4])),
    ("one_count", lambda lib, x: lib.histogramdd(x, bins=5)),
    ("range_density", lambda lib, x: lib.histogramdd(x, bins=4, range=[-1.0, 1.0, -2.0, 0.5], density=True)),
    ("weights", lambda lib, x: lib.histogramdd(x, bins=[2, 3], weight=lib.linspace(0.0, 1.0, x.shape[0], dtype=x.dtype))),
    ("edges", lambda lib, x: lib.histogramdd(x, bins=[lib.tensor([-3.0, 0.0, 0.5, 3.0], dtype=x.dtype),
                                                       lib.tensor([-1.0, 1.0], dtype=x.dtype)])),
    ("batched_input", lambda lib, x: lib.histogramdd(x.reshape(5, 4, 2), bins=[2, 2])),
    ("equal_values", lambda lib, x: lib.histogramdd(lib.ones(4, 3), bins=2)),
]


@pytest.mark.parametrize("name,call", HISTOGRAMDD_CASES, ids=[c[0] for c in HISTOGRAMDD_CASES])
def test_histogramdd_matches_torch(name, call):
    data = np.random.default_rng(4).standard_normal((20, 2))
    mine = call(ember, ember.tensor(data))
    theirs = call(torch, torch.tensor(data))
    np.testing.assert_allclose(mine.hist.numpy(), theirs.hist.numpy(), rtol=1e-6)
    assert len(mine.bin_edges) == len(theirs.bin_edges)
    for a, b in zip(mine.bin_edges, theirs.bin_edges):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
    assert repr(mine).startswith("ember.return_types.histogramdd(\nhist=")


def test_histogramdd_refuses_what_torch_refuses():
    x = ember.zeros(4, 2)
    for call, words in [
        (lambda: ember.histogramdd(x, bins=[2]), "The size of bins must be equal to the innermost dimension"),
        (lambda: ember.histogramdd(x, bins=2, range=[0.0, 1.0]), "range should have 4 elements, but got 2"),
        (lambda: ember.histogramdd(x, bins=0), "bins must be > 0, but got 0 for dimension 0"),
        (lambda: ember.histogramdd(x, bins=2, range=[1.0, 0.0, 0.0, 1.0]), "min should not exceed max"),
        (lambda: ember.histogramdd(x, bins=2, weight=ember.ones(3)), "should have the same shape as the input"),
        (lambda: ember.histogramdd(x, bins=2, weight=ember.ones(4, dtype=ember.float64)), "the same dtype"),
    ]:
        with pytest.raises(RuntimeError, match=words):
            call()
    with pytest.raises(NotImplementedError, match="histogramdd"):
        ember.histogramdd(x.long(), bins=2)


def test_arange_at_the_ends_of_int64():
    # Lengths and values are computed without overflow (found by the fuzzer under UBSan).
    big, small = 2 ** 63 - 1, -(2 ** 63)
    assert ember.arange(small, big, big).tolist() == [small, -1, big - 1]
    assert ember.arange(5, small, small).tolist() == [5, 5 + small]
    with pytest.raises(RuntimeError, match="has more than"):
        ember.arange(small, big)
    with pytest.raises(RuntimeError, match="overflows"):
        ember.hamming_window(big, dtype=ember.float64)
