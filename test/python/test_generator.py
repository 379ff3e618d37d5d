"""The CPU generator gives torch's numbers for the same seed (torch is the
oracle): the raw streams of every random op, the saved state (which each
library restores from the other), and what follows from them, the orders of
ember.utils.data's samplers and a shuffled DataLoader's batches.
"""

import numpy as np
import pytest

import ember
from ember.utils import data as edata

torch = pytest.importorskip("torch")
from torch.utils import data as tdata  # noqa: E402

SEEDS = [0, 1, 12345, 2**32 + 7, 2**63 + 3, 67280421310721]


def values(t):
    """A tensor's values; complex ones as torch.view_as_real lays them out."""
    if t.is_complex():
        v = t.numpy()
        return np.stack([v.real, v.imag], -1)
    return np.asarray(t.tolist())


def both(draw, seed):
    """draw(lib) under the same seed in ember and torch."""
    ember.manual_seed(seed)
    torch.manual_seed(seed)
    return values(draw(ember)), values(draw(torch))


def assert_same(draw, seed=0):
    mine, theirs = both(draw, seed)
    np.testing.assert_array_equal(mine, theirs)


# ---- raw streams, exact --------------------------------------------------------

EXACT = {
    "rand_f32": lambda L: L.rand(37),
    "rand_f64": lambda L: L.rand(5, 3, dtype=L.float64),
    "rand_f16": lambda L: L.rand(40, dtype=L.float16).float(),
    "rand_bf16": lambda L: L.rand(40, dtype=L.bfloat16).float(),
    "rand_f16_top": lambda L: L.rand(20000, dtype=L.float16).float(),  # values rounding to 1 wrap to 0
    "rand_bf16_top": lambda L: L.rand(20000, dtype=L.bfloat16).float(),
    "rand_complex": lambda L: L.rand(6, dtype=L.complex64),
    "uniform_range": lambda L: L.empty(30).uniform_(-3.5, 2.25),
    "uniform_transposed": lambda L: L.empty(7, 5).t().uniform_(),
    "uniform_sliced": lambda L: L.empty(6, 8)[:, ::2].uniform_(),
    "randint_small": lambda L: L.randint(0, 10, (50,)),
    "randint_low": lambda L: L.randint(-7, 3, (4, 5)),
    "randint_wide": lambda L: L.randint(-2**40, 2**40, (20,)),
    "randint_float": lambda L: L.randint(0, 100, (10,), dtype=L.float32),
    "randperm_10": lambda L: L.randperm(10),
    "randperm_1000": lambda L: L.randperm(1000),
    "randperm_f32": lambda L: L.randperm(50, dtype=L.float32),
    "randn_f64_small": lambda L: L.randn(5, dtype=L.float64),
    "randn_f64_large": lambda L: L.randn(41, dtype=L.float64),
    "randn_f32_small": lambda L: L.randn(15),
    "randn_transposed": lambda L: L.empty(6, 5).t().normal_(),
    "normal_mean_std": lambda L: L.empty(9, dtype=L.float64).normal_(2.0, 0.5),
    "exponential_f64": lambda L: L.empty(33, dtype=L.float64).exponential_(),
    "exponential_f32": lambda L: L.empty(33).exponential_(2.5),
    "cauchy_f64": lambda L: L.empty(33, dtype=L.float64).cauchy_(1.0, 2.0),
    "cauchy_transposed": lambda L: L.empty(7, 5).t().cauchy_(),
    "log_normal_f64": lambda L: L.empty(41, dtype=L.float64).log_normal_(),
    "log_normal_f32": lambda L: L.empty(41).log_normal_(0.5, 0.25),
    "geometric_f64": lambda L: L.empty(30, dtype=L.float64).geometric_(0.3),
    "geometric_int64": lambda L: L.empty(30, dtype=L.int64).geometric_(0.05),
    "geometric_f16": lambda L: L.empty(30, dtype=L.float16).geometric_(0.5).float(),
    # Poisson rates on both sides of the switch to rejection sampling at 10; binomial means too.
    "poisson_f64": lambda L: L.poisson(L.tensor([0.5, 3., 12., 100., 0., 1e-3, 1e4, 9.99, 10.] * 5, dtype=L.float64)),
    "poisson_f32": lambda L: L.poisson(L.tensor([0.5, 3., 12., 100., 0., 1e-3, 1e4] * 5)),
    "poisson_bf16": lambda L: L.poisson(L.tensor([0.5, 3., 12., 100.] * 5, dtype=L.bfloat16)).float(),
    "binomial_f64": lambda L: L.binomial(L.tensor([5., 100., 1000., 7., 0., 40., 1e6] * 5, dtype=L.float64),
                                         L.tensor([.3, .2, .7, .9, .5, .26, .5] * 5, dtype=L.float64)),
    "binomial_f32": lambda L: L.binomial(L.tensor([5., 100., 1000., 7., 0., 40., 1e6] * 5),
                                         L.tensor([.3, .2, .7, .9, .5, .26, .5] * 5)),
    "binomial_broadcast": lambda L: L.binomial(L.full((4, 1), 30.), L.linspace(0, 1, 6)),
    "bernoulli_p": lambda L: L.empty(40).bernoulli_(0.3),
    "bernoulli_tensor": lambda L: L.bernoulli(L.linspace(0, 1, 40)),
    "bernoulli_tensor_f64": lambda L: L.bernoulli(L.linspace(0, 1, 40, dtype=L.float64)),
    "multinomial_replacement": lambda L: L.multinomial(L.tensor([0.1, 0.5, 0.0, 0.4]), 40, True),
    "multinomial_replacement_f64": lambda L: L.multinomial(L.tensor([[1.0, 2.0, 3.0], [3.0, 0.0, 1.0]],
                                                                    dtype=L.float64), 25, True),
    "multinomial_one": lambda L: L.multinomial(L.tensor([0.1, 0.2, 0.3, 0.4]), 1),
    "multinomial_no_replacement": lambda L: L.multinomial(L.tensor([[1.0, 2.0, 3.0, 4.0, 5.0]] * 3), 4),
}


