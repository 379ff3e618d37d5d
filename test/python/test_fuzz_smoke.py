"""A fixed-seed smoke run of the fuzzer (test/fuzz): 2,000 calls generated
from native_functions.yaml's schemas and from mutated samples of the
operator database, each in a forked child; any crash, hang or internal
error fails, with the reproducing calls in the message.

The fuzzer runs as its own small process: forking pytest's (which holds the
whole suite and PyTorch) for every call would cost several times more.
Longer runs: python -m test.fuzz --seconds N --seed S."""

import glob
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CALLS = 2000
SEED = 20261204


def test_fuzz_smoke(tmp_path):
    run = subprocess.run([sys.executable, "-m", "test.fuzz", "--calls", str(CALLS), "--seed", str(SEED),
                          "--out", str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=1200)
    reproducers = "\n\n".join(open(p).read() for p in sorted(glob.glob(str(tmp_path / "*.py"))))
    assert run.returncode == 0, f"{run.stdout[-2000:]}\n{run.stderr[-4000:]}\n{reproducers}"
    assert f"{CALLS} calls, 0 failures" in run.stdout
