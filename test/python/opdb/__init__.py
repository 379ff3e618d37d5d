"""The operator database: every op-level test reads its entries from here.

* pointwise.py: the elementwise operators (OpInfo: forms, NumPy reference,
  dtypes, sample inputs, known failures). test_ops.py checks values, dtypes,
  variants, the Scalar overloads and Meta; test_robustness.py gives them
  awkward operands.
* structured.py: reductions, linear algebra, joining/indexing/sorting, nn
  functions, convolution and pooling (Op: samples, NumPy reference, dtypes,
  tolerances, known failures). test_ops_structured.py checks values,
  test_meta.py runs the samples on meta.
* geometry.py: samples checked for shape, dtype and strides only (factories,
  random ops, views, in-place/out forms of aliases, backward kernels), keyed
  by the overload they reach; test_meta.py.
* gradients.py: the gradient cases (derived from the pointwise entries'
  float64 samples, and hand-made ones for the structured operators);
  test_ops_grad.py gradchecks them and compares with torch.
* coverage.py: the aten overloads the entries reach, found with the operator
  log; test_opdb.py fails, naming what to add, for an overload that no entry
  calls or a differentiable one that no gradient case calls.
"""
