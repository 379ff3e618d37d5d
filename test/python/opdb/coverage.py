"""Which aten overloads the operator database reaches.

Each sample of each entry is called once under ``ember._C._OperatorLog``,
which records the overloads the call enters at the top level (not what
kernels, decompositions or autograd call in turn). Only the op call itself
is inside the log, not building its inputs. test_opdb.py compares the
result with every overload the dispatcher knows and with every overload
derivatives.yaml differentiates.
"""

import functools
import warnings

import ember

from . import geometry, gradients, pointwise, structured


def _call_logged(names, fn, *args, **kwargs):
    with ember._C._OperatorLog() as log:
        try:
            fn(*args, **kwargs)
        except Exception:  # an error still shows which overload the call reached
            pass
    names.update(n[len("aten::"):] for n in log.names if n.startswith("aten::"))


def _pointwise(names):
    for op in pointwise.OPS:
        # One dtype of each kind (bool, int, float, complex): float32 for floats.
        first = "float32" if "float32" in op.dtypes else op.dtypes[0]
        by_kind = {pointwise.KIND[first]: first}
        for x in op.dtypes:
            by_kind.setdefault(pointwise.KIND[x], x)
        for d in by_kind.values():
            for sample in op.samples(d):
                args, kwargs = sample.materialize(ember)
                _call_logged(names, op, ember, *args, **kwargs)
                if op.method:
                    _call_logged(names, op.call_method, *sample.materialize(ember))
                if op.has_inplace:
                    _call_logged(names, op.call_inplace, ember, *sample.materialize(ember))
                if op.supports_out and sample.tensor_only:
                    _call_logged(names, op, ember, *args, out=ember.empty(0), **kwargs)
                for _, call, _ in pointwise.number_overload_calls(op, ember, args, kwargs):
                    _call_logged(names, call)


def _structured(names):
    for op in structured.OPS:
        for d in op.dtypes[:1] + tuple(x for x in ("float32",) if x in op.dtypes):
            for sample in op.samples(d):
                args, kwargs = sample.materialize(ember)
                _call_logged(names, op.call, ember, args, kwargs)
                if op.method:
                    _call_logged(names, lambda: getattr(args[0], op.aten or op.name)(*args[1:], **kwargs))
    for _, call, dtype in structured.OUT_CASES:
        _call_logged(names, call, ember, ember.empty(0, dtype=getattr(ember, dtype)))
    for _, call, _, dtype in structured.INPLACE_CASES:
        _call_logged(names, call, ember, structured.make_tensor(ember, dtype, (3, 5)))


def _geometry(names):
    for sample in geometry.SAMPLES.values():
        _call_logged(names, sample, "cpu")


def _gradients(names):
    for case in gradients.all_cases():
        leaves = case.leaves(ember)
        _call_logged(names, case.function(ember), *leaves)


@functools.lru_cache(maxsize=None)
def reached():
    """{"values": overloads whose values (or geometry) some entry checks,
    "gradients": overloads some gradient case differentiates}."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values, grads = set(), set()
        _pointwise(values)
        _structured(values)
        _geometry(values)
        _gradients(grads)
    return {"values": frozenset(values), "gradients": frozenset(grads)}
