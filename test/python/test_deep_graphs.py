"""Long autograd chains are released and differentiated without recursion.

Dropping the output of a 200,000-op chain used to destroy its nodes one C++
frame per node and overflow the stack (the process died). Each case runs in
a subprocess, so that a crash fails the test instead of killing pytest.
"""

import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CHAIN = """
import ember
x = ember.ones(1, requires_grad=True)
y = x
for _ in range(200_000):
    y = y * 1.0
"""


@pytest.mark.parametrize("ending,expected", [
    ("del y\nprint('released')", "released"),
    ("y.sum().backward()\nprint('grad', x.grad.item())", "grad 1.0"),
])
def test_a_long_chain(ending, expected):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(CHAIN) + ending], capture_output=True, text=True,
                            env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert expected in result.stdout
