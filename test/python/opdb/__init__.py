"""The operator database that op-level tests read (issue 15, under way).

pointwise.py holds the elementwise operators (test_ops.py checks their
values, dtypes and variants; test_ops_grad.py gradchecks them; the
robustness sweep gives them awkward operands). structured.py holds the
structured operators (samples, NumPy references, dtypes, tolerances, known
failures); test_ops_structured.py checks their values and test_meta.py runs
their samples on the meta device. The gradcheck cases of test_ops_grad.py
and the remaining Meta samples are to join them as per-op entries.
"""
