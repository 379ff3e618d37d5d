"""EMBER_CPU_CAPABILITY holds Ember's vectorized kernels (aten/native/cpu/
VecMath.cpp, SleefMath.cpp) to a smaller instruction set, as torch's ATEN_CPU_CAPABILITY
does: each copy must give the same results as the one the CPU picks."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ember

PYTHON_DIR = str(Path(ember.__file__).resolve().parents[1])

# exp/tanh/sigmoid/erf/gelu (both forms and their gradients), sum, softmax (and backward), log_softmax,
# cross_entropy (log-sum-exp rows), layer_norm (and backward), attention's online softmax, and Adam's step.
PROGRAM = r"""
import json, sys, numpy as np, ember
F = ember.nn.functional
rng = np.random.default_rng(0)
x = ember.tensor(rng.standard_normal((33, 97)).astype(np.float32) * 4, requires_grad=True)
out = {"capability": ember.backends.cpu.get_cpu_capability()}
for name, f in [("exp", ember.exp), ("tanh", ember.tanh), ("sigmoid", ember.sigmoid), ("erf", ember.erf),
                ("gelu", F.gelu), ("gelu_tanh", lambda t: F.gelu(t, approximate="tanh")),
                ("softmax", lambda t: t.softmax(-1)), ("log_softmax", lambda t: t.log_softmax(-1)),
                ("layer_norm", lambda t: F.layer_norm(t, (97,))),
                ("cross_entropy", lambda t: F.cross_entropy(t, ember.arange(33) % 97, reduction="none"))]:
    x.grad = None
    y = f(x)
    (y * ember.linspace(-1, 1, y.numel()).reshape(y.shape)).sum().backward()
    out[name] = y.detach().flatten().tolist() + x.grad.flatten().tolist()
# SLEEF's functions (aten/native/cpu/SleefMath.h), over their domains, with a tail of 7 and sinh/cosh past 88
u = ember.tensor(np.concatenate([rng.uniform(-0.99, 0.99, 100), [0.0, -0.0, 1.0, -1.0]]).astype(np.float32))
big = ember.tensor(np.concatenate([rng.uniform(-89.4, 89.4, 100), [88.5, -89.0, 89.4, 1e-3]]).astype(np.float32))
for name in ("sin", "cos", "tan", "atan", "sinh", "cosh", "exp2", "expm1", "erfc", "lgamma"):
    out["sleef_" + name] = getattr(ember, name)(big if name in ("sinh", "cosh") else big / 4).tolist()
for name in ("asin", "acos", "atanh", "log", "log2", "log10", "log1p", "erfinv"):
    out["sleef_" + name] = getattr(ember, name)(u.abs() if name.startswith("log") and name != "log1p" else u).tolist()
for name in ("atan2", "hypot", "fmod", "remainder", "logaddexp"):
    out["sleef_" + name] = getattr(ember, name)(big, big.flip(0) / 3).tolist()
out["sleef_pow"] = ember.pow(big.abs() / 10, big.flip(0) / 30).tolist()
out["sleef_floor_divide"] = ember.div(big, big.flip(0) / 3, rounding_mode="floor").tolist()
out["sum"] = ember.tensor(rng.standard_normal(100003).astype(np.float32)).sum().item()
q = ember.tensor(rng.standard_normal((2, 2, 70, 16)).astype(np.float32))
out["sdpa"] = F.scaled_dot_product_attention(q, q, q, is_causal=True).tolist()
p = ember.nn.Parameter(ember.ones(300))
opt = ember.optim.Adam([p], lr=0.1)
p.grad = ember.linspace(-1, 1, 300)
opt.step()
out["adam"] = p.tolist()
json.dump(out, sys.stdout)
"""


def run(capability):
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("EMBER_CPU_CAPABILITY", None)
    if capability is not None:
        env["EMBER_CPU_CAPABILITY"] = capability
    done = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def native():
    return run(None)


ORDER = ["DEFAULT", "AVX2", "AVX512"]


@pytest.mark.parametrize("asked", ["avx2", "default", "AVX2", "something-else"])
def test_capability_is_lowered_never_raised_and_results_agree(native, asked):
    got = run(asked)
    want = {"avx2": "AVX2", "default": "DEFAULT", "something-else": native["capability"]}[asked.lower()]
    # Never above what the CPU has.
    want = min(want, native["capability"], key=ORDER.index)
    assert got["capability"] == want
    for key, value in native.items():
        if key == "capability":
            continue
        np.testing.assert_allclose(np.array(got[key], dtype=np.float64), np.array(value, dtype=np.float64),
                                   rtol=2e-5, atol=2e-6, err_msg=key)
