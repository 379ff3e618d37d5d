"""Crash hunting: calls generated from the operator schemas and from mutated
operator-database samples, each run in a forked child.

`python -m test.fuzz --seconds N --seed S` runs it; test/python/test_fuzz_smoke.py
runs a fixed-seed smoke of it with the test suite.
"""
