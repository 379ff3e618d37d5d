"""The operator database covers every operator.

opdb/coverage.py calls every entry's samples under the operator log and
collects the aten overloads they reach. Each overload the dispatcher knows
must be reached by some entry's values or geometry, and each overload that
derivatives.yaml differentiates by some gradient case; the failure says
what to add where.
"""

import os

import pytest
import yaml

import ember
from opdb import coverage, geometry

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Overloads no database entry calls, with where they are tested instead.
NO_ENTRY = {
    "index.Tensor": "advanced indexing through Tensor.__getitem__: test_ops_structured.py::test_getitem",
    # Sparse results have no strides for geometry samples: checked against torch in test_sparse.py.
    **{op: "sparse COO: test_sparse.py" for op in (
        "_coalesce", "_sparse_coo_tensor", "_to_dense", "coalesce", "sparse_mask", "to_dense", "to_sparse")},
}

# Differentiable overloads whose gradient is checked through the op that
# decomposes into them (their own cases would repeat those).
GRADIENT_THROUGH = {
    "native_batch_norm": "batch_norm",
    "native_layer_norm": "layer_norm",
    "native_dropout": "dropout",
    "_safe_softmax": "softmax (its derivative is softmax's)",
    "_coalesce": "coalesce",
    "_to_dense": "to_dense",
}

ADD_VALUES = ("add an entry to the operator database for each: an Op in test/python/opdb/structured.py "
              "(samples, a NumPy reference, dtypes), a pointwise OpInfo in opdb/pointwise.py, or, for an op "
              "without values to compare (a factory, a view, a backward kernel), a sample in opdb/geometry.py "
              "keyed by the overload")
ADD_GRADIENTS = ("add gradient cases to test/python/opdb/gradients.py for each (case(op, desc, call, inputs...), "
                 "float64 values away from kinks and ties)")


def aten_overloads():
    return {s[len("aten::"):].split("(")[0] for s in ember._C._schemas() if s.startswith("aten::")}


def differentiable_overloads():
    """derivatives.yaml's overloads with a gradient that is not zero everywhere."""
    with open(os.path.join(ROOT, "derivatives.yaml")) as f:
        entries = yaml.safe_load(f)
    out = set()
    for entry in entries:
        name = entry["name"].split("(")[0]
        formulas = [v for k, v in entry.items() if k not in ("name", "output_differentiability")]
        outputs = entry.get("output_differentiability", [True])
        if any(outputs) and any(str(f).strip() != "zeros_like(grad)" for f in formulas):
            out.add(name)
    return out


def test_every_operator_has_a_database_entry():
    missing = sorted(aten_overloads() - coverage.reached()["values"] - set(NO_ENTRY))
    assert not missing, f"no operator database entry calls {missing}: {ADD_VALUES}"


def test_every_differentiable_operator_has_gradient_cases():
    missing = sorted(differentiable_overloads() - coverage.reached()["gradients"] - set(GRADIENT_THROUGH))
    assert not missing, f"no gradient case calls {missing}: {ADD_GRADIENTS}"


def test_exemptions_are_still_needed():
    reached = coverage.reached()
    assert set(NO_ENTRY) <= aten_overloads(), "NO_ENTRY names an overload that no longer exists"
    called = set(NO_ENTRY) & reached["values"]
    assert not called, f"an entry now calls {sorted(called)}: delete them from NO_ENTRY"
    called = set(GRADIENT_THROUGH) & reached["gradients"]
    assert not called, f"a gradient case now calls {sorted(called)}: delete them from GRADIENT_THROUGH"
    assert set(GRADIENT_THROUGH) <= differentiable_overloads()


@pytest.mark.parametrize("key", sorted(geometry.SAMPLES))
def test_geometry_sample_reaches_its_overload(key):
    with ember._C._OperatorLog() as log:
        geometry.SAMPLES[key]("cpu")
    assert f"aten::{key}" in log.names, f"the sample named {key} calls {log.names}"
