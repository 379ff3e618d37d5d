"""A tour of Ember's tensors: creation, views, NumPy and DLPack interop."""
import numpy as np

import ember

ember.manual_seed(0)

print("ember", ember.__version__)
x = ember.arange(12, dtype=ember.float32).view(3, 4)
print("x =", x, sep="\n")
print("x.t() is a view with strides", x.t().stride(), "of shape", x.t().shape)

# Views share memory: writing through a slice changes x.
x[:, 1] = -1
print("after x[:, 1] = -1:", x, sep="\n")

# NumPy without copies, in both directions.
a = np.linspace(0, 1, 5)
t = ember.from_numpy(a)
t[0] = 42.0
print("NumPy sees the write:", a)
print("and back:", ember.tensor([[1, 2], [3, 4]]).numpy().sum(axis=0))

# DLPack hands the same memory to any library that speaks it.
print("through DLPack:", np.from_dlpack(ember.randn(2, 3)))
print("dtypes:", [str(d) for d in (ember.bool, ember.int64, ember.bfloat16, ember.complex64)])
print("a complex conj is lazy:", ember.tensor([1 + 2j, 3 - 4j]).conj())