@pytest.mark.parametrize("seed", SEEDS[:3])
@pytest.mark.parametrize("name", sorted(EXACT))
def test_streams_match_torch(name, seed):
    assert_same(EXACT[name], seed)


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                                   "float32", "float64"])
def test_random_without_bounds(dtype):
    assert_same(lambda L: L.empty(30, dtype=getattr(L, dtype)).random_().double())


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64", "float32", "float64"])
@pytest.mark.parametrize("bounds", [(5,), (2, 9), (0, None), (3, None)])
def test_random_with_bounds(dtype, bounds):
    if dtype == "bool" and bounds[0] > 1:
        bounds = (0, 2) if bounds[-1] is not None else (1, None)
    assert_same(lambda L: L.empty(30, dtype=getattr(L, dtype)).random_(*bounds).double())


def test_a_sequence_of_calls_shares_one_stream():
    """The cached second normal and both draw widths interleave as in torch."""
    def draw(L):
        parts = [L.randn(1, dtype=L.float64), L.rand(3), L.randn(3, dtype=L.float64), L.randint(0, 5, (4,)),
                 L.randperm(6), L.rand(2, dtype=L.float64), L.randn(2)]
        return L.cat([p.double() for p in parts])
    for seed in SEEDS:
        assert_same(draw, seed)


@pytest.mark.parametrize("seed", SEEDS)
def test_seeds_and_generators(seed):
    g_e, g_t = ember.Generator().manual_seed(seed), torch.Generator().manual_seed(seed)
    assert g_e.initial_seed() == g_t.initial_seed()
    np.testing.assert_array_equal(values(ember.rand(8, generator=g_e)), values(torch.rand(8, generator=g_t)))
    np.testing.assert_array_equal(values(ember.randperm(9, generator=g_e)), values(torch.randperm(9, generator=g_t)))


# ---- vectorized normals: torch's AVX2 kernel may differ in the last bit ---------


