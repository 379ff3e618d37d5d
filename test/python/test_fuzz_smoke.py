"""A fixed-seed smoke run of the schema fuzzer (test/fuzz): 2,000 calls
generated from native_functions.yaml, each in a forked child; any crash,
hang or internal error fails, with the reproducing call in the message.
Longer runs: python -m test.fuzz --seconds N --seed S."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from test.fuzz.__main__ import fuzz  # noqa: E402

CALLS = 2000
SEED = 20261204


def test_fuzz_smoke():
    failures, count = fuzz(SEED, calls=CALLS)
    assert count == CALLS
    report = "\n\n".join(f"{call.op}: {outcome}\n{call.reproducer(outcome)}" for call, outcome in failures)
    assert not failures, f"{len(failures)} of {CALLS} fuzzed calls broke Ember:\n\n{report}"
