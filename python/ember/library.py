"""Defining operators and kernels from Python, like torch.library.

    lib = ember.library.Library("myops", "DEF")
    lib.define("scale(Tensor self, float factor) -> Tensor")
    lib.impl("scale", lambda self, factor: ..., "CPU")

Kernels written in Python run as boxed kernels in the dispatcher. Dropping
the Library (or calling .close()) removes everything it registered.
"""

from . import _C


class Library:
    def __init__(self, ns, kind, dispatch_key=None):
        self._lib = _C._Library(kind, ns, dispatch_key)
        self.ns = ns

    def define(self, schema):
        self._lib.define(schema)
        return self

    def impl(self, name, fn, dispatch_key=None):
        self._lib.impl(name, fn, dispatch_key)
        return self

    def fallthrough(self, name, dispatch_key):
        self._lib.fallthrough(name, dispatch_key)
        return self

    def close(self):
        self._lib = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
