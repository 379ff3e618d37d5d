"""Assertions for tests, as torch.testing: assert_close compares tensors (or
nested sequences and mappings of them) with dtype-dependent tolerances."""

from ._comparison import assert_close, make_tensor

__all__ = ["assert_close", "make_tensor"]
