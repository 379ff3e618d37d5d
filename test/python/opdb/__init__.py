"""The operator database that op-level tests read (issue 15, under way).

structured.py holds the structured operators (samples, NumPy references,
dtypes, tolerances, known failures); test_ops_structured.py checks their
values and test_meta.py runs their samples on the meta device. The pointwise
table (opinfo.py) and the gradcheck cases (test_ops_grad.py) are to join it.
"""
