"""Dtype facts the database's entries share: the dtype groups, building
bfloat16 samples without NumPy support, and the one tolerance table."""

import numpy as np

from ember_testing import name as dtype_name  # noqa: F401  'float32' for ember.float32 or torch.float32

ALL = ("bool", "uint8", "int8", "int16", "int32", "int64",
       "float16", "bfloat16", "float32", "float64", "complex64", "complex128")
BOOL = ("bool",)
INTS = ("uint8", "int8", "int16", "int32", "int64")
FLOATS = ("float16", "bfloat16", "float32", "float64")
COMPLEX = ("complex64", "complex128")
LOWP = ("float16", "bfloat16")

# (rtol, atol) per result dtype; integers and bools compare exactly.
# "elementwise": a result rounded once from exact operands (atol absolute).
# "accumulated": reductions, products, convolutions, whose rounding error
# grows with the number of terms (atol is scaled by the magnitude of the
# expected values, max(1, max |finite value|)).
TOLERANCES = {
    #              elementwise      accumulated
    "float16": ((1e-3, 1e-5), (4e-3, 4e-3)),
    "bfloat16": ((1e-2, 1e-5), (3e-2, 3e-2)),
    "float32": ((1e-5, 1e-6), (2e-5, 1e-5)),
    "float64": ((1e-12, 1e-14), (1e-10, 1e-10)),
    "complex64": ((1e-5, 1e-6), (2e-5, 1e-5)),
    "complex128": ((1e-12, 1e-14), (1e-10, 1e-10)),
}
ELEMENTWISE, ACCUMULATED = 0, 1


def round_to_bfloat16(x):
    """float32 array holding x rounded (to nearest even) to bfloat16."""
    shape = np.shape(x)
    a = np.ascontiguousarray(x, dtype=np.float32)
    bits = a.view(np.uint32).astype(np.uint64)
    rounded = (((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16).astype(np.uint32).view(np.float32)
    return np.where(np.isnan(a), a, rounded).reshape(shape)


def numpy_storage_dtype(d):
    """The NumPy dtype a sample of ember dtype `d` is built from."""
    return np.dtype("float32") if d == "bfloat16" else np.dtype(d)