@pytest.mark.parametrize("n", [16, 17, 100, 1000])
@pytest.mark.parametrize("dtype,rtol", [("float32", 2e-6), ("float64", 1e-15)])
def test_normal_fill_path(n, dtype, rtol):
    mine, theirs = both(lambda L: L.empty(n, dtype=getattr(L, dtype)).normal_(0.5, 2.0), 3)
    np.testing.assert_allclose(mine, theirs, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_normal_fill_reduced_precision(dtype):
    mine, theirs = both(lambda L: L.randn(64, dtype=getattr(L, dtype)).float(), 5)
    ulp = 2.0**-10 if dtype == "float16" else 2.0**-7
    np.testing.assert_allclose(mine, theirs, rtol=2 * ulp, atol=2 * ulp)


def test_complex_normal():
    mine, theirs = both(lambda L: L.randn(20, dtype=L.complex128), 9)
    np.testing.assert_allclose(mine, theirs, rtol=1e-15, atol=1e-15)


# ---- state ----------------------------------------------------------------------


def test_state_bytes_match_torch_and_cross_over():
    ember.manual_seed(3)
    torch.manual_seed(3)
    ember.randn(1, dtype=ember.float64)  # leaves a cached normal in the state
    torch.randn(1, dtype=torch.float64)
    mine, theirs = ember.get_rng_state(), torch.get_rng_state()
    assert mine.dtype == ember.uint8 and len(mine) == len(theirs) == 5056
    assert mine.tolist() == theirs.tolist()
    # A state from either library restores in the other.
    ember.manual_seed(0)
    ember.set_rng_state(ember.tensor(theirs.tolist(), dtype=ember.uint8))
    after = values(torch.randn(3, dtype=torch.float64))
    np.testing.assert_array_equal(values(ember.randn(3, dtype=ember.float64)), after)


def test_bad_states_are_refused():
    good = ember.get_rng_state()
    with pytest.raises(RuntimeError, match="size 5056"):
        ember.set_rng_state(good[:10])
    bad = good.clone()
    bad[8] = 0  # left = 0
    bad[9] = 0
    bad[10] = 0
    bad[11] = 0
    with pytest.raises(RuntimeError, match="Invalid mt19937 state"):
        ember.set_rng_state(bad)
    with pytest.raises(TypeError):
        ember.set_rng_state(good.float())
    ember.set_rng_state(good)  # nothing changed by the refusals
    assert ember.get_rng_state().tolist() == good.tolist()


def test_random_errors():
    with pytest.raises(RuntimeError, match="from is out of bounds for Byte"):
        ember.empty(3, dtype=ember.uint8).random_(-1, 5)
    with pytest.raises(RuntimeError, match="to - 1 is out of bounds for Char"):
        ember.empty(3, dtype=ember.int8).random_(0, 300)
    with pytest.raises(RuntimeError, match="expects 'from' to be less than 'to'"):
        ember.empty(3).random_(5, 5)
    with pytest.raises(RuntimeError, match="exponential_ expects lambda > 0.0"):
        ember.empty(3).exponential_(0)
    with pytest.raises(NotImplementedError, match="exponential_"):
        ember.empty(3, dtype=ember.int64).exponential_()


def test_generators_exist_per_device_type():
    assert ember.Generator().device == ember.device("cpu")
    assert ember._C._default_generator(ember.device("cpu")) is ember.default_generator
    with pytest.raises(RuntimeError, match="the meta backend does not provide random number generators"):
        ember.Generator(device="meta")


# ---- what follows: data orders and initial weights -------------------------------


def test_samplers_follow_torch():
    n = 23
    cases = [
        lambda D, L: D.RandomSampler(range(n), generator=L.Generator().manual_seed(4)),
        lambda D, L: D.RandomSampler(range(n), replacement=True, num_samples=70, generator=L.Generator().manual_seed(4)),
        lambda D, L: D.RandomSampler(range(n), num_samples=50, generator=L.Generator().manual_seed(4)),
        lambda D, L: D.SubsetRandomSampler([3, 9, 4, 1, 20], generator=L.Generator().manual_seed(4)),
        lambda D, L: D.WeightedRandomSampler([0.1, 0.9, 0.4, 0.0, 2.0], 30, generator=L.Generator().manual_seed(4)),
        lambda D, L: D.WeightedRandomSampler([0.1, 0.9, 0.4, 0.0, 2.0], 3, replacement=False,
                                             generator=L.Generator().manual_seed(4)),
        lambda D, L: D.RandomSampler(range(n)),  # seeded from the default generator
        lambda D, L: D.DistributedSampler(range(n), num_replicas=3, rank=1, seed=7),
    ]
    for make in cases:
        ember.manual_seed(8)
        torch.manual_seed(8)
        mine, theirs = make(edata, ember), make(tdata, torch)
        assert list(mine) == list(theirs)
        assert list(mine) == list(theirs)  # and the second pass


def test_random_split_follows_torch():
    mine = edata.random_split(range(30), [0.5, 0.3, 0.2], generator=ember.Generator().manual_seed(2))
    theirs = tdata.random_split(range(30), [0.5, 0.3, 0.2], generator=torch.Generator().manual_seed(2))
    assert [list(p) for p in mine] == [list(p) for p in theirs]


@pytest.mark.parametrize("num_workers", [0, 2])
def test_shuffled_dataloader_batches_follow_torch(num_workers):
    """A seeded script's shuffled batches (and each worker's seed) are torch's."""
    def batches(D, L):
        L.manual_seed(11)
        x = L.arange(40 * 3, dtype=L.float32).reshape(40, 3)
        loader = D.DataLoader(D.TensorDataset(x, L.arange(40)), batch_size=6, shuffle=True, num_workers=num_workers)
        return [b[1].tolist() for epoch in range(2) for b in loader]
    assert batches(edata, ember) == batches(tdata, torch)


def test_module_initialization_follows_torch():
    def weights(L):
        L.manual_seed(0)
        model = L.nn.Sequential(L.nn.Linear(5, 4), L.nn.ReLU(), L.nn.Linear(4, 2))
        return [p.detach().numpy() for p in model.parameters()]
    for mine, theirs in zip(weights(ember), weights(torch)):
        np.testing.assert_allclose(mine, theirs, rtol=1e-6, atol=1e-7)


NORMAL_CALLS = {
    "tensor_mean": lambda lib: lib.normal(lib.arange(6.0).reshape(2, 3), 0.5),
    "tensor_std": lambda lib: lib.normal(2.0, lib.arange(1.0, 5.0)),
    "both_tensors_broadcast": lambda lib: lib.normal(lib.arange(3.0).reshape(3, 1), lib.ones(4) * 2),
    "sizes": lambda lib: lib.normal(1.0, 3.0, (4, 5)),
    "sizes_float64": lambda lib: lib.normal(0.0, 1.0, size=(7,), dtype=lib.float64),
    "randint_like": lambda lib: lib.randint_like(lib.zeros(3, 4), 10),
    "randint_like_low": lambda lib: lib.randint_like(lib.zeros(5, dtype=lib.int32), -3, 3),
}


@pytest.mark.parametrize("name", sorted(NORMAL_CALLS))
def test_normal_and_randint_like_draw_torchs_numbers(name):
    ember.manual_seed(5)
    torch.manual_seed(5)
    e, t = NORMAL_CALLS[name](ember), NORMAL_CALLS[name](torch)
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1] and tuple(e.shape) == tuple(t.shape)
    # torch's vectorized normal kernel (16 or more elements) may round a few values differently
    np.testing.assert_allclose(values(e), values(t), rtol=1e-5, atol=1e-5)


