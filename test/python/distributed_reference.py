"""The inputs of the distributed collective workers and their expected results, shared by the workers
(one per rank) and test_distributed.py (the single-process reference)."""

import numpy as np

import ember

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int8", "uint8", "bool", "complex64"]
_FLOAT_OPS = ["SUM", "AVG", "PRODUCT", "MIN", "MAX"]
_INT_OPS = ["SUM", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"]
OPS = {"float32": _FLOAT_OPS, "float64": _FLOAT_OPS, "float16": _FLOAT_OPS, "bfloat16": _FLOAT_OPS,
       "int64": _INT_OPS, "int32": _INT_OPS, "int8": _INT_OPS, "uint8": _INT_OPS,
       "bool": ["SUM", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"], "complex64": ["SUM", "AVG", "PRODUCT"]}


def values(dtype, seed):
    """Small integers (exact sums and products in every dtype) as a NumPy array of shape (2, 3)."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.integers(0, 2, (2, 3)).astype(bool)
    if dtype == "complex64":
        return (rng.integers(-3, 4, (2, 3)) + 1j * rng.integers(-3, 4, (2, 3))).astype(np.complex64)
    low = 0 if dtype == "uint8" else -3
    return rng.integers(low, 4, (2, 3)).astype(np.float64 if dtype in ("float16", "bfloat16") else dtype)


def make(dtype, seed):
    return ember.tensor(values(dtype, seed)).to(getattr(ember, dtype))


def reduce(op, arrays, dtype):
    stack = np.stack(arrays)
    if dtype == "bool":
        return {"SUM": stack.any(0), "MAX": stack.any(0), "BOR": stack.any(0), "PRODUCT": stack.all(0),
                "MIN": stack.all(0), "BAND": stack.all(0), "BXOR": stack.sum(0) % 2 == 1}[op]
    if op == "SUM":
        return stack.sum(0)
    if op == "AVG":
        return stack.sum(0) / len(arrays)
    if op == "PRODUCT":
        return stack.prod(0)
    if op == "MIN":
        return stack.min(0)
    if op == "MAX":
        return stack.max(0)
    combine = {"BAND": np.bitwise_and, "BOR": np.bitwise_or, "BXOR": np.bitwise_xor}[op]
    return combine.reduce(stack, axis=0)
