"""Calls made from the operator database's samples (test/python/opdb), then
mutated: an entry's sample gets past an op's first checks, and one change to
it (another dtype, the meta device, a transposed or empty operand, an
integer argument moved) reaches the checks and kernels behind them.

Tensors are written as their exact bytes, so that a reproducer rebuilds the
same values (NaN and infinities included).
"""

from __future__ import annotations

import math
import os
import sys

from .schema_fuzz import DTYPES, INTS

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load_entries():
    """[(name called as ember.<name>, samples(dtype), dtypes)] of the entries
    whose call is exactly ember.<name>(*args, **kwargs)."""
    sys.path.insert(0, os.path.join(ROOT, "test", "python"))
    # The fuzzer never needs the torch oracle, and its parent forks every call:
    # keep torch (and its thread pools) out of the process.
    sys.modules.setdefault("torch", None)
    from opdb import pointwise, structured

    entries = [(op.aten, op.samples, op.dtypes) for op in pointwise.OPS if op.fn is None and not op.kwargs]
    entries += [(op.aten or op.name, op.samples, op.dtypes) for op in structured.OPS if op.fn is None]
    return entries, pointwise, structured


class DatabaseCalls:
    def __init__(self, rng):
        self.rng = rng
        self.entries, self.pointwise, self.structured = load_entries()

    def tensor_source(self, values, dtype):
        import numpy as np

        array = np.ascontiguousarray(values)
        text = (f"ember.from_numpy(np.frombuffer(bytes.fromhex('{array.tobytes().hex()}'), "
                f"'{array.dtype.str}').reshape({list(array.shape)}).copy())")
        return text + (".to(ember.bfloat16)" if dtype == "bfloat16" else "")

    def mutate_tensor(self, text, ndim):
        r = self.rng
        choice = r.random()
        if choice < 0.25:
            return text + f".to(ember.{r.choice(DTYPES)})"
        if choice < 0.4:
            return text + ".to('meta')"
        if choice < 0.6 and ndim >= 2:
            return text + f".transpose(0, {ndim - 1})"
        if choice < 0.75 and ndim >= 1:
            return text + "[:0]"
        if ndim >= 1:
            return text + ".unsqueeze(0)"
        return text

    def argument_source(self, a, mutate):
        r = self.rng
        if isinstance(a, (self.pointwise.TensorSpec, self.structured.Arr)):
            text = self.tensor_source(a.values, a.dtype)
            return self.mutate_tensor(text, a.values.ndim) if mutate else text
        if isinstance(a, self.structured.DT):
            return f"ember.{r.choice(DTYPES) if mutate else a.name}"
        if isinstance(a, list):
            return "[" + ", ".join(self.argument_source(x, mutate and r.random() < 0.5) for x in a) + "]"
        if isinstance(a, bool) or a is None or isinstance(a, str):
            return repr(a)
        if isinstance(a, int):
            return str(r.choice(INTS) if mutate else a)
        if isinstance(a, float):
            return f"float('{a}')" if not math.isfinite(a) else repr(a)
        if isinstance(a, complex):
            return f"complex(float('{a.real}'), float('{a.imag}'))"
        return repr(a)

    def call_source(self):
        """(op name, Python source of one mutated call)."""
        r = self.rng
        name, samples, dtypes = r.choice(self.entries)
        sample_list = samples(r.choice(dtypes))
        while not sample_list:
            name, samples, dtypes = r.choice(self.entries)
            sample_list = samples(r.choice(dtypes))
        sample = r.choice(sample_list)
        arguments = list(sample.args) + list(sample.kwargs.values())
        mutated = r.randrange(len(arguments)) if arguments else -1
        args = [self.argument_source(a, i == mutated) for i, a in enumerate(sample.args)]
        kwargs = [f"{k}={self.argument_source(v, len(sample.args) + i == mutated)}"
                  for i, (k, v) in enumerate(sample.kwargs.items())]
        return name, f"ember.{name}({', '.join(args + kwargs)})"
