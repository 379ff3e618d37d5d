"""Meta tensors: every operator infers shapes, dtypes and strides without data.

The operator database's samples run on 'meta' and on CPU inputs of the same
geometry, and the results must match: the structured entries'
(opdb/structured.py) and the geometry samples' (opdb/geometry.py) here, the
pointwise entries' in test_ops.py::test_meta. test_opdb.py checks that every
aten overload is reached by some entry.
"""

import pytest

import ember
from opdb.geometry import SAMPLES
from opdb.structured import OPS, representative_samples

DATABASE_OPS = {op.name: op for op in OPS}


def _results(value):
    return list(value) if isinstance(value, (tuple, list)) else [value]


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_meta_matches_cpu(name):
    cpu = _results(SAMPLES[name]("cpu"))
    meta = _results(SAMPLES[name]("meta"))
    assert len(cpu) == len(meta)
    for c, m in zip(cpu, meta):
        if c is None:  # an output the op was asked not to compute
            assert m is None, name
            continue
        assert m.device.type == "meta"
        assert (m.shape, m.dtype, m.stride()) == (c.shape, c.dtype, c.stride()), name


def _on_meta(x):
    """A meta tensor of x's geometry (lists element-wise); other arguments as they are."""
    if isinstance(x, ember.Tensor):
        return ember.empty_strided(x.shape, x.stride(), dtype=x.dtype, device="meta")
    if isinstance(x, list):
        return [_on_meta(i) for i in x]
    return x


def _database_cases():
    for name, op in sorted(DATABASE_OPS.items()):
        if op.data_dependent:
            continue
        for sample in representative_samples(op):
            yield pytest.param(op, sample, id=f"{name}-{sample.desc}")


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("op, sample", list(_database_cases()))
def test_database_samples_on_meta_match_cpu(op, sample):
    args, kwargs = sample.materialize(ember)
    cpu = _results(op.call(ember, args, kwargs))
    meta = _results(op.call(ember, [_on_meta(a) for a in args], {k: _on_meta(v) for k, v in kwargs.items()}))
    assert len(cpu) == len(meta)
    for c, m in zip(cpu, meta):
        assert m.device.type == "meta"
        assert (m.shape, m.dtype, m.stride()) == (c.shape, c.dtype, c.stride()), op.name


def test_data_dependent_ops_explain_themselves():
    with pytest.raises(RuntimeError, match="meta"):
        ember.zeros(1, device="meta").item()