def test_normal_rejects_negative_std():
    with pytest.raises(RuntimeError, match="normal expects std >= 0.0"):
        ember.normal(ember.zeros(2), -1.0)
    with pytest.raises(RuntimeError, match="normal expects all elements of std >= 0.0"):
        ember.normal(0.0, ember.tensor([1.0, -1.0]))


@pytest.mark.parametrize("call,error,words", [
    (lambda: ember.empty(3).geometric_(0), RuntimeError, r"geometric_ expects p to be in \(0, 1\), but got p=0"),
    (lambda: ember.empty(3).geometric_(float("nan")), RuntimeError, "geometric_ expects p to be in"),
    (lambda: ember.empty(3, dtype=ember.bool).geometric_(0.5), NotImplementedError, "geometric_"),
    (lambda: ember.empty(3).log_normal_(0, 0), RuntimeError, "log_normal_ expects std > 0.0"),
    (lambda: ember.empty(3, dtype=ember.int64).log_normal_(), NotImplementedError, "log_normal_"),
    (lambda: ember.empty(3).cauchy_(0, -1), RuntimeError, "cauchy_ expects sigma > 0.0"),
    (lambda: ember.empty(3, dtype=ember.int64).cauchy_(), RuntimeError, "dtype must be a floating point"),
    (lambda: ember.poisson(ember.tensor([-1.0])), RuntimeError, "poisson: invalid Poisson rate"),
    (lambda: ember.poisson(ember.tensor([float("inf")])), RuntimeError, "poisson: invalid Poisson rate"),
    (lambda: ember.poisson(ember.tensor([1])), NotImplementedError, "poisson"),
    (lambda: ember.binomial(ember.ones(2, dtype=ember.int64), ember.ones(2)), RuntimeError,
     "binomial only supports floating-point dtypes for count"),
    (lambda: ember.binomial(ember.ones(2), ember.ones(2, dtype=ember.float64)), RuntimeError, "binomial: expected"),
    (lambda: ember.binomial(ember.ones(2), ember.ones(3)), RuntimeError, "binomial"),
])
def test_sampler_errors(call, error, words):
    with pytest.raises(error, match=words):
        call()


def test_sampler_edges_and_gradients_match_torch():
    for lib in (torch, ember):
        lib.manual_seed(0)
    edges = (lambda L: L.binomial(L.tensor([5., 5., -5., 5.]), L.tensor([1.5, -1., .5, float("nan")])))
    np.testing.assert_array_equal(edges(ember).numpy(), edges(torch).numpy())
    rates = ember.tensor([1.0, 20.0], requires_grad=True)
    (grad,) = ember.autograd.grad(ember.poisson(rates).sum(), rates)
    assert grad.tolist() == [0.0, 0.0]
    count = ember.tensor([3.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="the derivative for 'binomial' is not implemented"):
        ember.binomial(count, ember.tensor([0.5])).sum().backward()
