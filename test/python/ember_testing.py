"""Shared helpers for Ember's Python tests.

NumPy is always the reference for values; torch, when installed, is a second
oracle for dtypes, strides and error types. Nothing here makes Ember import
torch: tests convert through NumPy or plain Python lists.
"""

import numpy as np
import pytest

import ember

try:
    import torch
except ImportError:  # torch is an optional oracle
    torch = None

# (ember dtype name, numpy dtype or None where NumPy has no such type)
DTYPE_NAMES = [
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]
ALL_DTYPES = [getattr(ember, n) for n in DTYPE_NAMES]
NUMPY_DTYPES = {n: (None if n == "bfloat16" else np.dtype(n)) for n in DTYPE_NAMES}
FLOAT_DTYPES = [ember.float16, ember.bfloat16, ember.float32, ember.float64]
COMPLEX_DTYPES = [ember.complex64, ember.complex128]
INT_DTYPES = [ember.uint8, ember.int8, ember.int16, ember.int32, ember.int64]


def name(dtype):
    """'float32' for ember.float32 (or torch.float32)."""
    return str(dtype).rsplit(".", 1)[-1]


def need_torch():
    """The torch module, or skip the calling test when it is not installed."""
    return pytest.importorskip("torch")


def torch_dtype(dtype):
    return getattr(need_torch(), name(dtype))


def to_numpy(t):
    """A NumPy copy of any CPU ember tensor's logical values (bfloat16 goes
    through float32, which holds every bfloat16 exactly)."""
    if t.dtype == ember.bfloat16:
        t = t.float()
    return np.array(t.resolve_conj().numpy(), copy=True)


def from_torch(tt):
    """An ember copy of a torch tensor, going through NumPy."""
    t = need_torch()
    if tt.dtype == t.bfloat16:
        return ember.from_numpy(tt.detach().float().numpy().copy()).to(ember.bfloat16)
    return ember.from_numpy(tt.detach().resolve_conj().numpy().copy())


def to_torch(t):
    tm = need_torch()
    return tm.from_numpy(to_numpy(t)).to(torch_dtype(t.dtype))


def assert_equal(actual, expected, dtype=None):
    """`actual` (ember tensor) has exactly the values of `expected` (array-like)
    and, if given, the dtype."""
    if dtype is not None:
        assert actual.dtype == dtype, (actual.dtype, dtype)
    expected = np.asarray(expected)
    got = to_numpy(actual)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    np.testing.assert_array_equal(got, expected)


def assert_like_torch(e, tt, check_strides=True, exact=True, atol=1e-6):
    """Same shape, dtype name, strides and values as the torch tensor `tt`."""
    assert tuple(e.shape) == tuple(tt.shape), (e.shape, tt.shape)
    assert name(e.dtype) == name(tt.dtype), (e.dtype, tt.dtype)
    if check_strides:
        assert e.stride() == tt.stride(), (e.stride(), tt.stride())
    if e.is_meta:
        return
    expected = tt.detach().resolve_conj()
    expected = expected.float().numpy() if expected.dtype == torch.bfloat16 else expected.numpy()
    if exact:
        np.testing.assert_array_equal(to_numpy(e), expected)
    else:
        np.testing.assert_allclose(to_numpy(e), expected, rtol=1e-6, atol=atol)


def sample_values(dtype_name, n=12, seed=0):
    """A NumPy array of `n` values representable in the dtype, including
    negatives, zeros and fractions where the dtype has them."""
    rng = np.random.default_rng(seed)
    if dtype_name == "bool":
        return rng.integers(0, 2, n).astype(bool)
    if dtype_name == "uint8":
        return rng.integers(0, 256, n).astype(np.uint8)
    if dtype_name.startswith("int"):
        info = np.iinfo(dtype_name)
        return rng.integers(max(info.min, -1000), min(info.max, 1000), n).astype(dtype_name)
    if dtype_name == "bfloat16":
        # Multiples of 1/8 below 32 have at most 8 significant bits: exact.
        return (rng.integers(-256, 256, n) / 8).astype(np.float32)
    if dtype_name.startswith("float"):
        return (rng.standard_normal(n) * 10).astype(dtype_name)
    real = rng.standard_normal(n) * 10
    imag = rng.standard_normal(n) * 10
    return (real + 1j * imag).astype(dtype_name)


def make(dtype_name, shape=(12,), seed=0):
    """An ember tensor and the NumPy array (float32 for bfloat16) holding its values."""
    n = int(np.prod(shape))
    values = sample_values(dtype_name, n, seed).reshape(shape)
    t = ember.from_numpy(values.copy())
    if dtype_name == "bfloat16":
        t = t.to(ember.bfloat16)
    return t, values


def unique_index(shape, dim, size, seed):
    """An index of `shape` whose entries along `dim` are distinct (each slot
    written once: scatter's result is then defined)."""
    rng = np.random.default_rng(seed)
    out = np.empty(shape, np.int64)
    moved = np.moveaxis(out, dim, -1)
    for pos in np.ndindex(*moved.shape[:-1]):
        moved[pos] = rng.permutation(size)[: moved.shape[-1]]
    return out
