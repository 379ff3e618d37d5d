"""Lazy modules against torch: the first call sizes and initializes the
parameters (same seed, same values), the module becomes its ordinary
class, and later calls, gradients and state_dicts match."""

import numpy as np
import pytest

import ember
import ember.nn as enn
from ember.nn.parameter import UninitializedParameter, is_lazy
from torch_oracle import N, torch


@pytest.mark.parametrize("name,args,kwargs,shape", [
    ("LazyLinear", (4,), {}, (3, 5)),
    ("LazyLinear", (2,), {"bias": False}, (2, 3, 6)),
    ("LazyConv1d", (4, 3), {"padding": 1}, (2, 3, 7)),
    ("LazyConv2d", (4, 3), {"stride": 2, "groups": 2}, (2, 6, 7, 7)),
    ("LazyConv2d", (2, 3), {}, (3, 5, 5)),
    ("LazyBatchNorm1d", (), {}, (4, 3)),
    ("LazyBatchNorm2d", (), {"affine": False}, (2, 3, 4, 4)),
    ("LazyBatchNorm3d", (), {"track_running_stats": False}, (2, 2, 2, 3, 3)),
    ("LazyConv3d", (4, 2), {"padding": 1}, (2, 3, 4, 4, 4)),
    ("LazyConvTranspose1d", (4, 3), {"stride": 2}, (2, 3, 5)),
    ("LazyConvTranspose2d", (4, 3), {"groups": 2, "output_padding": 1, "stride": 2}, (2, 6, 4, 4)),
    ("LazyConvTranspose3d", (2, 2), {}, (1, 3, 3, 3, 3)),
    ("LazyInstanceNorm1d", (), {}, (2, 3, 6)),
    ("LazyInstanceNorm2d", (), {"affine": False}, (2, 3, 4, 4)),
    ("LazyInstanceNorm3d", (), {"track_running_stats": False}, (2, 2, 2, 3, 3)),
])
def test_lazy_module_matches_torch(name, args, kwargs, shape):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    results = []
    for lib in (torch, ember):
        lib.manual_seed(0)
        module = getattr(lib.nn, name)(*args, **kwargs)
        xt = lib.tensor(x, requires_grad=True)
        out = module(xt)
        weights = np.random.default_rng(1).standard_normal(tuple(out.shape)).astype(np.float32)
        (out * lib.tensor(weights)).sum().backward()
        results.append((type(module).__name__, repr(module), sorted(module.state_dict()),
                        [out, xt.grad] + [p for p in module.parameters()] + [p.grad for p in module.parameters()]))
    (t_cls, t_repr, t_keys, t_vals), (e_cls, e_repr, e_keys, e_vals) = results
    assert e_cls == t_cls and e_repr == t_repr and e_keys == t_keys
    for a, b in zip(e_vals, t_vals):
        np.testing.assert_allclose(N(a), N(b), rtol=1e-5, atol=1e-6)


def test_uninitialized_parameter_materializes_in_place():
    p = UninitializedParameter()
    assert is_lazy(p) and p.requires_grad
    same = p.materialize((2, 3))
    assert same is p and type(p) is enn.Parameter and not is_lazy(p) and tuple(p.size()) == (2, 3)


def test_lazy_module_is_lazy_until_called():
    m = enn.LazyLinear(3)
    assert m.has_uninitialized_params() and is_lazy(m.weight)
    m(ember.ones(2, 4))
    assert type(m) is enn.Linear and m.in_features == 4 and not is_lazy(m.weight)
    with pytest.raises(RuntimeError, match="Expected 3D \\(unbatched\\) or 4D \\(batched\\) input to LazyConv2d"):
        enn.LazyConv2d(2, 3)(ember.ones(3, 3))


def test_lazy_instance_norm_reads_channels_of_unbatched_input():
    # torch 2.13 takes the length for the channels here and then refuses its own input.
    module = enn.LazyInstanceNorm1d(track_running_stats=False)
    out = module(ember.ones(3, 5))
    assert type(module) is enn.InstanceNorm1d and module.num_features == 3 and tuple(out.shape) == (3, 5)
